/**
 * @module
 * A workerd test harness for the companion Worker: a fresh Worker per test with an injected
 * clock; KV as Cloudflare's (test/worker/kv-double.ts: a lagging, write-limited namespace seen
 * from several locations); the ledger and the app limiters as Durable Object doubles running the
 * real cores on the same clock and KV (test/worker/durable-object-doubles.ts); a fake gateway (an
 * injected `fetch` that records every request and checks provider keys the way the real
 * gateway's upstreams would); a recording Analytics Engine dataset and logger; and a transcript
 * of every response, so tests can scan everything for leaked keys.
 *
 * The ledger lives at the home location (`edge-a`): its KV writes are seen there at once and
 * elsewhere one propagation time later. `advance(ms)` moves the clock, fires the Worker's timers
 * that came due (a call's `cf-aig-request-timeout`) and the ledger's alarm when due (edge writes
 * that had to wait for KV's one write per second per key).
 */
/// <reference types="@cloudflare/vitest-pool-workers/types" />
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { type GatewayConfig, parseConfig, workerViewText } from "../../src/config/index.ts";
import {
  type AnalyticsDataPoint,
  byokSecretTarget,
  createWorker,
  FixedWindowCounter,
  KeyLedgerCore,
  KeyPoolMonitorCore,
  kvEdgeTarget,
  ModelHealthBook,
  type ProviderMonitorApi,
  type WorkerEnv,
} from "../../src/worker/index.ts";
import { MemoryStorage, namespaceOf, TestAlarm } from "./durable-object-doubles.ts";
import { KvDouble } from "./kv-double.ts";

export const accountId = "0123456789abcdef0123456789abcdef";
export const adminToken = "test-admin-token-0123456789";
export const gatewayToken = "test-gateway-token-abcdef";
export const gatewayUrl = "https://gateway.test";

/** A config with two gateways; `batch` holds its groq key in the gateway (BYOK). */
export function testConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accountId,
    gateways: [
      {
        id: "chat",
        routes: {
          default: [
            { provider: "anthropic", model: "claude-sonnet-4-5" },
            { provider: "openai", model: "gpt-4o-mini" },
          ],
          "long-context": [{ provider: "google-ai-studio", model: "gemini-2.5-flash" }],
        },
      },
      {
        id: "batch",
        byok: { providers: ["groq"] },
        routes: { fast: [{ provider: "groq", model: "llama-3.1-8b-instant" }] },
      },
    ],
    keys: {
      providers: ["anthropic", "openai", "google-ai-studio"],
      maxAgeDays: 90,
      historyHours: 1,
      graceSeconds: 60,
    },
    worker: {
      appRateLimit: { limit: 100, windowSeconds: 60 },
      healthProbe: { enabled: true, slowMs: 1000 },
    },
    ...overrides,
  };
}

