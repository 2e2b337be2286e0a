/**
 * @module
 * The model a provider request is for, as `cf-aig-model` and the logs report it: the body's
 * `model` field, or the endpoint path for providers that put the model there (Workers AI's
 * `@cf/...`, Google's `models/{model}:generateContent`).
 */

/** The model named by a request to a provider; empty when none can be found. */
export function modelOf(provider: string, endpoint: string, body: unknown): string {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const model = (body as Record<string, unknown>).model;
    if (typeof model === "string" && model !== "") return model;
  }
  const path = endpoint.split("?")[0]!.replace(/^\/+/, "");
  const google = /(?:^|\/)models\/([^/:]+)(?::|$)/.exec(path);
  if (google) return google[1]!;
  if (provider === "workers-ai") {
    const workersAi = /(?:^|\/)(@[^?]+)$/.exec(path);
    if (workersAi) return workersAi[1]!;
  }
  return "";
}

/** Whether a request body or endpoint asks for a streamed answer. */
export function asksForStream(endpoint: string, body: unknown): boolean {
  if (endpoint.includes(":streamGenerateContent")) return true;
  return (
    typeof body === "object" && body !== null && (body as Record<string, unknown>).stream === true
  );
}
