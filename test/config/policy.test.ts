/**
 * The routing policy in the config: a route's named chains and ordered rules (when, use, split,
 * budget) parse as written, and every mistake is one problem at the field to fix, with its YAML
 * line and the fix in the message.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, readConfigText } from "../../src/config/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const fixtures = path.resolve(import.meta.dirname, "../__fixtures__/config");

function configWith(route: unknown, models: Record<string, unknown> = {}) {
  return {
    accountId,
    gateways: [{ id: "chat", routes: { assistant: route } }],
    keys: { providers: ["openai", "anthropic", "groq", "workers-ai"] },
    models,
  };
}

const steps = [{ provider: "openai", model: "gpt-4o-mini" }];
const chains = {
  frontier: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
  economy: [{ provider: "groq", model: "llama-3.1-8b-instant" }],
};

function problemsOf(input: unknown): { path: string; message: string }[] {
  try {
    parseConfig(input);
  } catch (error) {
    if (ConfigError.isInstance(error))
      return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  throw new Error("expected the config to be rejected");
}

const at = "gateways[0].routes.assistant";

describe("a route's policy", () => {
  it("parses chains and rules as written", () => {
    const policy = [
      { when: { plan: "free" }, use: "economy" },
      {
        when: { plan: "pro", tier: ["complex"] },
        use: "frontier",
        budget: { per: "plan", cost: 0.5, windowSeconds: 3600, over: "default" },
      },
      { when: { plan: { not: ["free", "pro"] } }, split: { economy: 10 } },
    ];
    const route = parseConfig(configWith({ steps, chains, policy })).gateways[0]!.routes.assistant!;
    expect(route.chains).toEqual(chains);
    expect(route.policy).toEqual(policy);
  });

  it.each([
    [
      "a rule naming a chain the route lacks",
      { steps, chains, policy: [{ when: { plan: "free" }, use: "cheap" }] },
      `${at}.policy[0].use`,
      /names chain "cheap", which route "assistant" does not declare: use one of default, frontier, economy/,
    ],
    [
      "a chain no rule uses",
      { steps, chains, policy: [{ when: { plan: "free" }, use: "economy" }] },
      `${at}.chains.frontier`,
      /chain "frontier" of route "assistant" is used by no rule: name it in a rule's use, split or budget.over, or remove it/,
    ],
    [
      "chains without a policy",
      { steps, chains },
      `${at}.chains`,
      /declares chains \(frontier, economy\) but no policy picks them/,
    ],
    [
      "a catch-all rule before others",
      {
        steps,
        chains,
        policy: [{ use: "economy" }, { when: { plan: "pro" }, use: "frontier" }],
      },
      `${at}.policy[0]`,
      /rule 0 has no when, so it takes every request and rule 1 is never reached: give it a when, or move it last/,
    ],
    [
      "split shares over 100 %",
      { steps, chains, policy: [{ split: { economy: 60, frontier: 50 } }] },
      `${at}.policy[0].split`,
      /split shares add up to 110 %: they may add up to at most 100/,
    ],
    [
      "two split shares Cloudflare could not tell apart",
      { steps, chains, policy: [{ split: { economy: 10, frontier: 10 } }] },
      `${at}.policy[0].split.frontier`,
      /both take 10 %.*give them different shares \(e\.g\. 10 and 11\)/,
    ],
    [
      "a use a full split never reaches",
      { steps, chains, policy: [{ split: { economy: 40, frontier: 60 }, use: "default" }] },
      `${at}.policy[0].use`,
      /split already sends 100 % of its requests, so use: default is never taken/,
    ],
    [
      "a budget that changes nothing",
      {
        steps,
        chains,
        policy: [
          {
            use: "economy",
            budget: { per: "user", requests: 5, windowSeconds: 60, over: "economy" },
          },
          { when: { plan: "x" }, use: "frontier" },
        ].reverse(),
      },
      `${at}.policy[1].budget.over`,
      /takes chain "economy" within its budget and over it alike, so the budget changes nothing/,
    ],
    [
      "a budget counting both requests and cost",
      {
        steps,
        chains,
        policy: [
          {
            use: "frontier",
            budget: { per: "user", requests: 5, cost: 1, windowSeconds: 60, over: "economy" },
          },
        ],
      },
      `${at}.policy[0].budget`,
      /give exactly one of budget.requests \(a count\) or budget.cost \(USD\)/,
    ],
    [
      "more metadata keys than Cloudflare keeps",
      {
        steps,
        chains,
        policy: [
          { when: { a: 1, b: 2, c: 3 }, use: "economy" },
          { when: { d: 4, e: 5, f: 6 }, use: "frontier" },
        ],
      },
      `${at}.policy`,
      /reads 6 metadata keys \(a, b, c, d, e, f\), but Cloudflare keeps only 5 cf-aig-metadata entries/,
    ],
    [
      "a chain named default",
      { steps, chains: { default: steps }, policy: [{ split: { default: 5 } }] },
      `${at}.chains`,
      /"default" names the route's steps; give this chain another name/,
    ],
    [
      "a metadata key that cannot be sent",
      {
        steps,
        chains,
        policy: [{ when: { "user id": "x" }, use: "economy" }, { use: "frontier" }],
      },
      `${at}.policy[0].when."user id"`,
      /metadata keys use letters, digits, - and _/,
    ],
    [
      "a nested condition",
      {
        steps,
        chains,
        policy: [{ when: { plan: { eq: "free" } }, use: "economy" }, { use: "frontier" }],
      },
      `${at}.policy[0].when.plan`,
      /a condition is a value \(plan: free\), a list of values .* or \{ not: value \}/,
    ],
  ])("refuses %s, at the field, with the fix", (_name, route, path, message) => {
    const problems = problemsOf(configWith(route)).filter((problem) => problem.path === path);
    expect(problems.map((problem) => problem.message)).toEqual([expect.stringMatching(message)]);
  });

  it("checks steps in every chain as it checks the route's steps", () => {
    const problems = problemsOf(
      configWith({
        steps,
        deadlineMs: 1000,
        chains: {
          frontier: [
            { provider: "mistral", model: "mistral-large-latest" },
            { provider: "anthropic", model: "claude-sonnet-4-5", timeoutMs: 5000 },
          ],
        },
        policy: [{ use: "frontier" }],
      }),
    );
    expect(problems).toEqual([
      {
        path: `${at}.chains.frontier[0].provider`,
        message: expect.stringMatching(/provider "mistral" has no key/),
      },
      {
        path: `${at}.chains.frontier[1].timeoutMs`,
        message: expect.stringMatching(/timeoutMs 5000 is longer than the route's deadlineMs 1000/),
      },
    ]);
  });

  it("reports each problem of a stack file with its line, in file order", async () => {
    const file = path.join(fixtures, "Pulumi.policy-broken.yaml");
    const text = await readFile(file, "utf8");
    let caught: unknown;
    try {
      readConfigText(text, "Pulumi.policy-broken.yaml");
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    const issues = (caught as ConfigError).issues.map(({ path, line }) => `${line} ${path}`);
    expect(issues).toEqual([
      // A problem with a key is on the key's line (validate's rule): `forgotten:`.
      `16 ${at}.chains.forgotten`,
      `20 ${at}.policy[0].use`,
      `21 ${at}.policy[1]`,
      `21 ${at}.policy[1].split.economy`,
      `24 ${at}.policy[2].budget`,
      '29 models."openai/gpt-4o-mini".retires.date',
      '29 models."openai/gpt-4o-mini".retires.replacement',
    ]);
    expect((caught as ConfigError).message).toContain(
      `${at}.policy[0].use (line 20): rule 0's use names chain "econmy"`,
    );
  });
});

describe("model retirement in stepwise:models", () => {
  it("takes a quoted day, and a date-time as its day", () => {
    const config = parseConfig(
      configWith(
        { steps },
        {
          "openai/gpt-4o-mini": {
            input: 0.15,
            output: 0.6,
            retires: { date: "2026-07-14", replacement: "openai/gpt-4.1-mini" },
          },
          "groq/old": {
            input: 0,
            output: 0,
            retires: { date: new Date("2026-08-01T00:00:00Z"), replacement: "groq/new" },
          },
        },
      ),
    );
    expect(config.models["openai/gpt-4o-mini"]!.retires).toEqual({
      date: "2026-07-14",
      replacement: "openai/gpt-4.1-mini",
    });
    expect(config.models["groq/old"]!.retires!.date).toBe("2026-08-01");
  });

  it("refuses a replacement that is not provider/model", () => {
    const problems = problemsOf(
      configWith(
        { steps },
        {
          "openai/gpt-4o-mini": {
            input: 1,
            output: 1,
            retires: { date: "2026-07-14", replacement: "gpt-4.1-mini" },
          },
        },
      ),
    );
    expect(problems).toEqual([
      {
        path: 'models."openai/gpt-4o-mini".retires.replacement',
        message: 'model keys are "<provider>/<model>", e.g. openai/gpt-4o-mini',
      },
    ]);
  });
});
