/**
 * @module
 * Times streamed answers chunk by chunk, for the first-token benchmarks: when the app saw each
 * chunk of a paced upstream's answer (`servers/paced-stream.ts`), read either raw from a `fetch`
 * body (any layer that passes the stream on as server-sent events) or as the client's deltas.
 * A probe keeps, per path, the time to the first chunk, the gaps between chunks as the app saw
 * them, and how long each chunk took from the upstream's write to the app.
 */
import type { GatewayClient } from "../../src/client/index.ts";
import type { Call } from "./load.ts";
import { chunkPattern, type PacedStreamServer, promptFor } from "./servers/paced-stream.ts";

/** What one path's measured streams showed, in ms. */
export interface StreamSamples {
  /** From sending the request to the first chunk, one per stream. */
  readonly firstToken: number[];
  /** Between consecutive chunks as the app read them. */
  readonly gaps: number[];
  /** From the upstream writing a chunk to the app reading it, every chunk. */
  readonly delivery: number[];
}

/** Collects samples while `measuring` is on (warm-ups are left out). */
export interface StreamProbe {
  measuring: boolean;
  readonly samples: StreamSamples;
  /** Records one stream; throws when a chunk is missing. */
  record(id: number, started: number, arrivals: readonly number[]): void;
}

let nextId = 1;

/** A fresh request id (the upstream reads it from the prompt). */
export function nextStreamId(): number {
  return nextId++;
}

export function createProbe(upstream: PacedStreamServer): StreamProbe {
  const samples: StreamSamples = { firstToken: [], gaps: [], delivery: [] };
  return {
    measuring: false,
    samples,
    record(id, started, arrivals) {
      const writes = upstream.writes(id);
      for (let index = 0; index < upstream.chunks; index++) {
        if (arrivals[index] === undefined || writes?.[index] === undefined) {
          throw new Error(`stream ${id}: chunk ${index} never reached the app`);
        }
      }
      if (!this.measuring) return;
      samples.firstToken.push(arrivals[0]! - started);
      for (let index = 0; index < upstream.chunks; index++) {
        if (index > 0) samples.gaps.push(arrivals[index]! - arrivals[index - 1]!);
        samples.delivery.push(arrivals[index]! - writes![index]!);
      }
    },
  };
}

/** Marks the chunks found in `text` from `from` on as seen at `at`; returns where to scan next. */
function scan(text: string, from: number, at: number, arrivals: number[]): number {
  chunkPattern.lastIndex = from;
  let next = from;
  for (let match = chunkPattern.exec(text); match !== null; match = chunkPattern.exec(text)) {
    arrivals[Number(match[1])] ??= at;
    next = chunkPattern.lastIndex;
  }
  return next;
}

/** The request of a raw path for stream `id`. */
export type RawRequest = (id: number) => {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
};

/** A call that POSTs the request with `fetch` and reads the event stream as it comes. */
export function rawStreamCall(probe: StreamProbe, build: RawRequest): Call {
  return async () => {
    const id = nextStreamId();
    const { url, headers, body } = build(id);
    const started = performance.now();
    const response = await fetch(url, { method: "POST", headers, body });
    if (response.status !== 200 || response.body === null) {
      throw new Error(`${url}: ${response.status} ${(await response.text()).slice(0, 200)}`);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const arrivals: number[] = [];
    let text = "";
    let scanned = 0;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const at = performance.now();
      text += decoder.decode(next.value, { stream: true });
      scanned = scan(text, scanned, at, arrivals);
    }
    probe.record(id, started, arrivals);
  };
}

/** A call through `client.stream` on `route`, timing each text delta. */
export function clientStreamCall(probe: StreamProbe, client: GatewayClient, route: string): Call {
  return async () => {
    const id = nextStreamId();
    const arrivals: number[] = [];
    const started = performance.now();
    const stream = client.stream({ route, messages: [{ role: "user", content: promptFor(id) }] });
    for await (const delta of stream) {
      if (delta.type === "text") scan(delta.text, 0, performance.now(), arrivals);
    }
    await stream.result;
    probe.record(id, started, arrivals);
  };
}
