import { describe, expect, it } from "vitest";
import { StepwiseError } from "../../src/errors/index.ts";
import {
  customProviderPattern,
  getProvider,
  isKnownProvider,
  providerSlugs,
  UnknownProviderError,
} from "../../src/providers/index.ts";
import { upstreamBaseUrlOf } from "../../src/providers/upstreams.ts";

describe("provider registry", () => {
  it("lists every built-in provider", () => {
    expect([...providerSlugs].sort()).toStrictEqual(
      [
        "anthropic",
        "deepseek",
        "google-ai-studio",
        "grok",
        "groq",
        "mistral",
        "openai",
        "openrouter",
        "workers-ai",
      ].sort(),
    );
    expect(Object.isFrozen(providerSlugs)).toBe(true);
  });

  it.each([...providerSlugs])("resolves %s to its own adapter", (slug) => {
    const adapter = getProvider(slug);
    expect(adapter.slug).toBe(slug);
    expect(isKnownProvider(slug)).toBe(true);
    expect(adapter.displayName).not.toBe("");
  });

  it("gives each built-in its wire format", () => {
    const formats = Object.fromEntries(
      providerSlugs.map((slug) => [slug, getProvider(slug).format]),
    );
    expect(formats).toStrictEqual({
      openai: "openai",
      anthropic: "anthropic",
      "workers-ai": "workers-ai",
      "google-ai-studio": "google",
      groq: "openai",
      mistral: "openai",
      deepseek: "openai",
      grok: "openai",
      openrouter: "openai",
    });
  });

  it("creates an OpenAI-compatible adapter for custom-<slug>", () => {
    const acme = getProvider("custom-acme");
    expect(acme).toMatchObject({
      slug: "custom-acme",
      format: "openai",
    });
    expect(upstreamBaseUrlOf("custom-acme")).toBe("https://custom.invalid/");
    expect(acme.displayName).toContain("acme");
    expect(acme.endpoint("acme-large", { messages: [] })).toBe("chat/completions");
    expect(acme.authHeaders("k")).toStrictEqual({ authorization: "Bearer k" });
    expect(
      acme.requestBody("acme-large", { messages: [{ role: "user", content: "Hi" }], maxTokens: 5 }),
    ).toStrictEqual({
      model: "acme-large",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 5,
    });
    expect(isKnownProvider("custom-acme")).toBe(true);
  });

  it("accepts custom slugs of lowercase letters, digits and hyphens up to 64 characters", () => {
    expect(customProviderPattern.test("custom-a")).toBe(true);
    expect(customProviderPattern.test(`custom-${"a".repeat(63)}`)).toBe(true);
    for (const slug of [
      "custom-",
      "custom--x",
      "custom-Acme",
      "custom-a_b",
      `custom-${"a".repeat(64)}`,
      "acme",
    ]) {
      expect(customProviderPattern.test(slug), slug).toBe(false);
      expect(isKnownProvider(slug), slug).toBe(false);
    }
  });

  it("throws UnknownProviderError listing known slugs and the custom form", () => {
    let thrown: unknown;
    try {
      getProvider("cohere");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnknownProviderError);
    expect(StepwiseError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: "unknown_provider",
      slug: "cohere",
      name: "UnknownProviderError",
    });
    const message = (thrown as Error).message;
    expect(message).toContain('Unknown provider "cohere".');
    for (const slug of providerSlugs) expect(message).toContain(slug);
    expect(message).toContain("custom-<slug>");
  });

  it.each([
    ["xai", "grok"],
    ["OpenAI", "openai"],
    ["gemini", "google-ai-studio"],
    ["workers_ai", "workers-ai"],
    ["Custom-Acme", "custom-acme"],
  ])("suggests the slug people mean (%s → %s)", (slug, suggestion) => {
    expect(() => getProvider(slug)).toThrow(`Did you mean "${suggestion}"?`);
  });

  it("rejects a slug with no close match without a suggestion", () => {
    expect(() => getProvider("")).toThrow(/^Unknown provider ""\. Known providers/);
    expect(() => getProvider("constructor")).toThrow(
      /^Unknown provider "constructor"\. Known providers/,
    );
    expect(isKnownProvider("toString")).toBe(false);
  });
});
