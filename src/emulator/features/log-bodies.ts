/**
 * @module
 * The request and response bodies of logged steps (what `logs.request` and `logs.response` return),
 * bounded in memory: each body is kept up to `maxBodyBytes` (the rest is cut, and the log says so
 * with `*_head_complete: false`), and past `maxTotalBytes` the oldest bodies are dropped first.
 * Cloudflare keeps up to 10 MB a log; the emulator keeps less, by design (listed in
 * docs/emulator.md).
 */

export interface StoredBody {
  readonly bytes: Buffer;
  readonly contentType: string | undefined;
  /** False when the body was longer than what was kept. */
  readonly complete: boolean;
}

export interface LogBodies {
  readonly request?: StoredBody;
  readonly response?: StoredBody;
}

/**
 * A body as kept: its bytes as a one-byte (latin1) string, which holds any bytes exactly, lives
 * in the JavaScript heap at one byte per byte, and pins no shared buffer slab the way a small
 * `Buffer` copy would.
 */
export interface KeptBody {
  readonly text: string;
  readonly contentType: string | undefined;
  readonly complete: boolean;
}

interface KeptBodies {
  readonly request?: KeptBody;
  readonly response?: KeptBody;
}

export interface LogBodyLimits {
  /** Most bytes kept of one body. Default 256 KiB. */
  readonly maxBodyBytes?: number;
  /** Most bytes kept across all bodies of a gateway. Default 32 MiB. */
  readonly maxTotalBytes?: number;
}

export class LogBodyStore {
  readonly #bodies = new Map<string, KeptBodies>();
  readonly #maxBodyBytes: number;
  readonly #maxTotalBytes: number;
  #totalBytes = 0;

  constructor(limits: LogBodyLimits = {}) {
    this.#maxBodyBytes = limits.maxBodyBytes ?? 256 * 1024;
    this.#maxTotalBytes = limits.maxTotalBytes ?? 32 * 1024 * 1024;
  }

  /** A body cut to the per-body limit. */
  keep(bytes: Buffer | undefined, contentType: string | undefined): KeptBody | undefined {
    if (bytes === undefined) return undefined;
    const complete = bytes.length <= this.#maxBodyBytes;
    return {
      text: bytes.toString("latin1", 0, complete ? bytes.length : this.#maxBodyBytes),
      contentType,
      complete,
    };
  }

  set(logId: string, bodies: KeptBodies): void {
    this.delete(logId);
    this.#bodies.set(logId, bodies);
    this.#totalBytes += sizeOf(bodies);
    // Only when over budget: a Map iterator starts at the Map's first slot and steps over every
    // deleted entry before it, and the log ring deletes the oldest bodies one by one, so under
    // budget a fresh `keys()` per insert walked thousands of holes (8 us of the emulator's CPU
    // per logged request; see BENCHMARKS.md).
    if (this.#totalBytes <= this.#maxTotalBytes) return;
    for (const oldest of this.#bodies.keys()) {
      if (this.#totalBytes <= this.#maxTotalBytes) break;
      this.delete(oldest);
    }
  }

  get(logId: string): LogBodies | undefined {
    const kept = this.#bodies.get(logId);
    if (kept === undefined) return undefined;
    const bodies: { request?: StoredBody; response?: StoredBody } = {};
    if (kept.request) bodies.request = stored(kept.request);
    if (kept.response) bodies.response = stored(kept.response);
    return bodies;
  }

  delete(logId: string): void {
    const existing = this.#bodies.get(logId);
    if (existing === undefined) return;
    this.#totalBytes -= sizeOf(existing);
    this.#bodies.delete(logId);
  }
}

function stored(body: KeptBody): StoredBody {
  return {
    bytes: Buffer.from(body.text, "latin1"),
    contentType: body.contentType,
    complete: body.complete,
  };
}

function sizeOf(bodies: KeptBodies): number {
  return (bodies.request?.text.length ?? 0) + (bodies.response?.text.length ?? 0);
}
