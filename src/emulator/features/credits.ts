/**
 * @module
 * The account's Unified Billing credits: a balance in USD that calls paid with Cloudflare's
 * credentials draw on. Cloudflare checks the balance before forwarding (402, code 2021, when it
 * is spent) and deducts each call's cost after it completes, so the call that crosses zero is
 * still served (the emulator's reading, as for spend limits).
 */
export class CreditBalance {
  #remaining: number;

  /** `initial` in USD; `Infinity` for a balance that never runs out. */
  constructor(initial: number) {
    this.#remaining = initial;
  }

  /** USD left (never below 0). */
  get remaining(): number {
    return this.#remaining;
  }

  hasCredit(): boolean {
    return this.#remaining > 0;
  }

  /** Deducts a completed call's cost. */
  spend(cost: number): void {
    if (cost > 0) this.#remaining = Math.max(0, this.#remaining - cost);
  }
}
