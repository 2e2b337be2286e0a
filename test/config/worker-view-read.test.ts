/**
 * The companion Worker reads its view with a hand-written reader (`src/config/worker-view-read.ts`)
 * so its bundle carries no zod; the build side keeps `workerViewSchema`. This table holds the two
 * to one document: every view either read by both to the same value (defaults filled), or refused
 * by both with a `config_invalid` naming the same fields.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  loadConfig,
  parseWorkerView,
  type WorkerView,
  workerView,
} from "../../src/config/index.ts";
import { readWorkerView } from "../../src/config/worker-view-read.ts";

const root = new URL("../..", import.meta.url).pathname;
let dev: WorkerView;

beforeAll(async () => {
  const { config } = await loadConfig({ stack: "dev", cwd: root });
  dev = workerView(config);
});

/** What a reader made of `input`: the view, or the paths of its issues. */
function outcome(read: () => WorkerView): { view: WorkerView } | { paths: string[] } {
  try {
    return { view: read() };
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    expect(error.code).toBe("config_invalid");
    return { paths: [...new Set(error.issues.map((issue) => issue.path))].sort() };
  }
}

function expectSame(input: unknown) {
  const bySchema = outcome(() => parseWorkerView(input));
  const byHand = outcome(() => readWorkerView(input));
  expect(byHand, JSON.stringify(input)?.slice(0, 200)).toEqual(bySchema);
}

/** The dev view with `change` applied to a deep copy. */
// biome-ignore lint/suspicious/noExplicitAny: each case edits the view's JSON freely
type Editable = Record<string, any>;

function devWith(change: (view: Editable) => void): unknown {
  const copy = structuredClone(dev) as Editable;
  change(copy);
  return copy;
}

const cases: [string, (view: Editable) => void][] = [
  ["the dev stack's view", () => {}],
  ["another version", (v) => (v.version = 2)],
  ["no version", (v) => delete v.version],
  ["a bad account id", (v) => (v.accountId = "ABC")],
  ["no gateways", (v) => (v.gateways = [])],
  ["gateways not a list", (v) => (v.gateways = {})],
  ["a bad gateway id", (v) => (v.gateways[0].id = "Chat Prod")],
  ["an unknown gateway field", (v) => (v.gateways[0].routes = {})],
  ["a cache TTL of 30 s", (v) => (v.gateways[0].cache = { ttl: 30 })],
  ["a cache TTL of 1.5 s", (v) => (v.gateways[0].cache = { ttl: 1.5 })],
  ["shared cache", (v) => (v.gateways[0].cache = { ttl: 0, shareBetweenApps: true })],
  ["shareBetweenApps not boolean", (v) => (v.gateways[0].cache = { ttl: 60, shareBetweenApps: 1 })],
  ["empty byok", (v) => (v.gateways[0].byok = { providers: [] })],
  ["byok of an unknown provider", (v) => (v.gateways[0].byok = { providers: ["nope"] })],
  ["byok of a custom provider", (v) => (v.gateways[0].byok = { providers: ["custom-acme"] })],
  ["a negative price", (v) => (v.models["openai/gpt-4o-mini"] = { input: -1, output: 1 })],
  ["a bad model key", (v) => (v.models.gpt = { input: 1, output: 1 })],
  ["a price with retires", (v) => (v.models["openai/x"] = { input: 1, output: 1, retires: {} })],
  ["probes of an unlisted gateway", (v) => (v.probes.elsewhere = ["openai/gpt-4o"])],
  ["probes not a list", (v) => (v.probes[v.gateways[0].id] = "openai/gpt-4o")],
  ["keys left to their defaults", (v) => (v.keys = {})],
  ["keys of an unknown provider", (v) => (v.keys.providers = ["nope"])],
  ["a history of 0 hours", (v) => (v.keys.historyHours = 0)],
  ["a grace of 3601 s", (v) => (v.keys.graceSeconds = 3601)],
  ["caps with rpm", (v) => (v.keys.caps = { openai: { rpm: 60 } })],
  ["caps with neither", (v) => (v.keys.caps = { openai: {} })],
  ["caps of 0 rpm", (v) => (v.keys.caps = { openai: { rpm: 0 } })],
  ["caps of an unknown provider", (v) => (v.keys.caps = { nope: { tpm: 5 } })],
  ["worker left to its defaults", (v) => (v.worker = {})],
  ["a gateway URL with spaces", (v) => (v.worker.gatewayUrl = "  http://127.0.0.1:8787  ")],
  ["a gateway URL that is not one", (v) => (v.worker.gatewayUrl = "gateway")],
  ["an app limit of 0", (v) => (v.worker.appRateLimit = { limit: 0, windowSeconds: 60 })],
  ["a health probe left to its defaults", (v) => (v.worker.healthProbe = {})],
  [
    "a health probe's slowMsPerModel",
    (v) => (v.worker.healthProbe = { slowMsPerModel: { openai: 10, "openai/gpt-4o": 20 } }),
  ],
  [
    "a bad slowMsPerModel key",
    (v) => (v.worker.healthProbe = { slowMsPerModel: { "Open AI": 10 } }),
  ],
  ["probation of a day and a second", (v) => (v.worker.healthProbe = { probationSeconds: 86_401 })],
  ["an unknown worker field", (v) => (v.worker.cron = "* * * * *")],
  ["an unknown top-level field", (v) => (v.routes = {})],
  [
    "two problems",
    (v) => {
      v.accountId = 1;
      v.keys.maxAgeDays = 0;
    },
  ],
];

describe("the Worker's view reader reads what workerViewSchema does", () => {
  it.each(cases)("%s", (_, change) => {
    expectSame(devWith(change));
  });

  it.each([
    ["JSON text", () => JSON.stringify(dev)],
    ["text that is not JSON", () => "{"],
    ["null", () => null],
    ["a list", () => []],
  ])("%s", (_, input) => {
    expectSame(input());
  });

  it("says what to do about another version", () => {
    expect(() => readWorkerView(devWith((v) => (v.version = 2)))).toThrow(/version must be 1/);
  });
});
