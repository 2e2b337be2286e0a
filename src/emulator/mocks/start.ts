/**
 * @module
 * `startMockProviders`: one real HTTP server per provider slug on 127.0.0.1 (port chosen by the
 * system), each speaking its provider's wire format, sharing one key table, fault schedule and
 * attempt log.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { adminPrefix, handleAdminRequest } from "./admin.ts";
import { mockFormatFor } from "./formats/index.ts";
import { MockLifecycle } from "./lifecycle.ts";
import { MockState } from "./mock-state.ts";
import { handleProviderRequest, type ProviderServerContext } from "./provider-request.ts";
import type { FaultSchedule, MockAttempt, MockProviders, MockProvidersOptions } from "./types.ts";

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function failSafely(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  const text = JSON.stringify({ error: { code: "mock_internal_error", message } });
  response.writeHead(500, { "content-type": "application/json" }).end(text);
}

function createProviderServer(context: ProviderServerContext): Server {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const isAdmin = request.url?.startsWith(adminPrefix) === true;
    const handled = isAdmin
      ? handleAdminRequest(context.state, request, response)
      : handleProviderRequest(context, request, response);
    handled.catch((error: unknown) => failSafely(response, error));
  });
  // Garbage that is not HTTP gets a 400 and a closed socket, never a crash.
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
  });
  context.lifecycle.track(server);
  return server;
}

/**
 * Starts mock providers. Stop them with `close()`, which also ends held and stalled connections.
 * @example
 * const mocks = await startMockProviders({ providers: ["openai", "anthropic"] });
 * mocks.setFaults({ rules: [{ provider: "anthropic", kind: "overloaded", count: 2 }] });
 * await fetch(`${mocks.urls.openai}v1/chat/completions`, { method: "POST", headers, body });
 * await mocks.close();
 * @throws UnknownProviderError for a slug that is not a provider; FaultScheduleError for an
 * invalid `faults` schedule.
 */
export async function startMockProviders(options: MockProvidersOptions): Promise<MockProviders> {
  const host = options.host ?? "127.0.0.1";
  const now = options.now ?? (() => Date.now());
  const state = new MockState({
    now,
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
  });
  const slugs = [...new Set(options.providers)];
  const formats = slugs.map((slug) => mockFormatFor(slug));
  const lifecycle = new MockLifecycle();
  const urls: Record<string, string> = {};
  try {
    for (const [index, provider] of slugs.entries()) {
      const format = formats[index]!;
      const server = createProviderServer({ provider, format, state, lifecycle });
      const port = await listen(server, host);
      urls[provider] = `http://${host}:${port}/`;
    }
  } catch (error) {
    await lifecycle.close();
    throw error;
  }
  return {
    urls: Object.freeze(urls),
    get attempts(): readonly MockAttempt[] {
      return state.attempts();
    },
    setFaults: (schedule: FaultSchedule) => state.setFaults(schedule, "setFaults"),
    setKeys: (provider, keys) => state.setKeys(provider, keys),
    revokeKey: (provider, key) => state.revokeKey(provider, key),
    clearAttempts: () => state.clearAttempts(),
    close: () => lifecycle.close(),
  };
}
