/**
 * @module
 * `KeyPoolMonitorCore`: the shared view of one provider's pool, run inside the provider's
 * `ProviderMonitor` Durable Object. Isolates report what their calls did with each key (at most
 * once a second each, and at once when a key starts cooling down or reaches a cap) and get the
 * merged view back: usage counters, this minute's requests and tokens across isolates (for the
 * `rpm`/`tpm` caps), and each key's latest condition. `GET /keys` shows it per key.
 *
 * The view is kept in memory and saved at most once a second, so a restart forgets at most that
 * second of counts; conditions are re-learnt from the next answers.
 */
import { addWindow, type KeyCondition, laterCondition } from "./key-condition.ts";
import { addStats, type KeyReport, type KeySnapshot, noStats } from "./key-usage.ts";

/** Where the monitor's view is kept between restarts. */
export interface SnapshotStore {
  load(): Promise<readonly KeySnapshot[] | undefined>;
  /** Called with the latest view after a change; may save later. */
  save(view: readonly KeySnapshot[]): void;
}

/** One provider's pool, as every isolate reported it. */
export class KeyPoolMonitorCore {
  readonly #store: SnapshotStore;
  readonly #now: () => number;
  #keys: Map<string, KeySnapshot> | undefined;

  constructor(options: { store: SnapshotStore; now?: () => number }) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
  }

  /** Adds an isolate's reports and answers the merged view. */
  async report(reports: readonly KeyReport[]): Promise<KeySnapshot[]> {
    const keys = await this.#load();
    for (const report of reports) {
      const known = keys.get(report.name);
      const sameVersion = known?.version === report.version;
      const condition: KeyCondition | undefined = laterCondition(
        sameVersion ? known?.condition : undefined,
        report.condition?.version === report.version ? report.condition : undefined,
      );
      keys.set(report.name, {
        name: report.name,
        version: report.version,
        stats: addStats(known?.stats ?? noStats, report.stats),
        since: known?.since ?? this.#now(),
        window: addWindow(known?.window, report.window),
        condition,
      });
    }
    if (reports.length > 0) this.#store.save([...keys.values()]);
    return [...keys.values()];
  }

  /** The merged view. */
  async snapshot(): Promise<KeySnapshot[]> {
    return [...(await this.#load()).values()];
  }

  /** Forgets keys no longer in the pool. */
  async retain(names: readonly string[]): Promise<void> {
    const keys = await this.#load();
    for (const name of [...keys.keys()]) if (!names.includes(name)) keys.delete(name);
    this.#store.save([...keys.values()]);
  }

  async #load(): Promise<Map<string, KeySnapshot>> {
    if (this.#keys === undefined) {
      const saved = (await this.#store.load()) ?? [];
      this.#keys ??= new Map(saved.map((key) => [key.name, key]));
    }
    return this.#keys;
  }
}
