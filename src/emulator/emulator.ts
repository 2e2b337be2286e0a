/**
 * @module
 * `startEmulator`: the local AI Gateway. Starts mock providers for every provider without an
 * upstream override, builds the gateways from the config and listens on 127.0.0.1.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isKnownProvider, providerSlugs } from "../providers/index.ts";
import { routeChains } from "../routes/index.ts";
import { EmulatorError } from "./errors.ts";
import { CreditBalance } from "./features/credits.ts";
import { ResponseCache } from "./features/response-cache.ts";
import { createIdGenerator } from "./ids.ts";
import {
  FaultPicker,
  gatewayKinds,
  type MockProviders,
  startMockProviders,
} from "./mocks/index.ts";
import {
  defaultGatewayToken,
  defaultLogCapacity,
  defaultRequestTimeoutMs,
  type Emulator,
  type EmulatorOptions,
  placeholderByokKey,
} from "./options.ts";
import { createRequestListener } from "./server.ts";
import type { EmulatorServices } from "./services.ts";
import { GatewayStore } from "./state/gateway-store.ts";
import type { CallAbort } from "./transport/call-abort.ts";
import { fetchTransport } from "./transport/fetch-transport.ts";
import { createHttpTransport } from "./transport/http-transport.ts";
import { UpstreamRegistry } from "./transport/upstreams.ts";

/**
 * Starts the emulator.
 * @example
 * const { config } = await loadConfig({ stack: "dev" });
 * const emulator = await startEmulator({ config });
 * await fetch(emulator.gatewayUrl("chat-prod"), { method: "POST", headers, body });
 * await emulator.close();
 * @throws EmulatorError for an upstream override that is not an http(s) URL or names an unknown
 * provider, or a `logCapacity` that is not a whole number of at least 1.
 */
export async function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  const { config } = options;
  const overrides = checkUpstreams(options.upstreams ?? {});
  const logCapacity = options.logCapacity ?? defaultLogCapacity;
  if (!Number.isSafeInteger(logCapacity) || logCapacity < 1) {
    throw new EmulatorError(
      `logCapacity must be a whole number of log records of at least 1, got ${logCapacity}.`,
    );
  }
  const now = options.now ?? (() => Date.now());
  const customSlugs = config.gateways.flatMap((gateway) =>
    Object.values(gateway.routes).flatMap((route) =>
      routeChains(route).flatMap((chain) =>
        chain.steps.map((step) => step.provider).filter((slug) => slug.startsWith("custom-")),
      ),
    ),
  );
  const missing = [...new Set([...providerSlugs, ...customSlugs])].filter(
    (slug) => !(slug in overrides),
  );
  let mocks: MockProviders | undefined;
  if (missing.length > 0 && options.mocks !== false) {
    mocks = await startMockProviders({
      providers: missing,
      now,
      ...(options.faults ? { faults: options.faults } : {}),
      ...(options.mockKeys ? { keys: options.mockKeys } : {}),
    });
  }
  const upstreamUrls = { ...(mocks?.urls ?? {}), ...overrides };
  const upstreams = new UpstreamRegistry(upstreamUrls);
  const generateId = options.generateId ?? createIdGenerator(now);
  const cache = new ResponseCache({
    ...(options.cacheMaxEntries ? { maxEntries: options.cacheMaxEntries } : {}),
    ...(options.cacheMaxBytes ? { maxBytes: options.cacheMaxBytes } : {}),
  });
  const credits = new CreditBalance(options.credits ?? Number.POSITIVE_INFINITY);
  if (Number.isNaN(credits.remaining) || credits.remaining < 0) {
    throw new EmulatorError(
      `credits must be a number of USD of at least 0 (Infinity for no limit), got ${options.credits}.`,
    );
  }
  const configKeys = config.byokKeys ?? {};
  const gateways = new GatewayStore(config.gateways, {
    generateId,
    time: () => new Date(now()).toISOString(),
    logCapacity,
    cache,
    byokKey: (provider) => {
      const fromConfig = configKeys[provider];
      return (
        options.byokKeys?.[provider] ??
        (typeof fromConfig === "string" ? fromConfig : placeholderByokKey(provider))
      );
    },
  });
  const httpTransport = createHttpTransport();
  const inFlight = new Set<CallAbort>();
  const gatewayToken =
    options.gatewayToken ??
    (typeof config.gatewayToken === "string" ? config.gatewayToken : defaultGatewayToken);
  let publicUrl = "";
  const services: EmulatorServices = {
    config,
    prices: config.models,
    now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    transport: options.fetch ? fetchTransport(options.fetch) : httpTransport.send,
    generateId,
    random: options.random ?? Math.random,
    gatewayToken,
    upstreams,
    gateways,
    cache,
    credits,
    guardrails: options.faults?.rules.some((rule) => gatewayKinds.has(rule.kind))
      ? new FaultPicker(options.faults, "gateway")
      : undefined,
    defaultTimeoutMs: options.defaultTimeoutMs ?? defaultRequestTimeoutMs,
    failOn: options.failOn ?? "retryable",
    lenient: options.lenient ?? false,
    inFlight,
    publicUrl: () => publicUrl,
    onError: options.onError ?? ((error) => console.error("stepwise emulator error:", error)),
  };
  const server = createServer(createRequestListener(services));
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
  });
  let port: number;
  try {
    port = await listen(server, options.port ?? 0);
  } catch (error) {
    httpTransport.close();
    await mocks?.close();
    throw new EmulatorError(
      `Cannot listen on 127.0.0.1:${options.port ?? 0}: ${(error as Error).message}; pick another port (0 picks a free one).`,
      error,
    );
  }
  const url = `http://127.0.0.1:${port}`;
  publicUrl = url;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    accountId: config.accountId,
    restUrl: `${url}/client/v4`,
    aiUrl: `${url}/client/v4/accounts/${config.accountId}/ai/v1`,
    upstreams: Object.freeze(Object.fromEntries(upstreams.entries())),
    mocks,
    gatewayToken,
    gatewayUrl: (gatewayId) => `${url}/v1/${config.accountId}/${gatewayId}`,
    compatUrl: (gatewayId) => `${url}/v1/${config.accountId}/${gatewayId}/compat`,
    logs: (gatewayId) => gateways.get(gatewayId)?.logs.list() ?? [],
    state: { gateways, cache, credits },
    close() {
      closing ??= (async () => {
        for (const controller of inFlight) controller.abort();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        httpTransport.close();
        await mocks?.close();
      })();
      return closing;
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: "127.0.0.1", backlog: 4096 }, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function checkUpstreams(upstreams: Readonly<Record<string, string>>): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [provider, url] of Object.entries(upstreams)) {
    if (!isKnownProvider(provider)) {
      throw new EmulatorError(
        `Unknown provider "${provider}" in an upstream override; use a provider slug such as openai or custom-<slug>.`,
      );
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (error) {
      throw new EmulatorError(
        `Upstream for ${provider} is not a URL: "${url}"; write e.g. ${provider}=http://127.0.0.1:9101`,
        error,
      );
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new EmulatorError(`Upstream for ${provider} must be an http(s) URL, got "${url}".`);
    }
    checked[provider] = parsed.href;
  }
  return checked;
}
