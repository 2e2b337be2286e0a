/**
 * @module
 * What `createGatewayFetch` learns from a request to the REST API's AI endpoints
 * (usage/rest-api.mdx): which endpoint (`v1/chat/completions`, `v1/messages`, `v1/responses`,
 * `run`, `run/@cf/…`), which model or dynamic route the body names, and which format its answer
 * comes in, so the call's event names the route and step as the legacy endpoints' do.
 */

import { readRestModelName } from "./rest-names.ts";

/** What a REST request says about itself (the fields `fetch.ts` records). */
export interface RestRequestFacts {
  /** `dynamic` for `dynamic/<route>`, else `rest` (one model). */
  readonly kind: "dynamic" | "rest";
  /** The dynamic route's name, else `rest`. */
  readonly route: string;
  readonly provider: string | null;
  readonly model: string | null;
  readonly universalSteps: readonly never[];
  /** The adapter that reads the answer's usage: `openai`, `anthropic`, `workers-ai`, or none. */
  readonly adapter: string | undefined;
}

/** The adapter whose format an endpoint answers in (`/ai/run`'s envelope has none but Workers AI's). */
function answerFormat(path: string, provider: string | null): string | undefined {
  if (path === "v1/chat/completions") return "openai";
  if (path === "v1/messages") return "anthropic";
  if (path.startsWith("run") && provider === "workers-ai") return "workers-ai";
  return undefined;
}

/** The facts of a request to `{ai}/{path}` whose body's `model` is `model` (null: none). */
export function restRequestFacts(path: string, model: string | null): RestRequestFacts {
  const inPath = path.match(/^run\/(@cf\/.+)$/)?.[1];
  const named = readRestModelName(inPath ?? model);
  if (named !== null && "route" in named) {
    return {
      kind: "dynamic",
      route: named.route,
      provider: null,
      model: null,
      universalSteps: [],
      adapter: answerFormat(path, null),
    };
  }
  const provider = named?.provider ?? null;
  return {
    kind: "rest",
    route: "rest",
    provider,
    model: named?.model ?? model,
    universalSteps: [],
    adapter: answerFormat(path, provider),
  };
}
