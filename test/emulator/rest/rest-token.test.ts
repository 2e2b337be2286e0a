/**
 * The settings REST API (`/client/v4/accounts/{account}/ai-gateway/...`, the Secrets Store)
 * checks its token as a local server should (issue #23): only the emulator's gateway token, the
 * one `stepwise dev` prints, in `Authorization: Bearer` or `X-Auth-Key`, compared in constant
 * time. Before, any value was accepted, so any local process could read logs and change gateway
 * settings. Cloudflare's own answers: 400 code 9106 without credentials, 10000 for a bad token.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "../helpers.ts";

let emulator: Emulator;
const config = testConfig();
beforeEach(async () => {
  ({ emulator } = await emulatorWith({ config }));
});
afterEach(() => emulator.close());

const gateways = () => `${emulator.restUrl}/accounts/${config.accountId}/ai-gateway/gateways`;

async function errorOf(response: Response) {
  const body = (await response.json()) as { success: boolean; errors: { code: number }[] };
  return { status: response.status, success: body.success, code: body.errors[0]?.code };
}

describe("the REST API's token", () => {
  it("without credentials: 400, code 9106", async () => {
    expect(await errorOf(await fetch(gateways()))).toEqual({
      status: 400,
      success: false,
      code: 9106,
    });
  });

  it.each([
    ["another bearer token", { authorization: "Bearer any" }],
    ["the token with a character more", { authorization: "Bearer test-gateway-tokenx" }],
    ["a wrong X-Auth-Key", { "x-auth-key": "anything" }],
  ])("%s: 401, code 10000, and nothing changes", async (_name, headers) => {
    expect(await errorOf(await fetch(gateways(), { headers }))).toEqual({
      status: 401,
      success: false,
      code: 10000,
    });
    const id = config.gateways[0]!.id;
    const allowed = { authorization: `Bearer ${emulator.gatewayToken}` };
    const read = async () => (await fetch(`${gateways()}/${id}`, { headers: allowed })).json();
    const before = await read();
    const changed = await fetch(`${gateways()}/${id}`, {
      method: "PUT",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ id, collect_logs: false }),
    });
    expect(changed.status).toBe(401);
    expect(await read()).toEqual(before);
  });

  it("the emulator's gateway token, as a bearer token or X-Auth-Key", async () => {
    const ways: Record<string, string>[] = [
      { authorization: `Bearer ${emulator.gatewayToken}` },
      { "x-auth-key": emulator.gatewayToken },
    ];
    for (const headers of ways) {
      const response = await fetch(gateways(), { headers });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { success: boolean }).success).toBe(true);
    }
  });
});
