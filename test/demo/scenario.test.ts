import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import {
  capTimeouts,
  defaultScenario,
  loadScenario,
  phaseSizes,
  runDemo,
} from "../../src/demo/index.ts";

const fixtures = path.resolve(import.meta.dirname, "../__fixtures__/demo");

describe("demo scenarios", () => {
  it("tells the default story in five phases with a revocation before the rotation", () => {
    const scenario = defaultScenario();
    expect(scenario.phases.map((phase) => phase.name)).toEqual([
      "healthy",
      "primary outage",
      "429 storm",
      "revoked key",
      "recovery",
    ]);
    const revoked = scenario.phases[3]!;
    expect(revoked.actions.map((action) => [action.kind, action.provider])).toEqual([
      ["revoke-key", "anthropic"],
      ["rotate-key", "anthropic"],
    ]);
    expect(revoked.actions[0]!.at).toBeLessThan(revoked.actions[1]!.at);
  });

  it("loads the README's scenario file with defaults filled in", async () => {
    const scenario = await loadScenario(path.join(fixtures, "scenario.yaml"));
    expect(scenario.route).toBe("default");
    expect(scenario.phases[1]).toEqual({
      name: "openai down",
      description: "",
      share: 2,
      faults: [{ provider: "openai", kind: "unavailable" }],
      actions: [],
    });
  });

  it("names every bad field of a broken scenario file", async () => {
    const error = await loadScenario(path.join(fixtures, "scenario-broken.yaml")).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: "scenario_invalid" });
    const message = (error as Error).message;
    expect(message).toContain("phases[0].share (line 2)");
    expect(message).toContain("phases[1].faults[0].kind");
    expect(message).toContain("phases[1].actions[0].at");
    expect(message).toContain('"revoke-key"');
  });

  it("splits the calls over the phases by share, losing none", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.01, max: 10, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.nat(5000),
        (shares, total) => {
          const sizes = phaseSizes(
            shares.map((share, index) => ({
              name: `p${index}`,
              description: "",
              share,
              faults: [],
              actions: [],
            })),
            total,
          );
          expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(total);
          sizes.forEach((size, index) => {
            const exact = (shares[index]! / shares.reduce((sum, share) => sum + share, 0)) * total;
            expect(Math.abs(size - exact)).toBeLessThan(1 + 1e-9);
          });
        },
      ),
    );
  });

  it("caps step timeouts for the demo without touching the config's route", () => {
    const route = {
      steps: [
        { provider: "openai", model: "a", timeoutMs: 15_000 },
        { provider: "groq", model: "b" },
      ],
    };
    expect(capTimeouts(route, 1_000).steps.map((step) => step.timeoutMs)).toEqual([1_000, 1_000]);
    expect(
      capTimeouts({ steps: [{ provider: "openai", model: "a", timeoutMs: 200 }] }, 1_000).steps[0]!
        .timeoutMs,
    ).toBe(200);
    expect(route.steps[0]!.timeoutMs).toBe(15_000);
  });

  it("caps the timeouts of every chain of a policy route", () => {
    const route = {
      steps: [{ provider: "openai", model: "a", timeoutMs: 15_000 }],
      chains: { frontier: [{ provider: "anthropic", model: "b", timeoutMs: 20_000 }] },
      policy: [{ when: { tier: "complex" }, use: "frontier" }],
    };
    const capped = capTimeouts(route, 1_000);
    expect(capped.chains?.frontier?.[0]?.timeoutMs).toBe(1_000);
    expect(capped.policy).toBe(route.policy);
    expect(route.chains.frontier[0]!.timeoutMs).toBe(20_000);
  });

  it("sends every other call of the default story to the dev stack's policy route", () => {
    expect(defaultScenario().policyRoute).toBe("assistant");
  });

  it("refuses a policy route that is missing or has no policy, before starting anything", async () => {
    const config = parseConfig({
      accountId: "0123456789abcdef0123456789abcdef",
      gateways: [{ id: "g", routes: { plain: [{ provider: "openai", model: "gpt-4o-mini" }] } }],
      keys: { providers: ["openai"] },
    });
    const run = (policyRoute: string) =>
      runDemo({
        config,
        scenario: { ...defaultScenario(), route: "plain", policyRoute },
        calls: 1,
        concurrency: 1,
        ratePerSecond: 1,
        outDir: "/nonexistent/never-written",
        timeoutCapMs: 100,
        log: () => undefined,
      });
    await expect(run("assistant")).rejects.toMatchObject({
      code: "demo_route_missing",
      message: expect.stringContaining('policyRoute "assistant" is not in gateway "g"'),
    });
    await expect(run("plain")).rejects.toMatchObject({
      message: expect.stringContaining("a route without a policy"),
    });
  });
});
