/**
 * Each step's credential path as `stepwise validate` lists it (`listStepCredentials`), and a
 * dynamic route whose providers' keys the config sends some other way than BYOK: the error names
 * the path chosen, since Cloudflare runs `dynamic/<route>` with the keys stored in the gateway.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.ts";
import { judgeConfig } from "../../src/routes/config-verdict.ts";
import { listStepCredentials, stepCredentialLine } from "../../src/routes/credential-listing.ts";

const accountId = "0123456789abcdef0123456789abcdef";

describe("listStepCredentials", () => {
  it("lists every chain's steps, naming a dynamic route's stored keys", () => {
    const config = parseConfig({
      accountId,
      gateways: [
        {
          id: "chat",
          authentication: true,
          byok: { providers: ["anthropic"] },
          providerCredentials: { anthropic: "request" },
          routes: {
            default: {
              steps: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
            },
            cheap: {
              dynamic: false,
              steps: [{ provider: "groq", model: "llama-3.1-8b-instant" }],
            },
          },
        },
      ],
      keys: { providers: ["groq"] },
    });
    expect(listStepCredentials(config).map(stepCredentialLine)).toEqual([
      "step 0 anthropic/claude-sonnet-4-5 — key sent by the app on the request; as dynamic/default, the key stored in the gateway",
      "step 0 groq/llama-3.1-8b-instant — key from the companion Worker",
    ]);
  });
});

describe("a dynamic route on keys that are not stored", () => {
  it("says the route ignores the path the config chose, and how to fix it", () => {
    const verdict = judgeConfig({
      accountId,
      gateways: [
        {
          id: "research",
          authentication: true,
          credentials: "unified-billing",
          routes: { default: [{ provider: "openai", model: "gpt-4o" }] },
        },
      ],
    });
    expect(verdict.errors.map((error) => [error.path, error.message])).toEqual([
      [
        "gateways[0].routes.default.steps[0].provider",
        expect.stringContaining(
          "(its credentials are unified-billing, which a dynamic route does not use: Cloudflare runs it with stored keys)",
        ),
      ],
    ]);
    expect(verdict.errors[0]!.message).toContain('set dynamic: false on route "default"');
  });
});
