/**
 * How keys reach providers (issue #25 item 3, #27's last bullet): a gateway's `credentials`,
 * `providerCredentials` and `byokOnly`, and the combinations Cloudflare would refuse. The spec:
 * features/unified-billing.mdx, configuration/bring-your-own-keys.mdx and the changelog entries
 * 2026-09-14 ("AI Gateway can require provider credentials") and 2026-10-05.
 */
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  describeCredentialPath,
  parseConfig,
  resolveCredentialPath,
} from "../../src/config/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";
type Json = Record<string, unknown>;

function config(gateway: Json, rest: Json = {}): Json {
  return {
    accountId,
    gateways: [
      {
        id: "chat",
        routes: {
          default: [
            { provider: "anthropic", model: "claude-sonnet-4-5" },
            { provider: "openai", model: "gpt-4o-mini" },
          ],
        },
        ...gateway,
      },
    ],
    ...rest,
  };
}

function problemsOf(input: unknown): { path: string; message: string }[] {
  try {
    parseConfig(input);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) {
      return error.issues.map(({ path, message }) => ({ path, message }));
    }
    throw error;
  }
}

function pathsOf(input: Json, provider: string) {
  const parsed = parseConfig(input);
  const gateway = parsed.gateways[0]!;
  return resolveCredentialPath(provider, {
    gatewayPath: gateway.credentials,
    providerPaths: gateway.providerCredentials ?? {},
    byokProviders: new Set(gateway.byok?.providers ?? []),
    workerProviders: new Set(parsed.keys.providers),
  });
}

describe("credential paths: what today's configs mean", () => {
  it("keeps a config without credentials as it was: byok.providers stored, the rest the Worker's", () => {
    const input = config(
      { authentication: true, byok: { providers: ["anthropic"] } },
      { keys: { providers: ["openai"] } },
    );
    expect(problemsOf(input)).toEqual([]);
    expect(parseConfig(input).gateways[0]!.byokOnly).toBeUndefined();
    expect(pathsOf(input, "anthropic")).toEqual({ path: "byok", from: "byok.providers" });
    expect(pathsOf(input, "openai")).toEqual({ path: "worker", from: "keys.providers" });
  });

  it("still refuses a provider nothing gives a key, and names every way to give it one", () => {
    const [problem, ...others] = problemsOf(config({}, { keys: { providers: ["openai"] } }));
    expect(others).toEqual([]);
    expect(problem?.path).toBe("gateways[0].routes.default.steps[0].provider");
    expect(problem?.message).toMatch(/^provider "anthropic" has no key: add it to keys.providers/);
    expect(problem?.message).toContain("gateways[0].providerCredentials.anthropic: request");
  });
});

