/**
 * The universal body's fast structural check against its zod schema: for any JSON value, the
 * check accepts exactly what the schema accepts and builds the same steps, so zod can run only to
 * explain a refusal.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GatewayRequestError } from "../../../src/emulator/errors.ts";
import {
  checkUniversalBody,
  readUniversalBody,
  universalBodySchema,
} from "../../../src/emulator/request/universal-body.ts";

/** Mostly valid values, the edges of each rule, and now and then anything at all. */
const json = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("openai", "chat/completions", "x".repeat(4096)) },
  { weight: 1, arbitrary: fc.constantFrom("", "x".repeat(4097)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: json },
);
const integer = (min: number, max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min, max }) },
    { weight: 2, arbitrary: fc.constantFrom(min, max, min - 1, max + 1, min + 0.5, 2 ** 53) },
    { weight: 1, arbitrary: json },
  );
const headerName = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("authorization", "cf-aig-cache-ttl", "x_y~z!#$%&'*+.^`|"),
  },
  { weight: 1, arbitrary: fc.constantFrom("bad name", "bad:name", "é", "", "__proto__") },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);
const headerValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("Bearer k", "tab\tok", "", "é") },
  { weight: 1, arbitrary: fc.constantFrom("a\nb", "a\rb", "a\0b") },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: json },
);
const config = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        requestTimeout: integer(1, 3_600_000),
        maxAttempts: integer(1, 5),
        retryDelay: integer(0, 60_000),
        backoff: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom("constant", "linear", "exponential") },
          { weight: 1, arbitrary: fc.constantFrom("random", "Linear") },
          { weight: 1, arbitrary: json },
        ),
        other: json,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: json },
);
const step = fc.record(
  {
    provider: text,
    endpoint: text,
    headers: fc.oneof(
      { weight: 6, arbitrary: fc.dictionary(headerName, headerValue, { maxKeys: 4 }) },
      { weight: 1, arbitrary: json },
    ),
    query: json,
    config,
    extra: json,
  },
  { requiredKeys: ["provider", "endpoint", "query"] },
);
/** A step, or one with a required field left out now and then. */
const maybeBrokenStep = fc.oneof(
  { weight: 8, arbitrary: step },
  {
    weight: 1,
    arbitrary: fc
      .tuple(step, fc.constantFrom("provider", "endpoint", "query"))
      .map(([value, left]) =>
        Object.fromEntries(Object.entries(value).filter(([k]) => k !== left)),
      ),
  },
);
const body = fc.oneof(
  { weight: 6, arbitrary: fc.array(maybeBrokenStep, { minLength: 0, maxLength: 4 }) },
  { weight: 3, arbitrary: maybeBrokenStep },
  { weight: 1, arbitrary: json },
  {
    weight: 1,
    arbitrary: fc.array(fc.constant({ provider: "openai", endpoint: "e", query: {} }), {
      minLength: 99,
      maxLength: 102,
    }),
  },
);

describe("the universal body check", () => {
  it("accepts exactly what the zod schema accepts, with the same steps", () => {
    fc.assert(
      fc.property(body, (value) => {
        // Through JSON, as the endpoint sees bodies.
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        const fromSchema = universalBodySchema.safeParse(parsed);
        const fromCheck = checkUniversalBody(parsed);
        if (fromSchema.success) expect(fromCheck).toStrictEqual(fromSchema.data);
        else expect(fromCheck).toBeUndefined();
      }),
      { numRuns: 5_000 },
    );
  });

  it("explains a refusal with zod's message naming the field", () => {
    const refusal = (() => {
      try {
        readUniversalBody([{ provider: "openai", endpoint: "", query: {} }]);
      } catch (error) {
        return error;
      }
    })();
    expect(GatewayRequestError.isInstance(refusal)).toBe(true);
    expect((refusal as GatewayRequestError).status).toBe(400);
    expect((refusal as Error).message).toContain("endpoint is required");
  });

  it("takes a retry delay of at most 5 seconds, as request-handling.mdx documents", () => {
    // "How long before retrying (in milliseconds, maximum of 5 seconds)"
    const step = (retryDelay: number) => ({
      provider: "openai",
      endpoint: "chat/completions",
      query: {},
      config: { retryDelay },
    });
    expect(readUniversalBody(step(5_000))[0]!.config).toEqual({ retryDelay: 5_000 });
    expect(() => readUniversalBody(step(5_001))).toThrow(/retryDelay/);
    expect(() => readUniversalBody(step(60_000))).toThrow(/retryDelay/);
  });

  it("gives a step without headers an empty header object and keeps only known fields", () => {
    expect(
      readUniversalBody({ provider: "openai", endpoint: "chat", query: { a: 1 }, extra: true }),
    ).toStrictEqual([{ provider: "openai", endpoint: "chat", headers: {}, query: { a: 1 } }]);
  });
});