/** One request the fake gateway received. */
export interface GatewayCall {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** How the fake gateway answers; `defaultGateway` by default. */
export type GatewayBehaviour = (
  call: GatewayCall,
  validKeys: Map<string, Set<string>>,
) => Response | Promise<Response>;

/** Provider credential carried by a header set, in the provider's own form. */
export function credentialOf(
  provider: string,
  headers: Record<string, string>,
): string | undefined {
  if (provider === "anthropic") return headers["x-api-key"];
  if (provider === "google-ai-studio") return headers["x-goog-api-key"];
  return headers.authorization?.replace(/^Bearer /, "");
}

/**
 * Acts like AI Gateway in front of providers that accept only `validKeys`: the universal endpoint
 * serves from the first step whose key is valid (`cf-aig-step`), else answers 401 from the last.
 */
export const defaultGateway: GatewayBehaviour = (call, validKeys) => {
  const path = new URL(call.url).pathname.split("/").filter(Boolean);
  const accepts = (provider: string, key: string | undefined) =>
    key !== undefined && (validKeys.get(provider)?.has(key) ?? false);
  if (path.length === 3) {
    const steps = JSON.parse(call.body) as { provider: string; headers: Record<string, string> }[];
    const served = steps.findIndex((step) =>
      accepts(step.provider, credentialOf(step.provider, step.headers)),
    );
    const index = served === -1 ? steps.length - 1 : served;
    return new Response(JSON.stringify({ ok: served !== -1, provider: steps[index]?.provider }), {
      status: served === -1 ? 401 : 200,
      headers: {
        "content-type": "application/json",
        "cf-aig-step": String(index),
        "cf-aig-log-id": "log-1",
        "cf-aig-cache-status": "MISS",
      },
    });
  }
  if (path[3] === "compat") {
    const model = (JSON.parse(call.body) as { model: string }).model;
    const provider = model.split("/")[0]!;
    const ok = accepts(provider, call.headers.authorization?.replace(/^Bearer /, ""));
    return new Response(JSON.stringify({ ok }), {
      status: ok ? 200 : 401,
      headers: {
        "content-type": "application/json",
        "cf-aig-provider": provider,
        "cf-aig-model": model.slice(provider.length + 1),
      },
    });
  }
  const provider = path[3]!;
  const ok = accepts(provider, credentialOf(provider, call.headers));
  return new Response(JSON.stringify({ ok }), {
    status: ok ? 200 : 401,
    headers: { "content-type": "application/json", "cf-aig-step": "0" },
  });
};

/** A Secrets Store as Cloudflare's API serves it, for the ledger's BYOK target. */
export interface FakeSecretsStore {
  readonly storeId: string;
  /** Secret name → value. */
  readonly values: Map<string, string>;
  /** Every request the API received (method and path; never a body). */
  readonly requests: string[];
  /** Answer this status to every request while set. */
  failWith: number | undefined;
}

export const cloudflareApiUrl = "https://api.cloudflare.test/client/v4";
export const secretsStoreToken = "test-secrets-store-token-123";

/** Options for {@link createHarness}. */
export interface HarnessOptions {
  readonly config?: Record<string, unknown>;
  readonly startAt?: number;
  readonly gateway?: GatewayBehaviour;
  readonly envOverrides?: Partial<WorkerEnv>;
  readonly generateId?: () => string;
  /** How long a KV write takes to reach other locations (default 60 s). */
  readonly propagationMs?: number;
  /** BYOK secrets the ledger writes through to (name → initial value); none by default. */
  readonly byokSecrets?: Record<string, string>;
}

/** A timer the Worker set on the harness clock. */
export interface HarnessTimer {
  /** Clock time it fires at. */
  readonly due: number;
  readonly fire: () => void;
  /** Fired or cancelled. */
  done: boolean;
}

/** The location of the Worker that `call` reaches; `at(location)` reaches others. */
export const homeLocation = "edge-a";

/** A Worker under test with everything it touched recorded. */
export function createHarness(options: HarnessOptions = {}) {
  let clock = options.startAt ?? Date.parse("2026-03-01T12:00:00Z");
  const gatewayCalls: GatewayCall[] = [];
  const validKeys = new Map<string, Set<string>>();
  const events: AnalyticsDataPoint[] = [];
  const logs: string[] = [];
  const transcript: string[] = [];
  let behaviour = options.gateway ?? defaultGateway;
  const timers: HarnessTimer[] = [];
  const timerListeners: ((timer: HarnessTimer) => void)[] = [];
  const record = (level: string) => (message: string) => {
    logs.push(`${level}: ${message}`);
  };
  const store: FakeSecretsStore = {
    storeId: "0123456789abcdef0123456789abcdef",
    values: new Map(Object.entries(options.byokSecrets ?? {})),
    requests: [],
    failWith: undefined,
  };
  const worker = createWorker({
    now: () => clock,
    setTimer: (ms, fire) => {
      const timer: HarnessTimer = { due: clock + ms, fire, done: false };
      timers.push(timer);
      for (const listener of timerListeners) listener(timer);
      return () => {
        timer.done = true;
      };
    },
    logger: { info: record("info"), warn: record("warn"), error: record("error") },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (request.url.startsWith(cloudflareApiUrl)) {
        throw new Error("the proxy never calls Cloudflare's API; only the ledger does");
      }
      const call: GatewayCall = {
        url: request.url,
        method: request.method,
        headers: Object.fromEntries(request.headers),
        body: request.body === null ? "" : await request.text(),
      };
      gatewayCalls.push(call);
      return behaviour(call, validKeys);
    },
  });
  const kv = new KvDouble({
    now: () => clock,
    ...(options.propagationMs === undefined ? {} : { propagationMs: options.propagationMs }),
  });
  const ledgerStorage = new MemoryStorage();
  const ledgerAlarm = new TestAlarm();
  const config = (options.config ?? testConfig()) as unknown as {
    accountId: string;
    gateways: GatewayConfig[];
  };
  const byokTargets =
    options.byokSecrets === undefined
      ? []
      : [
          byokSecretTarget({
            accountId: config.accountId,
            gateways: config.gateways,
            apiUrl: cloudflareApiUrl,
            apiToken: secretsStoreToken,
            storeId: store.storeId,
            fetch: (input, init) => secretsStoreApi(store, new Request(input, init)),
          }),
        ];
  const ledger = new KeyLedgerCore({
    storage: ledgerStorage,
    targets: [kvEdgeTarget(kv.at(homeLocation)), ...byokTargets],
    wakeAt: ledgerAlarm.set,
    now: () => clock,
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
    onWriteFailure: (target, entry, attempts) =>
      logs.push(`warn: ledger could not write ${entry} to ${target} (attempt ${attempts})`),
  });
  const ledgerNamespace = namespaceOf(() => ledger);
  const limiterNamespace = namespaceOf(() => new FixedWindowCounter({ now: () => clock }));
  const monitorNamespace = namespaceOf((): ProviderMonitorApi => {
    let saved: unknown;
    const keys = new KeyPoolMonitorCore({
      store: {
        load: async () => saved as never,
        save: (view) => {
          saved = view;
        },
      },
      now: () => clock,
    });
    const models = new ModelHealthBook(new MemoryStorage());
    return {
      report: (reports) => keys.report(reports),
      keys: () => keys.snapshot(),
      recordProbe: (probe, settings) => models.record(probe, settings),
      models: () => models.all(),
    };
  });
  const envAt = (location: string): WorkerEnv => ({
    KEYS: kv.at(location),
    KEY_LEDGER: ledgerNamespace,
    APP_LIMITER: limiterNamespace,
    PROVIDER_MONITOR: monitorNamespace,
    ROTATE_TOKEN: adminToken,
    GATEWAY_TOKEN: gatewayToken,
    GATEWAY_URL: gatewayUrl,
    STEPWISE_CONFIG: workerViewText(parseConfig(options.config ?? testConfig())),
    EVENTS: { writeDataPoint: (point) => void events.push(point) },
    ...options.envOverrides,
  });
  const workerEnv = envAt(homeLocation);

