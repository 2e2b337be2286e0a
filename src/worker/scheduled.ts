/**
 * @module
 * The cron job: the ledger sweeps history past `keys.historyHours`, keys near or past their
 * maximum age (or expired, or missing) are flagged in the log and in `report:keys`, and, when
 * `worker.healthProbe.enabled`, each provider is probed through the gateway.
 */
import type { HandlerContext } from "./handler-context.ts";
import { type ProviderHealth, probeProviders } from "./health.ts";
import { keyLayout } from "./key-layout.ts";
import { describeAllProviders, type KeyFlag } from "./key-report.ts";
import type { SweepResult } from "./ledger/ledger-api.ts";

/** One provider in the cron's key report. */
export interface KeyReportEntry {
  readonly provider: string;
  readonly version: string | null;
  readonly ageDays: number | null;
  readonly flags: readonly KeyFlag[];
}

/** What one cron run did. */
export interface ScheduledResult {
  readonly checkedAt: string;
  readonly swept: readonly SweepResult[];
  readonly keys: readonly KeyReportEntry[];
  readonly health: readonly ProviderHealth[];
}

/** Runs the cron job once. */
export async function runScheduled(context: HandlerContext): Promise<ScheduledResult> {
  const swept = await context.ledger.sweep(context.reportSettings().historySeconds);
  const after = describeAllProviders(await context.ledger.providers(), context.reportSettings());
  const keys: KeyReportEntry[] = after
    .filter((view) => view.managed || view.current !== null)
    .map((view) => ({
      provider: view.provider,
      version: view.current?.version ?? null,
      ageDays: view.current?.ageDays ?? null,
      flags: view.flags,
    }));
  const maxAgeDays = context.settings.config.keys.maxAgeDays;
  for (const entry of keys) {
    if (entry.flags.length === 0) continue;
    const age =
      entry.ageDays === null
        ? ""
        : ` (version ${entry.version}, ${entry.ageDays} days old, max ${maxAgeDays})`;
    context.logger.warn(
      `stepwise worker: ${entry.provider} key needs attention: ${entry.flags.join(", ")}${age}; rotate it with \`stepwise rotate ${entry.provider} --key-file <file>\``,
    );
  }
  const health = context.settings.config.worker.healthProbe.enabled
    ? await probeProviders(context)
    : [];
  const result: ScheduledResult = {
    checkedAt: new Date(context.now()).toISOString(),
    swept,
    keys,
    health,
  };
  await context.kv.put(keyLayout.keyReport, JSON.stringify({ checkedAt: result.checkedAt, keys }));
  return result;
}
