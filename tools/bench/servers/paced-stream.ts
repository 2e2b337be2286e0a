/**
 * @module
 * A streaming upstream for the first-token benchmarks: a loopback HTTP server that answers every
 * POST (any provider path) with an OpenAI chat-completion stream of `chunks` text chunks, the
 * first written with the headers and each next one `gapMs` later, and remembers when it wrote
 * each chunk (`performance.now()`, the clock of this process). A request names itself with
 * `ttft-<n>` in its prompt and each chunk's text is `tok<i>:`, so the app can match what it
 * reads to what was written, through any layer, and measure how long a chunk took to reach it.
 *
 * For outages it can hang (accept and never answer), answer 503, or send its headers at once and
 * its first chunk only after `firstTokenAfterMs`.
 */
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How the upstream answers. */
export type PacedMode =
  | { readonly kind: "healthy" }
  | { readonly kind: "hang" }
  | { readonly kind: "unavailable" }
  | { readonly kind: "slow-first-token"; readonly firstTokenAfterMs: number };

export interface PacedStreamOptions {
  /** Text chunks per answer (default 8). */
  readonly chunks?: number;
  /** Wait between chunks, in ms (default 5). */
  readonly gapMs?: number;
  /** The model named in the chunks (default `gpt-4o-mini`). */
  readonly model?: string;
}

/** A running paced upstream. */
export interface PacedStreamServer {
  readonly url: string;
  readonly chunks: number;
  setMode(mode: PacedMode): void;
  /** When each chunk of request `ttft-<id>` was written, by chunk index; undefined if unseen. */
  writes(id: number): readonly number[] | undefined;
  /** Forgets every request's write times. */
  clear(): void;
  /** Requests received so far. */
  requests(): number;
  close(): Promise<void>;
}

/** The text of chunk `index`: what an app looks for in what it reads. */
export function chunkText(index: number): string {
  return `tok${index}:`;
}

/** Finds chunk indices in streamed text; `tok12:` → 12. */
export const chunkPattern = /tok(\d+):/g;

/** The prompt that names request `id`. */
export function promptFor(id: number): string {
  return `ttft-${id}: what is the capital of Italy?`;
}

function event(model: string, content: string | null, finish: string | null): string {
  const delta = content === null ? {} : { content };
  return `data: ${JSON.stringify({
    id: "chatcmpl-paced",
    object: "chat.completion.chunk",
    created: 1_777_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;
}

/** Starts the server on 127.0.0.1 at a free port. */
export async function startPacedStream(
  options: PacedStreamOptions = {},
): Promise<PacedStreamServer> {
  const chunks = options.chunks ?? 8;
  const gapMs = options.gapMs ?? 5;
  const model = options.model ?? "gpt-4o-mini";
  const written = new Map<number, number[]>();
  const timers = new Set<NodeJS.Timeout>();
  let mode: PacedMode = { kind: "healthy" };
  let received = 0;

  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };

  const stream = (response: ServerResponse, id: number, firstAfterMs: number) => {
    const stamps: number[] = [];
    if (id >= 0) written.set(id, stamps);
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
    });
    response.flushHeaders();
    const send = (index: number) => {
      if (response.destroyed) return;
      if (index === chunks) {
        response.end(`${event(model, null, "stop")}data: [DONE]\n\n`);
        return;
      }
      const role = index === 0 ? '"role":"assistant",' : "";
      response.write(event(model, chunkText(index), null).replace('"delta":{', `"delta":{${role}`));
      stamps[index] = performance.now();
      later(gapMs, () => send(index + 1));
    };
    if (firstAfterMs > 0) later(firstAfterMs, () => send(0));
    else send(0);
  };

  const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      received++;
      const match = /ttft-(\d+)/.exec(Buffer.concat(parts).toString("utf8"));
      const id = match ? Number(match[1]) : -1;
      const current = mode;
      if (current.kind === "hang") return;
      if (current.kind === "unavailable") {
        const body = JSON.stringify({
          error: { message: "The server is overloaded", type: "server_error" },
        });
        response.writeHead(503, { "content-type": "application/json" });
        response.end(body);
        return;
      }
      stream(response, id, current.kind === "slow-first-token" ? current.firstTokenAfterMs : 0);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    chunks,
    setMode(next) {
      mode = next;
    },
    writes: (id) => written.get(id),
    clear: () => written.clear(),
    requests: () => received,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
