/**
 * @module
 * The client of the companion Worker's admin API: rotate a provider key (the `default` key or a
 * named key of the provider's pool), take a key out of a pool, read a provider's keys, create an
 * app token. One implementation, used by `stepwise rotate`, the demo, the chaos campaign, the
 * benchmarks and the tests. `fetch` only, so it runs in Node, Workers and browsers. It never logs, returns
 * or records a key: a rotation answers with the new version's metadata (its fingerprint).
 *
 * @example
 * import { rotateKey } from "stepwise-gateway/worker-admin";
 * const version = await rotateKey({ workerUrl, token: adminToken, provider: "openai", key, label: "ci" });
 * version.fingerprint; // "sha256:4735f8af9679"
 */
import { StepwiseError } from "../errors/index.ts";

/** A call to the Worker's admin API that failed, with what to do about it. */
export class WorkerAdminError extends StepwiseError {
  static override readonly kind: string = "stepwise.WorkerAdminError";
  /** HTTP status of the Worker's answer; undefined when the Worker was not reached. */
  readonly status: number | undefined;

  constructor(options: { code: string; message: string; status?: number; cause?: unknown }) {
    super(options);
    this.name = "WorkerAdminError";
    this.status = options.status;
  }
}

/** Where the Worker is and how to authenticate to its admin API. */
export interface WorkerAdminTarget {
  /** The Worker's URL, e.g. `https://stepwise-keys.example.workers.dev`. */
  readonly workerUrl: string;
  /** The admin token (the Worker's `ROTATE_TOKEN` secret). */
  readonly token: string;
  /** `globalThis.fetch` by default, looked up at call time. */
  readonly fetch?: typeof fetch;
}

/** What `rotateKey` sends. */
export interface RotateKeyInput extends WorkerAdminTarget {
  readonly provider: string;
  /** The key of the provider's pool; `default` when absent. A new name adds a key to the pool. */
  readonly name?: string;
  readonly key: string;
  /** What rotated the key, stored with it (e.g. `ci:deploy-42`). */
  readonly label: string;
  /** When the provider stops accepting the key (ISO-8601). */
  readonly expiresAt?: string;
}

/** Where a committed change has reached: KV (proxied calls) and the gateways' stored keys. */
export interface Propagation {
  readonly kv: "written" | "pending";
  readonly visibleEverywhereBy: string | null;
  /** One entry per BYOK secret `{gateway}_{provider}_default` the change overwrites. */
  readonly byok: readonly {
    readonly gateway: string;
    readonly secret: string;
    readonly state: "written" | "pending";
  }[];
}

/** The new version's metadata, as the Worker returns it. */
export interface RotatedVersion {
  readonly provider: string;
  /** The key of the pool (`default` unless named). */
  readonly name: string;
  readonly version: string;
  readonly fingerprint: string;
  readonly label: string;
  readonly rotatedAt: string;
  readonly expiresAt: string | null;
  /** How many keys of the provider's pool have a current version. */
  readonly poolSize: number;
  readonly propagation: Propagation;
}

/**
 * `PUT {workerUrl}/keys/{provider}`: the key becomes the provider's current version.
 * @throws {WorkerAdminError} code `rotate_failed`, with the Worker's reason.
 */
export async function rotateKey(input: RotateKeyInput): Promise<RotatedVersion> {
  const body: Record<string, string> = { key: input.key, label: input.label };
  if (input.expiresAt !== undefined) body.expiresAt = input.expiresAt;
  const answer = await callAdmin(
    input,
    "PUT",
    `keys/${encodeURIComponent(input.provider)}${input.name === undefined ? "" : `/${encodeURIComponent(input.name)}`}`,
    body,
    "rotate_failed",
  );
  if (answer.status === 201 && isRotatedVersion(answer.json)) return answer.json;
  throw refusal(answer, "rotate_failed", "The Worker refused the rotation");
}

/** Names one key of a provider's pool. */
export interface PoolKeyInput extends WorkerAdminTarget {
  readonly provider: string;
  readonly name: string;
}

/**
 * `DELETE {workerUrl}/keys/{provider}/{name}`: takes a key out of the pool (every version of it is
 * revoked, its value erased). Answers the provider's keys as committed.
 * @throws {WorkerAdminError} code `remove_key_failed`, with the Worker's reason.
 */
export async function removePoolKey(input: PoolKeyInput): Promise<ProviderKeys> {
  const answer = await callAdmin(
    input,
    "DELETE",
    `keys/${encodeURIComponent(input.provider)}/${encodeURIComponent(input.name)}`,
    undefined,
    "remove_key_failed",
  );
  if (answer.status === 200 && isProviderKeys(answer.json)) return answer.json;
  throw refusal(answer, "remove_key_failed", "The Worker did not take the key out of the pool");
}

