/**
 * @module
 * Looks for secrets (provider keys, app and admin tokens) in everything the system writes: call
 * events, error messages, Worker logs, gateway log records, the campaign's own output. A hit is
 * recorded by the secret's label and the source, never by its value, so the report of a leak does
 * not leak it again.
 */

/** One secret to look for; `label` is what a report may print (e.g. `anthropic key v2`). */
export interface Secret {
  readonly label: string;
  readonly value: string;
}

/** A secret found in a source. */
export interface LeakHit {
  readonly source: string;
  readonly label: string;
}

/** What one source was scanned for. */
export interface SourceCoverage {
  /** Texts scanned (events, lines, records, writes). */
  items: number;
  bytes: number;
}

/** Secrets shorter than this are not searched for: they would match by chance. */
export const minimumSecretLength = 8;

/** Scans texts for secrets; secrets can be added as the run creates them (rotations). */
export class LeakScanner {
  readonly #secrets = new Map<string, string>();
  readonly #hits: LeakHit[] = [];
  readonly #coverage = new Map<string, SourceCoverage>();

  constructor(secrets: readonly Secret[] = []) {
    for (const secret of secrets) this.addSecret(secret);
  }

  /** Adds a secret to look for from now on. */
  addSecret(secret: Secret): void {
    if (secret.value.length >= minimumSecretLength) this.#secrets.set(secret.value, secret.label);
  }

  /** Scans one text; returns true when it holds a secret. */
  scan(source: string, text: string): boolean {
    const coverage = this.#coverage.get(source) ?? { items: 0, bytes: 0 };
    coverage.items += 1;
    coverage.bytes += text.length;
    this.#coverage.set(source, coverage);
    let found = false;
    for (const [value, label] of this.#secrets) {
      if (text.includes(value)) {
        this.#hits.push({ source, label });
        found = true;
      }
    }
    return found;
  }

  /** Every hit so far. */
  get hits(): readonly LeakHit[] {
    return this.#hits;
  }

  /** How many secrets are searched for. */
  get secretCount(): number {
    return this.#secrets.size;
  }

  /** What was scanned, per source. */
  coverage(): ReadonlyMap<string, SourceCoverage> {
    return this.#coverage;
  }
}
