/**
 * The REST subset the `cloudflare` SDK calls for logs beyond listing: the stored request and
 * response bodies (`logs.request`, `logs.response`), human feedback (`logs.edit`), and datasets.
 */
import Cloudflare from "cloudflare";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import {
  accountId,
  collect,
  emulatorWith,
  postJson,
  testConfig,
  universalBody,
} from "./helpers.ts";

let emulator: Emulator;
let client: Cloudflare;
const config = testConfig();
beforeEach(async () => {
  emulator = (await emulatorWith({ config })).emulator;
  client = new Cloudflare({
    apiToken: emulator.gatewayToken,
    baseURL: emulator.restUrl,
    maxRetries: 0,
  });
});
afterEach(() => emulator.close());

const where = { account_id: accountId, gateway_id: "open" };

describe("log bodies, feedback and datasets through the cloudflare SDK", () => {
  it("returns the request and response bodies of a logged step", async () => {
    const body = universalBody(config, "open");
    const response = await postJson(emulator.gatewayUrl("open"), body);
    const answer = await response.json();
    const logId = response.headers.get("cf-aig-log-id")!;
    expect(await client.aiGateway.logs.request(logId, where)).toEqual(body[0]!.query);
    expect(await client.aiGateway.logs.response(logId, where)).toEqual(answer);
    const record = await client.aiGateway.logs.get(logId, where);
    expect(record).toMatchObject({ request_head_complete: true, response_head_complete: true });
  });

  it("keeps no bodies under cf-aig-collect-log-payload: false, and says why", async () => {
    const response = await postJson(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      "cf-aig-collect-log-payload": "false",
    });
    await response.text();
    const logId = response.headers.get("cf-aig-log-id")!;
    await expect(client.aiGateway.logs.request(logId, where)).rejects.toThrow(/no stored request/);
    expect(await client.aiGateway.logs.get(logId, where)).toMatchObject({ id: logId });
  });

  it("records feedback, score and metadata with logs.edit, and filters by them", async () => {
    const response = await postJson(emulator.gatewayUrl("open"), universalBody(config, "open"));
    await response.text();
    const logId = response.headers.get("cf-aig-log-id")!;
    await client.aiGateway.logs.edit(logId, {
      ...where,
      feedback: 1,
      score: 90,
      metadata: { reviewer: "ada" },
    });
    const record = (await client.aiGateway.logs.get(logId, where)) as unknown as Record<
      string,
      unknown
    >;
    expect(record).toMatchObject({ feedback: 1, score: 90, metadata: '{"reviewer":"ada"}' });
    await expect(client.aiGateway.logs.edit(logId, { ...where, feedback: 7 })).rejects.toThrow(
      /feedback is -1, 0 or 1/,
    );
  });

  it("creates, lists, replaces and deletes datasets", async () => {
    const created = await client.aiGateway.datasets.create("open", {
      account_id: accountId,
      name: "good answers",
      enable: true,
      filters: [{ key: "feedback", operator: "eq", value: [1] }],
    });
    expect(created).toMatchObject({ name: "good answers", gateway_id: "open", enable: true });
    const updated = await client.aiGateway.datasets.update(created.id, {
      ...where,
      name: "good answers",
      enable: false,
      filters: [{ key: "provider", operator: "eq", value: ["openai"] }],
    });
    expect(updated).toMatchObject({ enable: false });
    const listed = await collect(client.aiGateway.datasets.list("open", { account_id: accountId }));
    expect(listed.map((dataset) => dataset.id)).toEqual([created.id]);
    await client.aiGateway.datasets.delete(created.id, where);
    await expect(client.aiGateway.datasets.get(created.id, where)).rejects.toThrow(/not found/);
    await expect(
      client.aiGateway.datasets.create("open", {
        account_id: accountId,
        name: "bad",
        enable: true,
        filters: [{ key: "nope" as never, operator: "eq", value: [1] }],
      }),
    ).rejects.toThrow(/filter key/);
  });
});
