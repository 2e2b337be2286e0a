/**
 * The versioned dynamic-route provider (routes with a percentage split, which
 * `AiGatewayDynamicRouting` cannot hold): the requests it makes to Cloudflare's API through the
 * `cloudflare` SDK (msw) — create; a new version and its deployment for a changed graph; a rename;
 * delete, a route already gone counting as deleted; taking over a route of the same name — and the
 * same calls against the emulator, where the deployed version then serves `dynamic/<route>`.
 */
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { startEmulator } from "../../src/emulator/index.ts";
import { canonicalJson } from "../../src/pulumi/dynamic-route.ts";
import {
  type VersionedRouteInputs,
  type VersionedRouteOutputs,
  versionedRouteProvider,
} from "../../src/pulumi/versioned-route.ts";
import { compileDynamicRoute, type RouteElement } from "../../src/routes/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const api = "https://api.cloudflare.com/client/v4";
const routesPath = `${api}/accounts/${accountId}/ai-gateway/gateways/chat/routes`;

const to = (elementId: string) => ({ elementId });
const model = (id: string, provider: string, name: string): RouteElement => ({
  id,
  type: "model",
  properties: { provider, model: name },
  outputs: { success: to("end"), fallback: to("end") },
});
const splitGraph = (share: number): RouteElement[] => [
  { id: "start", type: "start", outputs: { next: to("rule-0-split") } },
  {
    id: "rule-0-split",
    type: "percentage",
    outputs: { [`${share}%`]: to("candidate-model-0"), else: to("model-0") },
  },
  model("candidate-model-0", "openai", "gpt-4.1-mini"),
  model("model-0", "openai", "gpt-4o-mini"),
  { id: "end", type: "end", outputs: {} },
];

const inputs: VersionedRouteInputs = {
  accountId,
  gatewayId: "chat",
  name: "assistant",
  elementsJson: canonicalJson(splitGraph(10)),
  apiToken: "cf-token-test",
};

const routeBody = (id: string, name: string, versionId: string) => ({
  id,
  name,
  gateway_id: "chat",
  created_at: "2026-04-01T00:00:00Z",
  modified_at: "2026-04-01T00:00:00Z",
  elements: [],
  deployment: { deployment_id: `dep-${versionId}`, version_id: versionId, created_at: "x" },
  version: { version_id: versionId, active: "true", created_at: "x", data: "{}" },
});
const envelope = (result: unknown) => ({ success: true, errors: [], messages: [], result });

let existing: { id: string; name: string }[] = [];
const calls: { method: string; path: string; authorization: string | null; body: unknown }[] = [];
const record = async (request: Request) => {
  calls.push({
    method: request.method,
    path: new URL(request.url).pathname.replace(`/client/v4/accounts/${accountId}`, ""),
    authorization: request.headers.get("authorization"),
    body: request.method === "GET" || request.method === "DELETE" ? null : await request.json(),
  });
};
const server = setupServer(
  http.get(routesPath, async ({ request }) => {
    await record(request);
    return HttpResponse.json({
      success: true,
      data: {
        routes: existing,
        page: 1,
        per_page: 100,
        order_by: "name",
        order_by_direction: "asc",
      },
    });
  }),
  http.post(routesPath, async ({ request }) => {
    await record(request);
    return HttpResponse.json(envelope(routeBody("route-1", "assistant", "v1")));
  }),
  http.post(`${routesPath}/:id/versions`, async ({ request }) => {
    await record(request);
    return HttpResponse.json(
      envelope({ ...routeBody("route-1", "assistant", "v1"), version_id: "v2" }),
    );
  }),
  http.post(`${routesPath}/:id/deployments`, async ({ request }) => {
    await record(request);
    return HttpResponse.json(envelope(routeBody("route-1", "assistant", "v2")));
  }),
  http.patch(`${routesPath}/:id`, async ({ request }) => {
    await record(request);
    return HttpResponse.json(envelope(routeBody("route-1", "helper", "v2")));
  }),
  http.delete(`${routesPath}/:id`, async ({ request, params }) => {
    await record(request);
    if (params.id === "gone") {
      return HttpResponse.json(
        { success: false, errors: [{ code: 7003, message: "not found" }], messages: [] },
        { status: 404 },
      );
    }
    return HttpResponse.json(envelope({ id: params.id }));
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => {
  server.resetHandlers();
  calls.length = 0;
  existing = [];
});
afterAll(() => server.close());

describe("the versioned dynamic-route provider against Cloudflare's API (msw)", () => {
  it("creates the route with its exact elements and keeps the deployed version", async () => {
    const created = await versionedRouteProvider.create!(inputs);
    expect(calls).toEqual([
      {
        method: "GET",
        path: "/ai-gateway/gateways/chat/routes",
        authorization: "Bearer cf-token-test",
        body: null,
      },
      {
        method: "POST",
        path: "/ai-gateway/gateways/chat/routes",
        authorization: "Bearer cf-token-test",
        body: { name: "assistant", elements: splitGraph(10) },
      },
    ]);
    expect(created).toEqual({
      id: "route-1",
      outs: { ...inputs, versionId: "v1", deploymentId: "dep-v1" },
    });
  });

  it("takes over a route of the same name: deletes it, then creates", async () => {
    existing = [{ id: "old-route", name: "assistant" }];
    await versionedRouteProvider.create!(inputs);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      "GET /ai-gateway/gateways/chat/routes",
      "DELETE /ai-gateway/gateways/chat/routes/old-route",
      "POST /ai-gateway/gateways/chat/routes",
    ]);
  });

  it("updates a changed graph as a new version, deployed, and a new name as a rename", async () => {
    const olds: VersionedRouteOutputs = { ...inputs, versionId: "v1", deploymentId: "dep-v1" };
    const news = { ...inputs, name: "helper", elementsJson: canonicalJson(splitGraph(20)) };
    expect(await versionedRouteProvider.diff!("route-1", olds, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: true,
    });
    const updated = await versionedRouteProvider.update!("route-1", olds, news);
    expect(calls).toEqual([
      {
        method: "POST",
        path: "/ai-gateway/gateways/chat/routes/route-1/versions",
        authorization: "Bearer cf-token-test",
        body: { elements: splitGraph(20) },
      },
      {
        method: "POST",
        path: "/ai-gateway/gateways/chat/routes/route-1/deployments",
        authorization: "Bearer cf-token-test",
        body: { version_id: "v2" },
      },
      {
        method: "PATCH",
        path: "/ai-gateway/gateways/chat/routes/route-1",
        authorization: "Bearer cf-token-test",
        body: { name: "helper" },
      },
    ]);
    expect(updated.outs).toEqual({ ...news, versionId: "v2", deploymentId: "dep-v2" });
  });

  it("replaces the route only for another account or gateway, and sees no change in an equal graph", async () => {
    const olds: VersionedRouteOutputs = { ...inputs, versionId: "v1" };
    expect(await versionedRouteProvider.diff!("route-1", olds, { ...inputs })).toMatchObject({
      changes: false,
    });
    expect(
      await versionedRouteProvider.diff!("route-1", olds, { ...inputs, gatewayId: "other" }),
    ).toMatchObject({ changes: true, replaces: ["gatewayId"], deleteBeforeReplace: true });
  });

  it("deletes by id, and a route already gone counts as deleted", async () => {
    const props: VersionedRouteOutputs = { ...inputs, versionId: "v1" };
    await versionedRouteProvider.delete!("route-1", props);
    await versionedRouteProvider.delete!("gone", props);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([
      "DELETE /ai-gateway/gateways/chat/routes/route-1",
      "DELETE /ai-gateway/gateways/chat/routes/gone",
    ]);
  });
});

