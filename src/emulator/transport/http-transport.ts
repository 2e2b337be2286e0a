/**
 * @module
 * The emulator's default upstream transport (see `attempt.ts` for the contract): `node:http` and
 * `node:https` with keep-alive agents. No web streams, no copy of the request: the body is
 * written as one buffer, a buffered answer is read with `data` events, a stream is handed on as
 * the response's own chunks. A CPU profile of the emulator under load put about half of its time
 * in `fetch` (web streams both ways, a copy of every request body); see BENCHMARKS.md.
 *
 * Idle sockets close before the upstream's announced keep-alive timeout (`Keep-Alive:
 * timeout=N`, Node's agent honours the hint) or after 4 s when it announces none, as undici
 * does, so a socket the upstream is about to close is not reused.
 */
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import {
  type AttemptOptions,
  type AttemptResult,
  abortedResult,
  defaultMaxBodyBytes,
  describeError,
  headerOf,
  isEventStream,
  sendsBody,
  type UpstreamRequest,
  type UpstreamTransport,
} from "./attempt.ts";
import { UpstreamChunks } from "./upstream-chunks.ts";

/** Idle keep-alive sockets close after this long when the upstream gives no hint, in ms. */
export const idleSocketTimeoutMs = 4_000;

/** A transport and the sockets it keeps. */
export interface HttpTransport {
  readonly send: UpstreamTransport;
  /** Closes every kept-alive socket (in-flight requests are aborted by their own signals). */
  close(): void;
}

interface Origin {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: number | undefined;
}