  /** Sends a request to the Worker at `location` and records the response. */
  const callAt = (location: string) => {
    const locationEnv = location === homeLocation ? workerEnv : envAt(location);
    return (
      method: string,
      path: string,
      init: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
    ) => send(locationEnv, method, path, init);
  };

  /** Sends a request to the Worker and records the response (status, headers, body). */
  async function send(
    locationEnv: WorkerEnv,
    method: string,
    path: string,
    init: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
    // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
  ): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
    const headers = new Headers(init.headers);
    if (init.token !== null) headers.set("authorization", `Bearer ${init.token ?? adminToken}`);
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    return sendRequest(
      locationEnv,
      new Request(`https://worker.test${path}`, { method, headers, body }),
    );
  }

  /** Sends a prepared request (e.g. with a streamed body) and records the response. */
  async function sendRequest(
    locationEnv: WorkerEnv,
    request: Request,
    // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
  ): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
    const execution = createExecutionContext();
    const response = await worker.fetch(request, locationEnv, execution);
    const text = await response.text();
    await waitOnExecutionContext(execution);
    transcript.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: () => JSON.parse(text),
    };
  }

  const call = callAt(homeLocation);

  return {
    worker,
    env: workerEnv,
    kv,
    /** Calls the same Worker deployment at another Cloudflare location (its own view of KV). */
    at: callAt,
    /** Sends a prepared request to the Worker at the home location. */
    request: (request: Request) => sendRequest(workerEnv, request),
    gatewayCalls,
    events,
    logs,
    transcript,
    call,
    /** Rotates a key through the admin API and returns the new version's metadata. */
    async rotate(provider: string, key: string, extra: Record<string, unknown> = {}) {
      const response = await call("PUT", `/keys/${provider}`, { body: { key, ...extra } });
      if (response.status !== 201)
        throw new Error(`rotate failed: ${response.status} ${response.text}`);
      return response.json();
    },
    /** Creates an app and returns its token. */
    async createApp(name = "checkout", rateLimit?: { limit: number; windowSeconds: number }) {
      const response = await call("POST", "/app-tokens", {
        body: rateLimit ? { name, rateLimit } : { name },
      });
      if (response.status !== 201)
        throw new Error(`create app failed: ${response.status} ${response.text}`);
      return response.json() as { id: string; token: string; name: string };
    },
    /** Makes the fake providers accept exactly these keys for a provider. */
    acceptKeys(provider: string, ...keys: string[]) {
      validKeys.set(provider, new Set(keys));
    },
    setGateway(next: GatewayBehaviour) {
      behaviour = next;
    },
    /** Moves the clock; the Worker's timers and the ledger's alarm fire if they came due. */
    async advance(ms: number): Promise<void> {
      clock += ms;
      const due = timers
        .filter((timer) => !timer.done && timer.due <= clock)
        .sort((a, b) => a.due - b.due);
      for (const timer of due) {
        timer.done = true;
        timer.fire();
      }
      await ledgerAlarm.fireDue(clock, () => ledger.runAlarm());
    },
    /**
     * Moves the clock without firing the Worker's timers: an isolate too busy to run them on
     * time (they fire at the next `advance`).
     */
    advanceClockOnly(ms: number): void {
      clock += ms;
    },
    /** Every timer the Worker set, in order (fired and cancelled ones included). */
    timers,
    /** Calls `listener` with each timer the Worker sets from now on. */
    onTimer(listener: (timer: HarnessTimer) => void): void {
      timerListeners.push(listener);
    },
    ledger,
    ledgerStorage,
    ledgerAlarm,
    monitors: monitorNamespace.objects,
    /** The Secrets Store the ledger's BYOK target writes (with `byokSecrets`). */
    secretsStore: store,
    now: () => clock,
  };
}

