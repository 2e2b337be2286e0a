/**
 * @module
 * Reads the companion Worker's `GET /health` document (docs/worker.md, "GET /health"), keeping
 * only what steering needs. The client has no zod at run time, so this is plain code; an entry
 * it cannot read is left out (its step keeps its place), never guessed.
 */

/** A provider/model's published state. */
export type HealthState = "healthy" | "degraded" | "down";

/** One provider/model as steering uses it; times are epoch ms. */
export interface ModelHealth {
  readonly provider: string;
  readonly model: string;
  readonly state: HealthState;
  /** Set while a recovered model is on probation. */
  readonly probation: {
    readonly startedAt: number;
    readonly endsAt: number;
    readonly initialShare: number;
  } | null;
}

/** The document, as steering uses it. */
export interface HealthReading {
  /** False when the document says nothing about health (probes off, or none published yet). */
  readonly informative: boolean;
  /** By `provider/model`. */
  readonly models: ReadonlyMap<string, ModelHealth>;
}

const states = new Set<string>(["healthy", "degraded", "down"]);

function probationOf(value: unknown): ModelHealth["probation"] | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object") return undefined;
  const { startedAt, endsAt, initialShare } = value as Record<string, unknown>;
  const start = typeof startedAt === "string" ? Date.parse(startedAt) : Number.NaN;
  const end = typeof endsAt === "string" ? Date.parse(endsAt) : Number.NaN;
  if (Number.isNaN(start) || Number.isNaN(end) || typeof initialShare !== "number") {
    return undefined;
  }
  return { startedAt: start, endsAt: end, initialShare: Math.min(1, Math.max(0, initialShare)) };
}

/**
 * The reading of a `GET /health` body.
 * @throws TypeError when the body is not the document's shape at all.
 */
export function readHealthDocument(body: unknown): HealthReading {
  if (
    typeof body !== "object" ||
    body === null ||
    !Array.isArray((body as { models?: unknown }).models)
  ) {
    throw new TypeError(
      "GET /health did not answer a health document ({ probesEnabled, generatedAt, models: [...] }); check the health url points at the companion Worker",
    );
  }
  const { probesEnabled, generatedAt, models } = body as Record<string, unknown>;
  const byStep = new Map<string, ModelHealth>();
  for (const entry of models as unknown[]) {
    if (typeof entry !== "object" || entry === null) continue;
    const { provider, model, state, probation } = entry as Record<string, unknown>;
    const reading = probationOf(probation);
    if (typeof provider !== "string" || typeof model !== "string") continue;
    if (typeof state !== "string" || !states.has(state) || reading === undefined) continue;
    byStep.set(`${provider}/${model}`, {
      provider,
      model,
      state: state as HealthState,
      probation: reading,
    });
  }
  return { informative: probesEnabled === true && typeof generatedAt === "string", models: byStep };
}
