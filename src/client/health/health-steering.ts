/**
 * @module
 * `stepwise-gateway/client/health`: health in the order, for
 * `createGatewayClient({ health: createHealthSteering({ url, token }) })`. A separate entry: a
 * client without it does not carry it.
 *
 * It reads the companion Worker's `GET /health` (docs/worker.md) and keeps it for the answer's
 * `max-age` (60 s), then reads it again with `If-None-Match`. Before each universal attempt, steps
 * whose provider/model is `degraded` move behind the healthy ones, and `down` ones behind those
 * (the route's order kept within each group); a model the document does not list keeps its place.
 * A model on probation after a recovery serves a share of the calls that grows linearly from its
 * `initialShare` at `startedAt` to 1 at `endsAt`; on the other calls it goes behind the next
 * healthy step. The call's event lists each demotion in `demotedSteps`.
 *
 * Reading is never on a call's path: a call uses the document it has and starts a refresh in the
 * background when that is stale; `await health.refresh()` reads it before the first call. A
 * failed read keeps the last document (and is told to `onError`); until a first document, and
 * while the Worker's probes are off, steps keep the route's order. Time comes from `now` and the
 * probation draw from `random`, so tests drive both.
 */

import type { FetchFunction, RouteStep, SteeringNotes, StepGuard } from "../types.ts";
import { type HealthReading, type ModelHealth, readHealthDocument } from "./health-document.ts";

export type { HealthReading, HealthState, ModelHealth } from "./health-document.ts";
export { readHealthDocument } from "./health-document.ts";

/** Settings of {@link createHealthSteering}. */
export interface HealthSteeringOptions {
  /** The companion Worker's URL; the document is read from `${url}/health`. */
  readonly url: string;
  /** An app token (or the admin token), sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /**
   * How long a document is used before it is read again, in ms. Default: the answer's
   * `Cache-Control` `max-age` (60 s from the Worker), else 60 000.
   */
  readonly maxAgeMs?: number;
  /** Default: `globalThis.fetch`, looked up at call time. */
  readonly fetch?: FetchFunction;
  /** Clock in epoch ms. Default: `Date.now`. */
  readonly now?: () => number;
  /** A number in [0, 1) for the probation draw. Default: `Math.random`. */
  readonly random?: () => number;
  /** Told when a read fails (the last document stays in use). */
  readonly onError?: (error: unknown) => void;
}

/** The client's health steering: a {@link StepGuard} plus its document. */
export interface HealthSteering extends StepGuard {
  /** Reads `GET /health` now (one read at a time); resolves when it is done, also on failure. */
  refresh(): Promise<void>;
  /** The document in use, or undefined before the first read. */
  reading(): HealthReading | undefined;
}

const defaultMaxAgeMs = 60_000;
const rank = { healthy: 0, degraded: 1, down: 2 } as const;

/** The share of calls a model on probation serves at `now` (1 when it is not on probation). */
export function probationShare(model: ModelHealth | undefined, now: number): number {
  const probation = model?.probation;
  if (!probation || now >= probation.endsAt) return 1;
  const span = probation.endsAt - probation.startedAt;
  if (span <= 0) return 1;
  const grown = ((now - probation.startedAt) / span) * (1 - probation.initialShare);
  return Math.min(1, Math.max(probation.initialShare, probation.initialShare + grown));
}

/**
 * Creates health steering from the companion Worker's `GET /health`: see the module description.
 * @example
 * import { createHealthSteering } from "stepwise-gateway/client/health";
 * const health = createHealthSteering({ url: "https://stepwise-keys.example.workers.dev", token: appToken });
 * await health.refresh(); // optional: read it before the first call
 * const client = createGatewayClient({ accountId, gatewayId, routes, health });
 */
export function createHealthSteering(options: HealthSteeringOptions): HealthSteering {
  if (!/^https?:\/\/[^/]/.test(options.url ?? "")) {
    throw new TypeError(
      `createHealthSteering: url must be the companion Worker's http(s) URL, got "${options.url}"`,
    );
  }
  const url = `${options.url.replace(/\/+$/, "")}/health`;
  const now = () => (options.now ?? Date.now)();
  let current: HealthReading | undefined;
  let etag: string | undefined;
  let freshUntil = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;

  async function read(): Promise<void> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (etag !== undefined && current !== undefined) headers["if-none-match"] = etag;
    let maxAgeMs = options.maxAgeMs ?? defaultMaxAgeMs;
    try {
      const response = await (options.fetch ?? fetch)(url, { headers });
      const maxAge = /max-age=(\d+)/.exec(response.headers.get("cache-control") ?? "")?.[1];
      if (options.maxAgeMs === undefined && maxAge !== undefined) maxAgeMs = Number(maxAge) * 1000;
      if (response.status === 304 && current !== undefined) return;
      if (!response.ok) {
        response.body?.cancel().catch(() => undefined);
        throw new Error(`GET ${url} answered HTTP ${response.status}; check the health token`);
      }
      current = readHealthDocument(await response.json());
      etag = response.headers.get("etag") ?? undefined;
    } catch (error) {
      options.onError?.(error);
    } finally {
      freshUntil = now() + maxAgeMs;
      reading = undefined;
    }
  }

  const refresh = () => (reading ??= read());

  return {
    refresh,
    reading: () => current,
    order<Step extends RouteStep & { readonly index: number }>(
      steps: readonly Step[],
      notes: SteeringNotes,
    ): readonly Step[] {
      const at = now();
      if (at >= freshUntil && reading === undefined) refresh().catch(() => undefined);
      // A dynamic route's chain is the gateway's to run: the client cannot reorder it.
      if (current === undefined || !current.informative || notes.mode === "dynamic") return steps;
      const models = current.models;
      const healthOf = (step: Step) => models.get(`${step.provider}/${step.model}`);
      const demote = (step: Step, reason: string) => {
        const { index, provider, model } = step;
        notes.steered ??= [];
        notes.steered.push({ step: index, provider, model, action: "demoted", reason });
      };
      const groups: Step[][] = [[], [], []];
      for (const step of steps) {
        const state = healthOf(step)?.state ?? "healthy";
        if (state !== "healthy") demote(step, state);
        groups[rank[state]]!.push(step);
      }
      // Probation: on the calls outside its share, a recovered step goes behind the next healthy one.
      const healthy = groups[0]!;
      for (let position = 0; position < healthy.length - 1; position++) {
        const step = healthy[position]!;
        const share = probationShare(healthOf(step), at);
        if (share < 1 && (options.random ?? Math.random)() >= share) {
          healthy[position] = healthy[position + 1]!;
          healthy[position + 1] = step;
          demote(step, "probation");
          position++;
        }
      }
      const ordered = groups.flat();
      return ordered.every((step, position) => step === steps[position]) ? steps : ordered;
    },
  };
}
