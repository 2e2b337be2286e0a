/**
 * One pass, every problem (issue #27): `judgeConfig`, which `stepwise validate` prints and the
 * Pulumi program enforces, reports every problem of a config in one run, each once — the schema's,
 * the cross-field rules', the dynamic routes', the deploy secrets', model retirement's — so fixing
 * one mistake never uncovers another.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgeConfig } from "../../src/routes/config-verdict.ts";
import {
  type Mistake,
  mistakeKinds,
  mistakesArbitrary,
  plantMistakes,
  skeletonArbitrary,
  withSecureValues,
} from "./planted-mistakes.ts";

const now = Date.parse("2026-12-01T00:00:00Z");

describe("judgeConfig: one pass", () => {
  it("passes every generated config with no mistake planted", () => {
    fc.assert(
      fc.property(skeletonArbitrary, (skeleton) => {
        const planted = plantMistakes(skeleton, []);
        const verdict = judgeConfig(withSecureValues(planted), { now });
        expect(verdict.errors).toEqual([]);
        expect(verdict.warnings).toEqual([]);
        expect(verdict.config).toBeDefined();
      }),
      { numRuns: 150 },
    );
  });

  it("reports every planted mistake in one run, each once, and nothing else", () => {
    fc.assert(
      fc.property(skeletonArbitrary, mistakesArbitrary, (skeleton, mistakes) => {
        const planted = plantMistakes(skeleton, mistakes);
        const verdict = judgeConfig(withSecureValues(planted), { now });
        expect(verdict.errors.map((error) => error.path).sort()).toEqual(
          [...planted.expectedErrors].sort(),
        );
        expect(verdict.warnings).toEqual([]);
        for (const error of verdict.errors) expect(error.message.length).toBeGreaterThan(20);
      }),
      { numRuns: 300, seed: 20261202 },
    );
  });

  it("reports five unrelated planted mistakes as five problems, with lines from the file", () => {
    const skeleton = {
      gateways: [
        {
          routes: [
            {
              dynamic: false,
              steps: [
                { provider: "groq", model: "model-a" },
                { provider: "groq", model: "model-b" },
              ],
            },
          ],
        },
        { routes: [{ dynamic: true, steps: [{ provider: "anthropic", model: "model-a" }] }] },
      ],
    };
    const five: Mistake[] = (
      [
        "badRateTechnique",
        "misspeltProvider",
        "unauthenticatedDynamic",
        "missingByokKey",
        "badCacheTtl",
      ] as const
    ).map((kind) => ({ kind, pick: 1 }));
    expect(five.every((mistake) => mistakeKinds.includes(mistake.kind))).toBe(true);
    const planted = plantMistakes(skeleton, five);
    expect(planted.planted).toHaveLength(5);

    const verdict = judgeConfig(withSecureValues(planted), { now, locate: () => 7 });

    expect(verdict.errors).toHaveLength(5);
    expect(verdict.errors.map((error) => error.path).sort()).toEqual(
      [
        "byokKeys.anthropic",
        "gateways[1].cache.ttl",
        "gateways[1].rateLimit.technique",
        "gateways[0].routes.r0.steps[1].provider",
        "gateways[1].routes.r0",
      ].sort(),
    );
    expect(verdict.errors.every((error) => error.line === 7)).toBe(true);
    expect(verdict.code).toBe("config_invalid");
  });
});
