/**
 * @module
 * A small Node HTTP front before the local workerd (issue #23). workerd answers a request whose
 * framing is malformed — two `Content-Length` headers, `Content-Length` beside
 * `Transfer-Encoding`, a bad chunk — with a plain-text 500 before the Worker sees it. On
 * Cloudflare the edge refuses such requests itself; locally this front does: Node's parser
 * refuses them, and its `clientError` handler answers `400` with the Worker's JSON error shape
 * `{ "error": { "code": "malformed_request", "message": … } }` (431 for headers too large, 408
 * for a request too slow). Everything else streams through both ways as it comes, unbuffered
 * (an SSE chunk is passed on at once), over kept-alive connections to workerd; a request's
 * trailers are dropped (workerd has no use for them).
 *
 * It listens on 127.0.0.1 at a port chosen at run time; `startWorker` (`local-worker.ts`) puts it
 * in front of every local Worker, so `npm start`, `stepwise demo` and the end-to-end tests meet
 * the Worker as apps would behind Cloudflare's edge.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A running front. */
export interface FramingFront {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Headers of one hop, not passed on (RFC 9110 §7.6.1), and what Node sets itself. */
const hopHeaders = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
]);

function passed(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopHeaders.has(name)) out[name] = value;
  }
  return out;
}

/** The raw HTTP/1.1 answer the front writes for a request it could not parse. */
export function framingRefusal(error: NodeJS.ErrnoException): string {
  const [status, reason, code, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [
          431,
          "Request Header Fields Too Large",
          "headers_too_large",
          "The request's headers are too large.",
        ]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "request_timeout", "The request was not received in time."]
        : [
            400,
            "Bad Request",
            "malformed_request",
            "The request's HTTP framing is malformed (e.g. two Content-Length headers, Content-Length with Transfer-Encoding, or a bad chunk); send one Content-Length or a well-formed chunked body.",
          ];
  const body = JSON.stringify({ error: { code, message } });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    body,
  ].join("\r\n");
}

function jsonError(response: http.ServerResponse, status: number, code: string, message: string) {
  const body = JSON.stringify({ error: { code, message } });
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

/** Starts a front on 127.0.0.1 that passes every well-framed request to `target` (workerd). */
export async function startFramingFront(target: string): Promise<FramingFront> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((request, response) => {
    const proxied = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: passed(request.headers),
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, passed(answer.headers));
        // Headers go at once (a stream's first event may be a while).
        response.flushHeaders();
        answer.pipe(response);
        answer.on("aborted", () => response.destroy());
        answer.on("error", () => response.destroy());
      },
    );
    proxied.on("socket", (socket) => socket.setNoDelay(true));
    proxied.on("error", () => {
      if (!response.headersSent) {
        jsonError(
          response,
          502,
          "worker_unreachable",
          "The local Worker (workerd) did not answer.",
        );
      } else {
        response.destroy();
      }
    });
    // The app gone before the answer is: so is the call to the Worker.
    response.on("close", () => {
      if (!response.writableFinished) proxied.destroy();
    });
    request.pipe(proxied);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (socket.writable && (inFlight === undefined || !inFlight.headersSent)) {
      socket.end(framingRefusal(error));
    } else {
      socket.destroy(error);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