describe("the versioned dynamic-route provider against the emulator", () => {
  it("deploys a split route, then a new version of it, which the gateway serves", async () => {
    server.close();
    const config = parseConfig({
      accountId,
      gateways: [
        {
          id: "chat",
          authentication: true,
          byok: { providers: ["openai", "groq"] },
          routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
        },
      ],
    });
    let draw = 0.05;
    const emulator = await startEmulator({ config, random: () => draw, onError: () => undefined });
    const ask = async () => {
      const response = await fetch(`${emulator.compatUrl("chat")}/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-aig-authorization": `Bearer ${emulator.gatewayToken}`,
        },
        body: JSON.stringify({
          model: "dynamic/trial",
          messages: [{ role: "user", content: "hi" }],
        }),
      });
      await response.text();
      return response.headers.get("cf-aig-model");
    };
    try {
      const route = (split: Record<string, number>) =>
        parseConfig({
          accountId,
          gateways: [
            {
              id: "chat",
              routes: {
                trial: {
                  steps: [{ provider: "openai", model: "gpt-4o-mini" }],
                  chains: { candidate: [{ provider: "groq", model: "llama-3.3-70b" }] },
                  policy: [{ split }],
                },
              },
            },
          ],
          keys: { providers: ["openai", "groq"] },
        }).gateways[0]!.routes.trial!;
      const target = {
        ...inputs,
        name: "trial",
        elementsJson: canonicalJson(compileDynamicRoute(route({ candidate: 10 }))),
        baseUrl: emulator.restUrl,
        // The emulator's REST API checks its token, as Cloudflare's does.
        apiToken: emulator.gatewayToken,
      };
      const created = await versionedRouteProvider.create!(target);
      expect(await ask()).toBe("llama-3.3-70b");
      draw = 0.15;
      expect(await ask()).toBe("gpt-4o-mini");
      const next = {
        ...target,
        elementsJson: canonicalJson(compileDynamicRoute(route({ candidate: 20 }))),
      };
      const updated = await versionedRouteProvider.update!(created.id, created.outs, next);
      expect(updated.outs.versionId).not.toBe(created.outs.versionId);
      // The same route, its second version live: 15 % now falls in the candidate's 20 %.
      expect(await ask()).toBe("llama-3.3-70b");
      const stored = emulator.state.gateways.get("chat")!.routes.get(created.id)!;
      expect(stored.versions).toHaveLength(2);
      await versionedRouteProvider.delete!(created.id, updated.outs as VersionedRouteOutputs);
      expect(emulator.state.gateways.get("chat")!.routes.byName("trial")).toBeUndefined();
    } finally {
      await emulator.close();
      server.listen({ onUnhandledRequest: "error" });
    }
  });
});