/** Creates a transport with its own keep-alive agents. */
export function createHttpTransport(): HttpTransport {
  const agentOptions = {
    keepAlive: true,
    timeout: idleSocketTimeoutMs,
    maxFreeSockets: 256,
    scheduling: "lifo" as const,
  };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const origins = new Map<string, Origin>();
  const originOf = (url: string): { origin: Origin; path: string } => {
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const base = pathStart === -1 ? url : url.slice(0, pathStart);
    let origin = origins.get(base);
    if (origin === undefined) {
      const parsed = new URL(base);
      const hostname = parsed.hostname.startsWith("[")
        ? parsed.hostname.slice(1, -1)
        : parsed.hostname;
      origin = {
        secure: parsed.protocol === "https:",
        hostname,
        port: parsed.port === "" ? undefined : Number(parsed.port),
      };
      // Upstreams are a handful of base URLs; the bound only guards against surprises.
      if (origins.size >= 256) origins.clear();
      origins.set(base, origin);
    }
    return { origin, path: pathStart === -1 ? "/" : url.slice(pathStart) };
  };
  return {
    send: (request, options) => {
      if (options.signal.aborted) return Promise.resolve(abortedResult);
      let target: { origin: Origin; path: string };
      try {
        target = originOf(request.url);
      } catch (error) {
        return Promise.resolve({ kind: "network-error", message: describeError(error) });
      }
      return attempt(request, options, target, agents);
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function attempt(
  request: UpstreamRequest,
  options: AttemptOptions,
  target: { origin: Origin; path: string },
  agents: { http: HttpAgent; https: HttpsAgent },
): Promise<AttemptResult> {
  return new Promise<AttemptResult>((resolve) => {
    new HttpAttempt(options, resolve).send(request, target, agents);
  });
}

/**
 * One attempt's state. A class, so that an attempt allocates no named closures (the build keeps
 * function names, which costs a property definition per closure); it is its own `abort`
 * listener (`handleEvent`).
 */
class HttpAttempt {
  readonly #options: AttemptOptions;
  readonly #resolve: (result: AttemptResult) => void;
  #outgoing: ClientRequest | undefined;
  #timer: NodeJS.Timeout | undefined;
  #settled = false;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(options: AttemptOptions, resolve: (result: AttemptResult) => void) {
    this.#options = options;
    this.#resolve = resolve;
  }

  send(
    request: UpstreamRequest,
    target: { origin: Origin; path: string },
    agents: { http: HttpAgent; https: HttpsAgent },
  ): void {
    const { origin } = target;
    const withBody = sendsBody(request);
    let outgoing: ClientRequest;
    try {
      outgoing = (origin.secure ? httpsRequest : httpRequest)({
        agent: origin.secure ? agents.https : agents.http,
        hostname: origin.hostname,
        port: origin.port,
        path: target.path,
        method: request.method,
        headers: withBody
          ? { ...request.headers, "content-length": String(request.body.length) }
          : request.headers,
      });
    } catch (error) {
      // An invalid header name or value, refused before anything is sent.
      this.#settle({ kind: "network-error", message: describeError(error) });
      return;
    }
    this.#outgoing = outgoing;
    this.#options.signal.addEventListener("abort", this, { once: true });
    const { timeoutMs } = this.#options;
    if (timeoutMs !== undefined)
      this.#timer = setTimeout(() => this.#timeOut(timeoutMs), timeoutMs);
    outgoing.on("error", (error) => this.#fail(error));
    outgoing.on("response", (response) => {
      this.#respond(response);
    });
    if (withBody) outgoing.end(request.body);
    else outgoing.end();
  }

  /** The signal aborted: the client went away or the emulator is closing. */
  handleEvent(): void {
    this.#outgoing?.destroy();
    this.#release();
    this.#settle(abortedResult);
  }

  #respond(response: IncomingMessage): void {
    const headers = headerPairs(response.rawHeaders);
    const status = response.statusCode ?? 0;
    if (isEventStream(headerOf(headers, "content-type"))) {
      const outgoing = this.#outgoing!;
      readStream(
        response,
        () => outgoing.destroy(),
        () => this.#release(),
      ).then(
        (body) => {
          this.#settle({ kind: "response", status, headers, body });
        },
        (error: unknown) => this.#fail(error),
      );
      return;
    }
    response.on("data", (chunk: Buffer) => this.#take(chunk));
    response.on("end", () => {
      this.#release();
      const bytes = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
      this.#settle({ kind: "response", status, headers, body: { kind: "buffered", bytes } });
    });
    response.on("error", (error) => this.#fail(error));
    response.on("close", () => {
      if (!response.complete)
        this.#fail(new Error("the upstream closed the connection mid-answer"));
    });
  }

  #take(chunk: Buffer): void {
    if (this.#size === 0) clearTimeout(this.#timer);
    this.#size += chunk.length;
    const limit = this.#options.maxBodyBytes ?? defaultMaxBodyBytes;
    if (this.#size > limit) {
      this.#outgoing?.destroy();
      this.#release();
      this.#settle({ kind: "network-error", message: `upstream body larger than ${limit} bytes` });
      return;
    }
    this.#chunks.push(chunk);
  }

  #timeOut(timeoutMs: number): void {
    this.#outgoing?.destroy();
    this.#release();
    this.#settle({ kind: "timeout", timeoutMs });
  }

  #fail(error: unknown): void {
    this.#release();
    this.#settle({ kind: "network-error", message: describeError(error) });
  }

  #release(): void {
    clearTimeout(this.#timer);
    this.#options.signal.removeEventListener("abort", this);
  }

  #settle(result: AttemptResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#resolve(result);
  }
}

/**
 * Waits for a stream's first chunk (the timer still runs), then hands the stream on. An empty
 * stream is answered as an empty buffered body; a connection that dies first rejects.
 */
async function readStream(
  response: IncomingMessage,
  abort: () => void,
  release: () => void,
): Promise<
  | { kind: "stream"; chunks: AsyncIterable<Uint8Array>; abort: () => void }
  | { kind: "buffered"; bytes: Buffer }
> {
  const iterator = new UpstreamChunks(response);
  const first = await iterator.next();
  if (first.done) {
    release();
    return { kind: "buffered", bytes: Buffer.alloc(0) };
  }
  return {
    kind: "stream",
    chunks: rest(first.value, iterator, release),
    abort: () => {
      abort();
      release();
    },
  };
}

async function* rest(
  first: Buffer,
  iterator: AsyncIterator<Buffer>,
  onEnd: () => void,
): AsyncGenerator<Uint8Array> {
  try {
    yield first;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    onEnd();
    await iterator.return?.();
  }
}

/** `rawHeaders` as pairs with lower-case names. */
function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    pairs.push([raw[index]!.toLowerCase(), raw[index + 1]!]);
  }
  return pairs;
}
