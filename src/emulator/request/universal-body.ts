/**
 * @module
 * The universal endpoint's body: an array of 1 to 100 steps `{provider, endpoint, headers,
 * query, config?}`, or one step alone. The zod schema is the definition; a structural check that
 * accepts exactly what the schema accepts (and builds the same value) runs first, because valid
 * bodies are the common case and zod costs several times more per request. Zod runs only to
 * explain a body the check refuses (test/emulator/request/universal-body.test.ts holds them
 * together).
 */
import * as z from "zod";
import { GatewayRequestError } from "../errors.ts";
import { maxRetryDelayMs } from "./directives.ts";

const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const badHeaderValue = /[\r\n\0]/;

const stepSchema = z.object({
  provider: z.string().min(1, { error: "provider is required, e.g. openai" }),
  endpoint: z.string().min(1, { error: "endpoint is required, e.g. chat/completions" }).max(4096),
  headers: z
    .record(
      z.string().regex(headerName, { error: "header names must be HTTP tokens" }),
      z.string().refine((value) => !badHeaderValue.test(value), {
        error: "header values must not contain line breaks",
      }),
    )
    .default({}),
  query: z.unknown().refine((value) => value !== undefined, {
    error: "query (the JSON body sent to the provider) is required",
  }),
  config: z
    .object({
      requestTimeout: z.int().min(1).max(3_600_000).optional(),
      maxAttempts: z.int().min(1).max(5).optional(),
      retryDelay: z
        .int()
        .min(0)
        .max(maxRetryDelayMs, { error: `retryDelay is at most ${maxRetryDelayMs} ms (5 s)` })
        .optional(),
      backoff: z.enum(["constant", "linear", "exponential"]).optional(),
    })
    .optional(),
});

const stepsSchema = z.array(stepSchema).min(1, { error: "send at least one step" }).max(100);

/** The schema of a universal body; its output is always an array of steps. */
export const universalBodySchema = z.union([stepsSchema, stepSchema.transform((step) => [step])]);

/** One step of a universal body, as the schema outputs it. */
export type UniversalStepInput = z.infer<typeof stepSchema>;

/**
 * The steps of a parsed JSON body.
 * @throws GatewayRequestError 400 naming the bad field (zod's explanation).
 */
export function readUniversalBody(value: unknown): UniversalStepInput[] {
  const steps = checkUniversalBody(value);
  if (steps !== undefined) return steps;
  const parsed = universalBodySchema.safeParse(value);
  if (parsed.success) return parsed.data; // Not reached while the check and schema agree.
  // The union's own error says only "Invalid input"; the branch the body meant names the field.
  const explained = (Array.isArray(value) ? stepsSchema : stepSchema).safeParse(value);
  const error = explained.success ? parsed.error : explained.error;
  throw GatewayRequestError.invalid(
    `Malformed universal request: ${z.prettifyError(error).replaceAll("\n", " ")}`,
  );
}

/** What `universalBodySchema` outputs for `value`, or undefined where it would refuse it. */
export function checkUniversalBody(value: unknown): UniversalStepInput[] | undefined {
  if (!Array.isArray(value)) {
    const step = checkStep(value);
    return step === undefined ? undefined : [step];
  }
  if (value.length < 1 || value.length > 100) return undefined;
  const steps: UniversalStepInput[] = [];
  for (const item of value) {
    const step = checkStep(item);
    if (step === undefined) return undefined;
    steps.push(step);
  }
  return steps;
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkStep(value: unknown): UniversalStepInput | undefined {
  if (!isObject(value)) return undefined;
  const { provider, endpoint, query } = value;
  if (typeof provider !== "string" || provider.length < 1) return undefined;
  if (typeof endpoint !== "string" || endpoint.length < 1 || endpoint.length > 4096) {
    return undefined;
  }
  const headers = checkHeaders(value.headers);
  if (headers === undefined || query === undefined) return undefined;
  const step: UniversalStepInput = { provider, endpoint, headers, query };
  if (value.config !== undefined) {
    const config = checkConfig(value.config);
    if (config === undefined) return undefined;
    step.config = config;
  }
  return step;
}

function checkHeaders(value: unknown): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (value === undefined) return headers;
  if (!isObject(value)) return undefined;
  for (const name in value) {
    // As zod does: `__proto__` is skipped (assigning it would replace the prototype).
    if (!Object.hasOwn(value, name) || name === "__proto__") continue;
    const header = value[name];
    if (!headerName.test(name) || typeof header !== "string" || badHeaderValue.test(header)) {
      return undefined;
    }
    headers[name] = header;
  }
  return headers;
}

type StepConfig = NonNullable<UniversalStepInput["config"]>;

function checkConfig(value: unknown): StepConfig | undefined {
  if (!isObject(value)) return undefined;
  const config: StepConfig = {};
  const { requestTimeout, maxAttempts, retryDelay, backoff } = value;
  if (requestTimeout !== undefined) {
    if (!isIntegerIn(requestTimeout, 1, 3_600_000)) return undefined;
    config.requestTimeout = requestTimeout;
  }
  if (maxAttempts !== undefined) {
    if (!isIntegerIn(maxAttempts, 1, 5)) return undefined;
    config.maxAttempts = maxAttempts;
  }
  if (retryDelay !== undefined) {
    if (!isIntegerIn(retryDelay, 0, maxRetryDelayMs)) return undefined;
    config.retryDelay = retryDelay;
  }
  if (backoff !== undefined) {
    if (backoff !== "constant" && backoff !== "linear" && backoff !== "exponential") {
      return undefined;
    }
    config.backoff = backoff;
  }
  return config;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}
