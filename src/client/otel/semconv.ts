/**
 * @module
 * The OpenTelemetry names Stepwise emits, in one table: the GenAI semantic conventions (v1.37 and
 * later, Development status: `gen_ai.provider.name` replaced `gen_ai.system`) and Stepwise's own
 * `stepwise.*` attributes and metrics. Provider slugs map to the conventions' well-known
 * `gen_ai.provider.name` values where there is one; any other slug is emitted as it is.
 */

/** GenAI semantic-convention names. */
export const genAi = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** Deprecated by `gen_ai.provider.name` (v1.37); emitted only with `legacySystemAttribute`. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
  /** Histogram, seconds. */
  operationDuration: "gen_ai.client.operation.duration",
  /** Histogram, `{token}`, with `gen_ai.token.type` `input` / `output`. */
  tokenUsage: "gen_ai.client.token.usage",
} as const;

/** Stepwise's own attribute and metric names. */
export const stepwise = {
  gateway: "stepwise.gateway",
  route: "stepwise.route",
  mode: "stepwise.mode",
  servedStep: "stepwise.served_step",
  fallback: "stepwise.fallback",
  failedSteps: "stepwise.failed_steps",
  cache: "stepwise.cache",
  attempts: "stepwise.attempts",
  cost: "stepwise.cost",
  streamed: "stepwise.streamed",
  ok: "stepwise.ok",
  step: "stepwise.step",
  status: "stepwise.status",
  errorCode: "stepwise.error_code",
  at: "stepwise.at",
  /** Span event of one failed step. */
  stepFailed: "stepwise.step_failed",
  /** Counter, `{call}`: calls per route, served step, fallback, ok and cache. */
  calls: "stepwise.calls",
  /** Counter, USD: the calls' cost. */
  costMetric: "stepwise.cost",
  /** Counter, `{step}`: failed steps per route, step, provider and status. */
  failedStepsMetric: "stepwise.failed_steps",
} as const;

/** Stepwise provider slugs whose well-known `gen_ai.provider.name` differs from the slug. */
export const providerNames: Readonly<Record<string, string>> = {
  "google-ai-studio": "gcp.gemini",
  "google-vertex-ai": "gcp.vertex_ai",
  mistral: "mistral_ai",
  grok: "x_ai",
  "azure-openai": "azure.ai.openai",
  "aws-bedrock": "aws.bedrock",
  "perplexity-ai": "perplexity",
};

/** The `gen_ai.provider.name` of a Stepwise provider slug. */
export function providerNameOf(slug: string): string {
  return providerNames[slug] ?? slug;
}
