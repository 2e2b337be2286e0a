/**
 * docs/client.md's "Provider keys", held against the emulator `stepwise dev` runs: without any
 * key on an open gateway the first call is the documented `AuthenticationError` ("Missing API
 * key") whose message names the ways in; `keyLookup` with any key fixes it (the mocks check that
 * a key is sent, not which); on an authenticated gateway the gateway token alone is enough for
 * the providers Unified Billing serves, and not for the others.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError } from "../../src/client/errors.ts";
import { createGatewayClient } from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { projectRoot } from "./documented.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "open",
      routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
    },
    {
      id: "authenticated",
      authentication: true,
      routes: {
        default: [{ provider: "openai", model: "gpt-4o-mini" }],
        unbilled: [{ provider: "mistral", model: "mistral-small-latest" }],
      },
    },
  ],
  keys: { providers: ["openai", "mistral"] },
});
const messages = [{ role: "user", content: "Hi" }] as const;
const token = "stepwise-dev-token";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ config, gatewayToken: token });
});
afterAll(async () => {
  await emulator?.close();
});

function client(gatewayId: string, extra: Record<string, unknown> = {}) {
  const gateway = config.gateways.find((candidate) => candidate.id === gatewayId)!;
  return createGatewayClient({
    accountId,
    gatewayId,
    baseUrl: emulator.url,
    routes: gateway.routes,
    ...extra,
  });
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("provider keys, as docs/client.md says", () => {
  it("documents the four ways a key reaches a provider", () => {
    const doc = readFileSync(path.join(projectRoot, "docs/client.md"), "utf8");
    const section = /## Provider keys\n([\s\S]*?)\n## /.exec(doc)?.[1] ?? "";
    for (const way of ["The companion Worker", "BYOK", "`keyLookup`", "Unified Billing"])
      expect(section).toContain(`| ${way}`);
    expect(section).toContain("Missing API key");
  });

  it("answers a call with no key on an open gateway with the AuthenticationError that names the fixes", async () => {
    const error = await failure(client("open").chat({ route: "default", messages }));
    expect(AuthenticationError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("Missing API key");
    for (const way of ["keyLookup", "the companion Worker", "BYOK", "Unified Billing"])
      expect(message).toContain(way);
    expect(message).toContain("docs/client.md");
  });

  it("serves the same call once keyLookup sends any key", async () => {
    const answer = await client("open", { keyLookup: () => "local-test-key" }).chat({
      route: "default",
      messages,
    });
    expect(answer.served).toMatchObject({ index: 0, provider: "openai" });
  });

  it("needs only the gateway token on an authenticated gateway, for a provider Unified Billing serves", async () => {
    const answer = await client("authenticated", { gatewayToken: token }).chat({
      route: "default",
      messages,
    });
    expect(answer.served).toMatchObject({ index: 0, provider: "openai" });
    const unbilled = await failure(
      client("authenticated", { gatewayToken: token }).chat({ route: "unbilled", messages }),
    );
    expect(AuthenticationError.isInstance(unbilled)).toBe(true);
  });
});