describe("credential paths that need no managed key", () => {
  it("request: the app sends the key, as Cloudflare's universal-endpoint examples do", () => {
    // bring-your-own-keys.mdx, "Traditional approach: Include API key in every request header".
    const input = config({ credentials: "request" });
    expect(problemsOf(input)).toEqual([]);
    expect(pathsOf(input, "openai")).toEqual({ path: "request", from: "credentials" });
  });

  it("unified-billing: Cloudflare's key, on an authenticated gateway", () => {
    // unified-billing.mdx: "Call any supported provider without passing an API Key. The request
    // will automatically use Cloudflare's key and deduct credits from your account."
    const input = config({ authentication: true, credentials: "unified-billing" });
    expect(problemsOf(input)).toEqual([]);
    expect(describeCredentialPath("openai", pathsOf(input, "openai"), "chat")).toBe(
      "Cloudflare's key, paid from the account's credits (Unified Billing)",
    );
  });

  it("mixes paths per provider: providerCredentials wins over byok.providers and credentials", () => {
    const input = config(
      {
        authentication: true,
        credentials: "request",
        byok: { providers: ["anthropic"] },
        providerCredentials: { openai: "unified-billing" },
      },
      { byokKeys: { anthropic: "sk-ant" } },
    );
    expect(problemsOf(input)).toEqual([]);
    expect(pathsOf(input, "anthropic")?.path).toBe("byok");
    expect(pathsOf(input, "openai")).toEqual({
      path: "unified-billing",
      from: "providerCredentials",
    });
    expect(pathsOf(input, "groq")?.path).toBe("request");
  });

  it("describes Workers AI under Unified Billing as the account's own billing", () => {
    // unified-billing.mdx: "Workers AI models (models prefixed with `@cf/`) routed through AI
    // Gateway are not charged via Unified Billing."
    const input = config({
      authentication: true,
      credentials: "unified-billing",
      routes: { default: [{ provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" }] },
    });
    expect(problemsOf(input)).toEqual([]);
    expect(describeCredentialPath("workers-ai", pathsOf(input, "workers-ai"), "chat")).toMatch(
      /account's own Workers AI key/,
    );
  });
});

describe("combinations Cloudflare would refuse", () => {
  it("Unified Billing on a gateway that is not authenticated", () => {
    // unified-billing.mdx, Pre-requisites: "Ensure you have authenticated your AI Gateway."
    expect(problemsOf(config({ credentials: "unified-billing" }))).toEqual([
      {
        path: "gateways[0].credentials",
        message: expect.stringMatching(/^Unified Billing needs an authenticated gateway/),
      },
    ]);
  });

  it("byokOnly with a provider on Unified Billing", () => {
    // Changelog 2026-09-14: "This setting prevents fallback to Unified Billing with
    // Cloudflare-managed credentials."
    const problems = problemsOf(
      config(
        {
          authentication: true,
          byokOnly: true,
          providerCredentials: { openai: "unified-billing" },
        },
        { keys: { providers: ["anthropic"] } },
      ),
    );
    expect(problems).toEqual([
      {
        path: "gateways[0].byokOnly",
        message: expect.stringContaining("(providerCredentials.openai)"),
      },
    ]);
    expect(problems[0]?.message).toContain(
      '"prevents fallback to Unified Billing with Cloudflare-managed credentials"',
    );
  });

  it("allows byokOnly with keys on the request or from the Worker", () => {
    // Changelog 2026-09-14: "Credentials must accompany the request or be stored on the gateway."
    expect(
      problemsOf(
        config(
          { byokOnly: true, providerCredentials: { openai: "request" } },
          { keys: { providers: ["anthropic"] } },
        ),
      ),
    ).toEqual([]);
  });

  it("a provider Unified Billing does not pay for", () => {
    // unified-billing.mdx lists OpenAI, Anthropic, Google AI Studio, Google Vertex AI, xAI, Groq.
    const gateway = {
      authentication: true,
      routes: { default: [{ provider: "mistral", model: "mistral-large" }] },
    };
    expect(problemsOf(config({ ...gateway, credentials: "unified-billing" }))).toEqual([
      {
        path: "gateways[0].routes.default.steps[0].provider",
        message: expect.stringMatching(/^provider "mistral" is not paid by Unified Billing/),
      },
    ]);
    expect(
      problemsOf(config({ ...gateway, providerCredentials: { mistral: "unified-billing" } })),
    ).toEqual([
      {
        path: "gateways[0].providerCredentials.mistral",
        message: expect.stringMatching(/^Unified Billing does not pay for mistral/),
      },
    ]);
    expect(
      problemsOf(
        config({
          ...gateway,
          credentials: "request",
          providerCredentials: { "workers-ai": "unified-billing" },
        }),
      ),
    ).toEqual([
      {
        path: "gateways[0].providerCredentials.workers-ai",
        message: expect.stringMatching(/^Workers AI is not paid by Unified Billing/),
      },
    ]);
  });

  it("a path whose managed key is missing: worker without keys.providers, byok without byok.providers", () => {
    expect(
      problemsOf(config({ credentials: "worker" }, { keys: { providers: ["openai"] } })),
    ).toEqual([
      {
        path: "gateways[0].routes.default.steps[0].provider",
        message: expect.stringMatching(
          /takes its key from the companion Worker \(gateways\[0\]\.credentials: worker\), which does not hold it: add anthropic to keys.providers$/,
        ),
      },
    ]);
    expect(
      problemsOf(
        config({
          authentication: true,
          providerCredentials: { openai: "byok" },
          credentials: "request",
        }),
      ),
    ).toEqual([
      {
        path: "gateways[0].routes.default.steps[1].provider",
        message: expect.stringContaining("add openai to gateways[0].byok.providers"),
      },
    ]);
  });

  it("an unknown path, with the four there are", () => {
    expect(
      problemsOf(
        config({ credentials: "cloudflare" }, { keys: { providers: ["openai", "anthropic"] } }),
      ),
    ).toEqual([
      {
        path: "gateways[0].credentials",
        message: 'credentials must be "worker", "byok", "request" or "unified-billing"',
      },
    ]);
  });
});
