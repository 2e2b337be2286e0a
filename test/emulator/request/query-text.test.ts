/**
 * A universal step's query goes upstream as the client wrote it: the scan that finds each query's
 * text agrees with `JSON.parse` on any formatting (property test), and an upstream receives the
 * query's own bytes, whitespace and number spelling included.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { queryTexts } from "../../../src/emulator/request/query-text.ts";
import {
  accountId,
  emulatorWith,
  openAiCompletion,
  postJson,
  type StubRequest,
  startStub,
  testConfig,
} from "../helpers.ts";

const space = fc.constantFrom("", " ", "\n  ", "\t");
/** Key tokens as written, some spelling `query` with escapes. */
const key = fc.constantFrom(
  '"provider"',
  '"query"',
  '"headers"',
  '"x"',
  '"q\\"uery"',
  '"quer\\u0079"',
  '"\\\\"',
);
/** Value tokens as written: any JSON in several layouts, and spellings JSON.stringify never uses. */
const value = fc.oneof(
  fc
    .tuple(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(0, 1, 2))
    .map(([json, indent]) => JSON.stringify(json, null, indent)),
  fc.constantFrom(
    "1.0",
    "-0",
    "1e2",
    '{ "a" : [ 1E+2 , "\\u00e9\\"}]" ] }',
    '"}]\\\\"',
    "[]",
    "{}",
  ),
);
const member = fc.tuple(space, key, space, space, value, space);
const step = fc.array(member, { maxLength: 5 });
const body = fc.tuple(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 4 }), space);

function write(steps: (readonly [string, string, string, string, string, string])[][]): string[] {
  return steps.map(
    (members) =>
      `{${members.map(([before, name, afterName, afterColon, text, after]) => `${before}${name}${afterName}:${afterColon}${text}${after}`).join(",")}}`,
  );
}

describe("queryTexts", () => {
  it("finds each step's query text exactly where JSON.parse finds its value", () => {
    fc.assert(
      fc.property(body, ([single, steps, outer]) => {
        const objects = write(steps);
        const text = single
          ? `${outer}${objects[0]}${outer}`
          : `${outer}[${objects.join(`${outer},`)}]`;
        const parsed = JSON.parse(text) as unknown;
        const expected = (single ? [parsed] : (parsed as unknown[])) as Record<string, unknown>[];
        const found = queryTexts(text);
        expected.forEach((object, index) => {
          const members = steps[index]!;
          const plain = members.every(([, name]) => !name.includes("\\"));
          const last = members.filter(([, name]) => name === '"query"').at(-1);
          if (plain) expect(found[index]).toBe(last?.[4]);
          if (found[index] !== undefined) {
            expect(JSON.parse(found[index]!)).toEqual(object.query);
          }
        });
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("a universal step's query upstream", () => {
  let emulator: Emulator | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await emulator?.close();
    await close?.();
    emulator = undefined;
    close = undefined;
  });

  it("is sent as the client wrote it, not re-serialised", async () => {
    const upstream = await startStub((_request: StubRequest, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(openAiCompletion("hello")));
    });
    close = upstream.close;
    ({ emulator } = await emulatorWith({ upstreams: { openai: upstream.url } }));
    const query =
      '{ "model": "gpt-4o-mini",\n  "messages": [{"role": "user", "content": "caf\\u00e9"}], "temperature": 1.0 }';
    const text = `[{"provider": "openai", "endpoint": "chat/completions", "headers": {"authorization": "Bearer test-key"}, "query": ${query}}]`;
    const response = await postJson(`${emulator.url}/v1/${accountId}/open`, text);
    expect(response.status).toBe(200);
    await response.text();
    expect(upstream.requests.map((request) => request.body)).toEqual([query]);
  });

  it("still goes as JSON when the client spelled its key with escapes", async () => {
    const upstream = await startStub((_request: StubRequest, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(openAiCompletion("hello")));
    });
    close = upstream.close;
    ({ emulator } = await emulatorWith({
      config: testConfig(),
      upstreams: { openai: upstream.url },
    }));
    const text = `[{"provider": "openai", "endpoint": "chat/completions", "headers": {"authorization": "Bearer test-key"}, "quer\\u0079": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}}]`;
    const response = await postJson(`${emulator.url}/v1/${accountId}/open`, text);
    expect(response.status).toBe(200);
    await response.text();
    expect(upstream.requests.map((request) => JSON.parse(request.body))).toEqual([
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    ]);
  });
});