/** Cloudflare's Secrets Store API, as much as the BYOK target uses: list by name, edit a value. */
async function secretsStoreApi(store: FakeSecretsStore, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice(new URL(cloudflareApiUrl).pathname.length);
  store.requests.push(`${request.method} ${path}`);
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  if (store.failWith !== undefined) {
    return json(store.failWith, { success: false, errors: [{ code: 10000, message: "refused" }] });
  }
  if (request.headers.get("authorization") !== `Bearer ${secretsStoreToken}`) {
    return json(401, {
      success: false,
      errors: [{ code: 10000, message: "Authentication error" }],
    });
  }
  const base = `/accounts/${accountId}/secrets_store/stores/${store.storeId}/secrets`;
  const names = [...store.values.keys()];
  if (request.method === "GET" && path === base) {
    const search = url.searchParams.get("search") ?? "";
    const result = names
      .filter((name) => name.includes(search))
      .map((name) => ({ id: `id-${names.indexOf(name)}`, name }));
    return json(200, { success: true, errors: [], result });
  }
  const id = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : "";
  const name = names[Number(id.replace(/^id-/, ""))];
  if (request.method === "PATCH" && name !== undefined) {
    const body = (await request.json()) as { value?: string };
    // Cloudflare: a secret's value is at most 64 KiB (65,536 bytes); the error code is the double's.
    if (typeof body.value === "string" && new TextEncoder().encode(body.value).length > 65_536) {
      return json(400, {
        success: false,
        errors: [{ code: 1002, message: "value is larger than 65536 bytes" }],
      });
    }
    if (typeof body.value === "string") store.values.set(name, body.value);
    return json(200, { success: true, errors: [], result: { id, name } });
  }
  return json(404, { success: false, errors: [{ code: 1001, message: "not found" }] });
}

export type Harness = ReturnType<typeof createHarness>;
