/**
 * @module
 * The model a REST API request names (usage/rest-api.mdx, "Model naming"): third-party models as
 * `author/model` (`openai/gpt-4.1`, `anthropic/claude-sonnet-4`, `google/gemini-3-flash`,
 * `xai/grok-3`), Workers AI models as `@cf/author/model`, a dynamic route as `dynamic/<route>`.
 * Authors map to the gateway's provider slugs; provider slugs are accepted as authors too
 * (`google-ai-studio/...`, `groq/...`, `custom-acme/...`), as on the compat endpoint.
 */
import { isKnownProvider } from "../../providers/index.ts";
import { GatewayRequestError } from "../errors.ts";

export type RestModel =
  | { readonly kind: "dynamic"; readonly route: string }
  | { readonly kind: "provider"; readonly provider: string; readonly model: string };

/** Authors of Cloudflare's model catalog whose provider slug differs from the author. */
const authorProviders: Readonly<Record<string, string>> = {
  google: "google-ai-studio",
  xai: "grok",
};

/**
 * The provider slug of a catalog author (`google` → `google-ai-studio`, `xai` → `grok`); any
 * other author is taken as a provider slug. The compat endpoint's examples use the catalog's
 * authors too (`google/gemini-2.5-pro`).
 */
export function providerOfAuthor(author: string): string {
  return Object.hasOwn(authorProviders, author) ? authorProviders[author]! : author;
}

/**
 * Reads a REST model name.
 * @throws GatewayRequestError 400 for a name without an author, or an author no provider serves.
 */
export function readRestModel(name: string): RestModel {
  const model = name.trim();
  if (model.startsWith("@cf/") || model.startsWith("@hf/")) {
    return { kind: "provider", provider: "workers-ai", model };
  }
  const slash = model.indexOf("/");
  const author = slash === -1 ? "" : model.slice(0, slash);
  const rest = slash === -1 ? "" : model.slice(slash + 1);
  if (author === "" || rest === "") {
    throw GatewayRequestError.invalid(
      `Invalid model "${name.slice(0, 200)}": name it author/model (e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5), @cf/author/model for Workers AI, or dynamic/<route>.`,
    );
  }
  if (author === "dynamic") return { kind: "dynamic", route: rest };
  const provider = providerOfAuthor(author);
  if (!isKnownProvider(provider) || provider === "compat") {
    throw GatewayRequestError.invalid(
      `Unknown model author "${author}" in "${name.slice(0, 200)}": use openai, anthropic, google, xai, groq, mistral, deepseek, openrouter, workers-ai or custom-<slug>.`,
    );
  }
  return { kind: "provider", provider, model: rest };
}
