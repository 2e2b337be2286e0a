/**
 * @module
 * Names on Cloudflare's REST API (usage/rest-api.mdx): its URLs under
 * `https://api.cloudflare.com/client/v4/accounts/{account}/ai/`, and its model names, which are
 * `author/model` for third-party models ("Third-party models use the `author/model` format":
 * `openai/gpt-4.1`, `google/gemini-3-flash`, `xai/grok-3`) and `@cf/author/model` for Workers
 * AI. A route's step names a provider by its gateway slug; the catalog's author differs for two
 * of them (`google-ai-studio` is `google`, `grok` is `xai`), the others are the slug itself.
 */

import type { StepConfig } from "../../config/schema.ts";
import { defaultBaseUrl } from "../client.ts";

/** The Cloudflare API's origin, where the REST API lives. */
export const cloudflareApiOrigin = "https://api.cloudflare.com";

const authorOfSlug: Readonly<Record<string, string>> = {
  "google-ai-studio": "google",
  grok: "xai",
};
const slugOfAuthor: Readonly<Record<string, string>> = { google: "google-ai-studio", xai: "grok" };

/** The REST API's name for a step's model: `openai/gpt-4o-mini`, `google/…`, `@cf/…` as it is. */
export function restModelName(step: Pick<StepConfig, "provider" | "model">): string {
  if (step.provider === "workers-ai" || step.model.startsWith("@cf/")) return step.model;
  const author = Object.hasOwn(authorOfSlug, step.provider)
    ? authorOfSlug[step.provider]
    : step.provider;
  return `${author}/${step.model}`;
}

/** What a REST model name names: a dynamic route, or a provider (by its slug) and model. */
export type RestModelName =
  | { readonly route: string }
  | { readonly provider: string; readonly model: string };

/** Reads a REST model name (`dynamic/support`, `google/gemini-3-flash`, `@cf/…`); null for none. */
export function readRestModelName(name: string | null): RestModelName | null {
  if (name === null) return null;
  if (name.startsWith("@cf/") || name.startsWith("@hf/")) {
    return { provider: "workers-ai", model: name };
  }
  const slash = name.indexOf("/");
  if (slash <= 0) return null;
  const author = name.slice(0, slash);
  const model = name.slice(slash + 1);
  if (author === "dynamic") return { route: model };
  return {
    provider: Object.hasOwn(slugOfAuthor, author) ? slugOfAuthor[author]! : author,
    model,
  };
}

/** Where the client's options put the REST API: what the REST mode needs of them. */
export interface RestOrigin {
  readonly accountId: string;
  readonly baseUrl?: string;
  readonly apiBaseUrl?: string;
}

/**
 * `{origin}/client/v4/accounts/{account}/ai`: the REST API's AI endpoints. The origin is
 * `apiBaseUrl`, else a `baseUrl` other than Cloudflare's gateway origin (the emulator serves both
 * generations on one port), else `https://api.cloudflare.com`.
 */
export function restAiUrlOf(options: RestOrigin): string {
  const { baseUrl } = options;
  const origin =
    options.apiBaseUrl ??
    (baseUrl !== undefined && baseUrl.replace(/\/+$/, "") !== defaultBaseUrl
      ? baseUrl
      : cloudflareApiOrigin);
  return `${origin.replace(/\/+$/, "")}/client/v4/accounts/${encodeURIComponent(options.accountId)}/ai`;
}
