import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StepwiseError } from "../../src/errors/index.ts";
import {
  createStreamParser,
  getProvider,
  ProviderResponseError,
  providerSlugs,
} from "../../src/providers/index.ts";
import { upstreamBaseUrlOf } from "../../src/providers/upstreams.ts";

const slugs = [...providerSlugs, "custom-acme"];

describe.each(slugs)("%s: behaviour every adapter shares", (slug) => {
  const adapter = getProvider(slug);

  it("declares an https upstream ending in /", () => {
    expect(upstreamBaseUrlOf(slug)).toMatch(/^https:\/\/.+\/$/);
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["an empty string", ""],
    ["whitespace", "  \n"],
    ["empty bytes", new Uint8Array()],
  ])("gives type unknown and the status for an empty body (%s)", (_name, body) => {
    expect(adapter.parseError(503, body)).toStrictEqual({
      status: 503,
      type: "unknown",
      message: `${adapter.displayName} returned HTTP 503 with an empty body.`,
    });
  });

  it("quotes the start of a body that is not JSON", () => {
    const error = adapter.parseError(502, `<html><body>${"Bad gateway ".repeat(50)}</body></html>`);
    expect(error).toMatchObject({ status: 502, type: "unknown" });
    expect(error.message).toMatch(
      new RegExp(
        `^${adapter.displayName.replace(/[()]/g, "\\$&")} returned HTTP 502: <html><body>Bad gateway`,
      ),
    );
    expect(error.message.length).toBeLessThan(300);
  });

  it("gives type unknown for JSON in an unknown shape", () => {
    expect(adapter.parseError(500, { status: "boom" })).toMatchObject({
      status: 500,
      type: "unknown",
    });
    expect(adapter.parseError(500, [1, 2])).toMatchObject({ status: 500, type: "unknown" });
  });

  it("never throws, whatever the body", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.string(), fc.anything()),
        fc.integer({ min: 100, max: 599 }),
        (body, status) => {
          const error = adapter.parseError(status, body);
          expect(error.status).toBe(status);
          expect(typeof error.type).toBe("string");
          expect(typeof error.message).toBe("string");
        },
      ),
    );
  });

  it.each([
    ["undefined", undefined, /empty body/],
    ["an empty string", "", /empty body/],
    ["text that is not JSON", "<html>oops</html>", /not JSON: <html>oops<\/html>/],
    ["a JSON array", "[1,2]", /not an object/],
    ["an object of another shape", { hello: "world" }, /without/],
    ["a number too large for JSON", 10n, /not an object: 10/],
  ])("throws ProviderResponseError for a 200 body that is %s", (_name, body, message) => {
    let thrown: unknown;
    try {
      adapter.parseResponse(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProviderResponseError);
    expect(StepwiseError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: "invalid_provider_response", provider: slug });
    expect((thrown as Error).message).toMatch(message);
  });

  it("turns a malformed stream chunk into an error delta instead of throwing", () => {
    const parse = createStreamParser(adapter.slug);
    for (const data of ['{"choices":[{"delta":', "not json", "42", ""]) {
      expect(parse({ data })).toStrictEqual([
        {
          type: "error",
          error: {
            status: 502,
            type: "invalid_stream_event",
            message: expect.stringContaining("not a JSON object"),
          },
        },
      ]);
    }
  });
});
