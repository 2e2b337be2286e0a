/**
 * @module
 * The cron job: the ledger sweeps history past `keys.historyHours`, keys near or past their
 * maximum age (or expired, or missing) are flagged in the log and in `report:keys`, and, when
 * `worker.healthProbe.enabled`, each provider/model of the routes is probed through the gateway
 * and the health it publishes (`GET /health`) is written to `report:health`.
 */
import type { HandlerContext } from "./handler-context.ts";
import type { HealthDocument } from "./health/health-document.ts";
import { probeProviders } from "./health/probe.ts";
import { defaultKeyName, keyLayout } from "./key-layout.ts";
import { describeAllProviders, type KeyFlag } from "./ledger/key-versions-view.ts";
import type { SweepResult } from "./ledger/ledger-api.ts";

/** One key of a provider's pool in the cron's key report. */
export interface KeyReportEntry {
  readonly provider: string;
  /** The pool key (`default` unless named). */
  readonly name: string;
  readonly version: string | null;
  readonly ageDays: number | null;
  readonly flags: readonly KeyFlag[];
}

/** What one cron run did. */
export interface ScheduledResult {
  readonly checkedAt: string;
  readonly swept: readonly SweepResult[];
  readonly keys: readonly KeyReportEntry[];
  /** What the probes published; null when probes are off. */
  readonly health: HealthDocument | null;
}

/** Runs the cron job once. */
export async function runScheduled(context: HandlerContext): Promise<ScheduledResult> {
  const swept = await context.ledger.sweep(context.reportSettings().historySeconds);
  const after = describeAllProviders(await context.ledger.providers(), context.reportSettings());
  const keys: KeyReportEntry[] = after
    .filter((view) => view.managed || view.current !== null)
    .flatMap((view) =>
      (view.pool.length === 0 ? [{ ...view, name: defaultKeyName }] : view.pool).map((key) => ({
        provider: view.provider,
        name: key.name,
        version: key.current?.version ?? null,
        ageDays: key.current?.ageDays ?? null,
        flags: key.flags,
      })),
    );
  const maxAgeDays = context.settings.config.keys.maxAgeDays;
  for (const entry of keys) {
    if (entry.flags.length === 0) continue;
    const age =
      entry.ageDays === null
        ? ""
        : ` (version ${entry.version}, ${entry.ageDays} days old, max ${maxAgeDays})`;
    const named = entry.name === defaultKeyName ? "" : ` --pool-key ${entry.name}`;
    const which = entry.name === defaultKeyName ? "key" : `key "${entry.name}"`;
    context.logger.warn(
      `stepwise worker: ${entry.provider} ${which} needs attention: ${entry.flags.join(", ")}${age}; rotate it with \`stepwise rotate ${entry.provider}${named} --key-file <file>\``,
    );
  }
  const health = context.settings.config.worker.healthProbe.enabled
    ? await probeProviders(context)
    : null;
  const result: ScheduledResult = {
    checkedAt: new Date(context.now()).toISOString(),
    swept,
    keys,
    health,
  };
  await context.kv.put(keyLayout.keyReport, JSON.stringify({ checkedAt: result.checkedAt, keys }));
  return result;
}
