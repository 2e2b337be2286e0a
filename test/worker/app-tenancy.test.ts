/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * Apps are tenants (issue #23): what an app sends reaches the gateway scoped to the app its token
 * names, whatever endpoint it calls. Before, `cf-aig-custom-cost: {"per_token_in":0,…}` (cost 0
 * dodges spend limits), `cf-aig-collect-log: false` (no log record), `cf-aig-byok-alias` (another
 * team's stored key), `cf-aig-metadata: {"app":"victim"}` and `cf-aig-event-id` all reached the
 * gateway unchanged. The Worker in workerd, in front of the harness's recording gateway.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { accountId, createHarness, defaultGateway, type Harness } from "./harness.ts";

afterEach(async () => {
  await reset();
});

const controls = {
  "cf-aig-custom-cost": '{"per_token_in":0,"per_token_out":0}',
  "cf-aig-collect-log": "false",
  "cf-aig-collect-log-payload": "false",
  "cf-aig-byok-alias": "other-team",
};

async function createApp(harness: Harness, name: string, allow?: Record<string, unknown>) {
  const response = await harness.call("POST", "/app-tokens", {
    body: allow === undefined ? { name } : { name, allow },
  });
  expect(response.status, response.text).toBe(201);
  return response.json() as { id: string; token: string; allow: Record<string, unknown> };
}

async function withKeys(): Promise<Harness> {
  const harness = createHarness();
  await harness.rotate("openai", "sk-openai-tenancy-0001");
  await harness.rotate("anthropic", "sk-ant-tenancy-000001");
  harness.acceptKeys("openai", "sk-openai-tenancy-0001");
  return harness;
}

const compatPath = `/v1/${accountId}/chat/compat/chat/completions`;
const compatBody = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

describe("gateway controls from apps", () => {
  it("drops custom cost, collect-log(-payload) and the BYOK alias on every endpoint unless allowed", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "plain");
    const calls = [
      { path: compatPath, body: compatBody },
      { path: `/v1/${accountId}/chat/openai/v1/chat/completions`, body: compatBody },
      {
        path: `/v1/${accountId}/chat`,
        body: [
          {
            provider: "openai",
            endpoint: "chat/completions",
            headers: { "content-type": "application/json", ...controls },
            query: compatBody,
          },
        ],
      },
    ];
    for (const { path, body } of calls) {
      const response = await harness.call("POST", path, {
        token: app.token,
        body,
        headers: controls,
      });
      expect(response.status, path).toBe(200);
      const sent = harness.gatewayCalls.at(-1)!;
      for (const name of Object.keys(controls)) {
        expect(sent.headers[name], `${path} ${name}`).toBeUndefined();
      }
      expect(sent.body).not.toContain("cf-aig-");
    }
  });

  it("passes the controls an app's record allows, and only those", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "billing", {
      controls: ["cf-aig-custom-cost", "cf-aig-collect-log"],
    });
    expect(app.allow).toEqual({ controls: ["cf-aig-custom-cost", "cf-aig-collect-log"] });
    await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: controls,
    });
    const sent = harness.gatewayCalls.at(-1)!.headers;
    expect(sent["cf-aig-custom-cost"]).toBe(controls["cf-aig-custom-cost"]);
    expect(sent["cf-aig-collect-log"]).toBe("false");
    expect(sent["cf-aig-collect-log-payload"]).toBeUndefined();
    expect(sent["cf-aig-byok-alias"]).toBeUndefined();
  });

  it("the admin API refuses a control it does not know, without echoing it", async () => {
    const harness = createHarness();
    const response = await harness.call("POST", "/app-tokens", {
      body: { name: "x", allow: { controls: ["cf-aig-authorization"] } },
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe("invalid_body");
    expect(response.json().error.message).toContain("controls");
  });
});

describe("metadata and event ids", () => {
  it("an app cannot claim another's name in cf-aig-metadata: the Worker writes app itself", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "attacker");
    await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-metadata": '{"app":"victim","route":"default","user":"u1"}' },
    });
    expect(JSON.parse(harness.gatewayCalls.at(-1)!.headers["cf-aig-metadata"]!)).toEqual({
      app: app.id,
      route: "default",
      user: "u1",
    });
    // A universal step's own metadata would win at the gateway; it never gets there.
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: { "cf-aig-metadata": '{"app":"victim"}', "cf-aig-event-id": "victim:1" },
          query: compatBody,
        },
      ],
    });
    const sent = harness.gatewayCalls.at(-1)!;
    expect(JSON.parse(sent.headers["cf-aig-metadata"]!)).toEqual({ app: app.id });
    expect(sent.body).not.toContain("victim");
    // Analytics Engine keeps the metadata as sent upstream.
    expect(harness.events[0]!.blobs).toEqual(
      expect.arrayContaining([`app=${app.id}`, "route=default", "user=u1"]),
    );
  });

  it("refuses malformed metadata with a JSON 400 before anything goes upstream", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "sloppy");
    const response = await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-metadata": '{"team":{"nested":true}}' },
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe("invalid_metadata");
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("the event id goes upstream as <app>:<id>, comes back as the app sent it, and is kept prefixed in Analytics Engine", async () => {
    const harness = await withKeys();
    harness.setGateway(async (call, keys) => {
      const answer = await defaultGateway(call, keys);
      const headers = new Headers(answer.headers);
      const eventId = call.headers["cf-aig-event-id"];
      if (eventId !== undefined) headers.set("cf-aig-event-id", eventId);
      return new Response(answer.body, { status: answer.status, headers });
    });
    const app = await createApp(harness, "events");
    const response = await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-event-id": "call-42" },
    });
    expect(harness.gatewayCalls.at(-1)!.headers["cf-aig-event-id"]).toBe(`${app.id}:call-42`);
    expect(response.headers.get("cf-aig-event-id")).toBe("call-42");
    expect(harness.events).toHaveLength(1);
    expect(harness.events[0]!.blobs).toContain(`${app.id}:call-42`);
  });
});
