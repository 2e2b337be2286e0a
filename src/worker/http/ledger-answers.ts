/**
 * @module
 * How the admin API answers with what the `KeyLedger` committed: the committed value (a refusal
 * becomes its 4xx), a provider's view with each pool key's health and usage from its
 * `ProviderMonitor`, and how far a change has reached KV and the gateways' BYOK secrets.
 */
import { jsonResponse, WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { describeProvider } from "../ledger/key-versions-view.ts";
import type { LedgerAnswer, Propagation, ProviderState } from "../ledger/ledger-api.ts";
import { withHealth } from "../pool/key-health-view.ts";
import type { KeySnapshot } from "../pool/key-usage.ts";

/** The value of a committed answer; a refusal becomes its 4xx. */
export function committed<Value>(
  answer: LedgerAnswer<Value>,
): Extract<LedgerAnswer<Value>, { ok: true }> {
  if (!answer.ok) throw new WorkerError(answer.refusal);
  return answer;
}

export async function providerAnswer(
  answer: Extract<LedgerAnswer<ProviderState>, { ok: true }>,
  context: HandlerContext,
): Promise<Response> {
  const view = describeProvider(answer.value, context.reportSettings());
  return jsonResponse({
    ...(await viewWithHealth(view, context)),
    propagation: propagationView(answer.propagation),
  });
}

export async function viewWithHealth(
  view: ReturnType<typeof describeProvider>,
  context: HandlerContext,
) {
  let snapshots: readonly KeySnapshot[] = [];
  if (view.pool.length > 0) {
    const monitor = context.monitor(view.provider);
    // What this isolate has not reported yet goes first, so its own calls are counted.
    const reports = context.pools.takeReports(view.provider, context.now(), true);
    try {
      snapshots = reports === null ? await monitor.keys() : await monitor.report(reports);
    } catch {
      if (reports !== null) context.pools.restore(view.provider, reports);
      // Health is extra: the ledger's state is still answered.
      context.logger.warn(`stepwise worker: the ${view.provider} monitor did not answer`);
    }
  }
  return withHealth(
    view,
    snapshots,
    context.settings.config.keys.caps[view.provider],
    context.now(),
  );
}

/** How far a change has reached KV and the other targets, as the admin API shows it. */
export function propagationView(propagation: Propagation) {
  const byok = propagation.targets
    .filter((write) => write.target === "byok")
    .map((write) => {
      const [gateway, , alias] = write.entry.split("_");
      return { gateway, secret: write.entry, alias, state: write.state };
    });
  return {
    kv: propagation.written ? "written" : "pending",
    visibleEverywhereBy:
      propagation.visibleEverywhereBy === null
        ? null
        : new Date(propagation.visibleEverywhereBy).toISOString(),
    byok,
  };
}
