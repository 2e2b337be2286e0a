/**
 * @module
 * The extra cost a route's hedges caused over the last hour, against its `maxExtraCostPerHour`.
 * One ledger per client and route; memory is bounded by the hedges of an hour.
 */

const hourMs = 3_600_000;

/** USD spent by dropped hedge answers in a rolling hour. */
export class CostLedger {
  private readonly entries: { at: number; cost: number }[] = [];

  constructor(private readonly maxPerHour: number) {}

  /** USD spent in the hour before `now`. */
  spent(now: number): number {
    while (this.entries.length > 0 && this.entries[0]!.at <= now - hourMs) this.entries.shift();
    let total = 0;
    for (const entry of this.entries) total += entry.cost;
    return total;
  }

  /** True when `cost` more stays within the cap. */
  allows(cost: number, now: number): boolean {
    return this.spent(now) + cost <= this.maxPerHour;
  }

  add(cost: number, now: number): void {
    if (cost > 0) this.entries.push({ at: now, cost });
  }
}

/** One ledger per client (its options object) and route. */
const ledgers = new WeakMap<object, Map<string, CostLedger>>();

/** The ledger of `route` for the client whose options are `client`. */
export function ledgerOf(client: object, route: string, maxPerHour: number): CostLedger {
  const routes = ledgers.get(client) ?? new Map<string, CostLedger>();
  ledgers.set(client, routes);
  const ledger = routes.get(route) ?? new CostLedger(maxPerHour);
  routes.set(route, ledger);
  return ledger;
}
