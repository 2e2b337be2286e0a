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

export interface LogBodyLimits {
  /** Most bytes kept of one body. Default 256 KiB. */
  readonly maxBodyBytes?: number;
  /** Most bytes kept across all bodies of a gateway. Default 32 MiB. */
  readonly maxTotalBytes?: number;
}

export class LogBodyStore {
  readonly #bodies = new Map<string, LogBodies>();
  readonly #maxBodyBytes: number;
  readonly #maxTotalBytes: number;
  #totalBytes = 0;

  constructor(limits: LogBodyLimits = {}) {
    this.#maxBodyBytes = limits.maxBodyBytes ?? 256 * 1024;
    this.#maxTotalBytes = limits.maxTotalBytes ?? 32 * 1024 * 1024;
  }

  /** A body cut to the per-body limit. */
  keep(bytes: Buffer | undefined, contentType: string | undefined): StoredBody | undefined {
    if (bytes === undefined) return undefined;
    const complete = bytes.length <= this.#maxBodyBytes;
    return {
      bytes: complete ? Buffer.from(bytes) : Buffer.from(bytes.subarray(0, this.#maxBodyBytes)),
      contentType,
      complete,
    };
  }

  set(logId: string, bodies: LogBodies): void {
    this.delete(logId);
    this.#bodies.set(logId, bodies);
    this.#totalBytes += sizeOf(bodies);
    for (const oldest of this.#bodies.keys()) {
      if (this.#totalBytes <= this.#maxTotalBytes) break;
      this.delete(oldest);
    }
  }

  get(logId: string): LogBodies | undefined {
    return this.#bodies.get(logId);
  }

  delete(logId: string): void {
    const existing = this.#bodies.get(logId);
    if (existing === undefined) return;
    this.#totalBytes -= sizeOf(existing);
    this.#bodies.delete(logId);
  }
}

function sizeOf(bodies: LogBodies): number {
  return (bodies.request?.bytes.length ?? 0) + (bodies.response?.bytes.length ?? 0);
}