/** One provider's keys as the Worker shows them (`GET /keys/{provider}`); see docs/worker.md. */
export interface ProviderKeys {
  readonly provider: string;
  readonly pool: readonly {
    readonly name: string;
    readonly current: { readonly version: string; readonly fingerprint: string } | null;
    readonly health: { readonly state: string; readonly reason: string | null };
    readonly usage: { readonly calls: number; readonly ok: number } | null;
  }[];
  readonly pending: readonly { readonly target: string; readonly entry: string }[];
}

/**
 * `GET {workerUrl}/keys/{provider}`: the provider's pool, each key's history, health and usage.
 * @throws {WorkerAdminError} code `keys_unreadable`, with the Worker's reason.
 */
export async function readProviderKeys(
  input: WorkerAdminTarget & { readonly provider: string },
): Promise<ProviderKeys> {
  const answer = await callAdmin(
    input,
    "GET",
    `keys/${encodeURIComponent(input.provider)}`,
    undefined,
    "keys_unreadable",
  );
  if (answer.status === 200 && isProviderKeys(answer.json)) return answer.json;
  throw refusal(answer, "keys_unreadable", "The Worker did not answer the provider's keys");
}

function isProviderKeys(value: unknown): value is ProviderKeys {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as ProviderKeys).pool) &&
    typeof (value as ProviderKeys).provider === "string"
  );
}

/** What `createAppToken` sends. */
export interface CreateAppTokenInput extends WorkerAdminTarget {
  /** The app's name, shown in `GET /app-tokens` and recorded with its calls. */
  readonly name: string;
  /** Requests the app may make per window; the Worker's default when absent. */
  readonly rateLimit?: { readonly limit: number; readonly windowSeconds: number };
  /**
   * What the app may do beyond the default: the gateways, routes and providers it may use (each
   * list left out: all) and the gateway controls it may send (left out: none), e.g.
   * `{ providers: ["openai"], controls: ["cf-aig-collect-log"] }`.
   */
  readonly allow?: {
    readonly gateways?: readonly string[];
    readonly routes?: readonly string[];
    readonly providers?: readonly string[];
    readonly controls?: readonly (
      | "cf-aig-custom-cost"
      | "cf-aig-collect-log"
      | "cf-aig-collect-log-payload"
      | "cf-aig-byok-alias"
    )[];
  };
}

/** A new app and its token: the only time the token is ever returned. */
export interface CreatedApp {
  readonly id: string;
  readonly name: string;
  readonly token: string;
}

/**
 * `POST {workerUrl}/app-tokens`: an app token the application sends instead of a provider key.
 * @throws {WorkerAdminError} code `app_token_failed`, with the Worker's reason.
 */
export async function createAppToken(input: CreateAppTokenInput): Promise<CreatedApp> {
  const body = {
    name: input.name,
    ...(input.rateLimit ? { rateLimit: input.rateLimit } : {}),
    ...(input.allow ? { allow: input.allow } : {}),
  };
  const answer = await callAdmin(input, "POST", "app-tokens", body, "app_token_failed");
  const json = answer.json as Partial<CreatedApp> | undefined;
  if (answer.status === 201 && typeof json?.token === "string" && typeof json.id === "string") {
    return { id: json.id, name: json.name ?? input.name, token: json.token };
  }
  throw refusal(answer, "app_token_failed", "The Worker did not create the app token");
}

interface AdminAnswer {
  readonly status: number;
  readonly json: unknown;
}

async function callAdmin(
  target: WorkerAdminTarget,
  method: string,
  path: string,
  body: unknown,
  code: string,
): Promise<AdminAnswer> {
  let url: URL;
  try {
    url = new URL(path, withSlash(target.workerUrl));
  } catch (error) {
    throw new WorkerAdminError({
      code,
      message: `${target.workerUrl} is not a URL: pass the Worker's https:// URL.`,
      cause: error,
    });
  }
  const fetchFunction = target.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let response: Response;
  try {
    response = await fetchFunction(url, {
      method,
      headers: {
        authorization: `Bearer ${target.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new WorkerAdminError({
      code,
      message: `Could not reach the Worker at ${url.origin}: check the Worker URL and your network.`,
      cause: error,
    });
  }
  return { status: response.status, json: parseJson(await response.text()) };
}

function refusal(answer: AdminAnswer, code: string, refused: string): WorkerAdminError {
  const error = (answer.json as { error?: { code?: string; message?: string } } | undefined)?.error;
  const reason = error?.message ?? `an unexpected ${answer.status} answer`;
  const hint =
    answer.status === 401
      ? " Check STEPWISE_ROTATE_TOKEN against the Worker's ROTATE_TOKEN secret."
      : "";
  return new WorkerAdminError({
    code,
    status: answer.status,
    message: `${refused} (${answer.status}${error?.code ? ` ${error.code}` : ""}): ${reason}${hint}`,
  });
}

function isRotatedVersion(value: unknown): value is RotatedVersion {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as RotatedVersion).version === "string" &&
    typeof (value as RotatedVersion).fingerprint === "string"
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
