/**
 * The one scanner of universal bodies (src/wire/universal-body.ts), shared by the emulator and the
 * companion Worker: the members it finds agree with `JSON.parse` on any formatting (property
 * test), and the duplicates it reports, case by case (table). Cloudflare's docs describe the body
 * ("The universal endpoint accepts an array of objects", universal.mdx) but not duplicate members;
 * refusing them is the choice recorded in docs/emulator.md's table of guesses.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type DuplicateMember,
  describeDuplicate,
  findDuplicateMember,
  memberText,
  scanUniversalBody,
} from "../../src/wire/universal-body.ts";

const space = fc.constantFrom("", " ", "\n  ", "\t");
/** Name tokens as written, some spelling `query` with escapes. */
const name = fc.constantFrom(
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
const member = fc.tuple(space, name, space, space, value, space);
const step = fc.array(member, { maxLength: 5 });
const body = fc.tuple(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 4 }), space);

type Written = readonly [string, string, string, string, string, string];

const objectText = (members: readonly Written[]) =>
  `{${members.map(([before, key, afterName, afterColon, text, after]) => `${before}${key}${afterName}:${afterColon}${text}${after}`).join(",")}}`;

describe("scanUniversalBody", () => {
  it("finds each member's name and text where JSON.parse finds them, the last of a name winning", () => {
    fc.assert(
      fc.property(body, ([single, steps, outer]) => {
        const objects = steps.map(objectText);
        const text = single
          ? `${outer}${objects[0]}${outer}`
          : `${outer}[${objects.join(`${outer},`)}]`;
        const parsed = JSON.parse(text) as unknown;
        const expected = (single ? [parsed] : parsed) as Record<string, unknown>[];
        const scanned = scanUniversalBody(text);
        expect(scanned.form).toBe(single ? "step" : "steps");
        expect(scanned.steps).toHaveLength(expected.length);
        expected.forEach((object, index) => {
          const members = scanned.steps[index]!;
          expect(members.map((found) => found.nameText)).toEqual(
            steps[index]!.map(([, key]) => key),
          );
          expect(members.map((found) => found.valueText)).toEqual(
            steps[index]!.map(([, , , , text]) => text),
          );
          const rebuilt: Record<string, unknown> = {};
          for (const found of members) {
            Object.defineProperty(rebuilt, found.name, {
              value: JSON.parse(found.valueText),
              enumerable: true,
              configurable: true,
              writable: true,
            });
          }
          expect(rebuilt).toEqual(object);
          const query = memberText(members, "query");
          expect(query === undefined ? undefined : JSON.parse(query)).toEqual(object.query);
        });
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ["an array of steps", '[{"provider":"openai"}, 3, {}]', "steps", [1, undefined, 0]],
    ["one step alone", ' {"provider":"openai","query":{}} ', "step", [2]],
    ["an empty array", "[ ]", "steps", []],
    ["neither", '"steps"', "other", []],
  ] as const)("reads the shape of %s", (_name, text, form, counts) => {
    const scanned = scanUniversalBody(text);
    expect(scanned.form).toBe(form);
    expect(scanned.steps.map((members) => members?.length)).toEqual(counts);
  });
});

const table: [string, string, DuplicateMember | undefined][] = [
  [
    "no duplicate",
    '[{"provider":"openai","endpoint":"chat/completions","headers":{"a":"1","b":"2"},"query":{"model":"m"}}]',
    undefined,
  ],
  [
    'two "provider" members in a step',
    '[{"provider":"openai","query":{}},{"provider":"custom-evil","endpoint":"x","provider":"openai"}]',
    { step: 1, within: "step", name: "provider" },
  ],
  [
    "duplicate top-level members of a body that is one step",
    '{"query":{"model":"a"},"provider":"openai","query":{"model":"b"}}',
    { step: 0, within: "step", name: "query" },
  ],
  [
    "a duplicate spelled with an escape",
    '[{"provider":"openai","provid\\u0065r":"anthropic"}]',
    { step: 0, within: "step", name: "provider" },
  ],
  [
    "a header written twice, in another case",
    '[{"provider":"openai","headers":{"Authorization":"Bearer a","authorization":"Bearer b"}}]',
    { step: 0, within: "headers", name: "authorization" },
  ],
  [
    "a config member written twice",
    '[{"provider":"openai","config":{"maxAttempts":1,"maxAttempts":5}}]',
    { step: 0, within: "config", name: "maxAttempts" },
  ],
  [
    "a duplicate inside query: the provider's body, left to the provider",
    '[{"provider":"openai","query":{"model":"a","model":"b","provider":"x"}}]',
    undefined,
  ],
  [
    "the same member in two different steps",
    '[{"provider":"openai"},{"provider":"anthropic"}]',
    undefined,
  ],
  ["items that are not objects", '[1,"provider",["provider","provider"]]', undefined],
];

describe("findDuplicateMember", () => {
  it.each(table)("%s", (_name, text, expected) => {
    JSON.parse(text); // every case is JSON that parses: duplicates are legal JSON
    expect(findDuplicateMember(scanUniversalBody(text))).toEqual(expected);
  });
});

describe("describeDuplicate", () => {
  it.each([
    [{ step: 1, within: "step", name: "provider" }, 'step 1 has two "provider" members'],
    [
      { step: 0, within: "headers", name: "authorization" },
      "step 0 has a headers member written twice",
    ],
    [{ step: 2, within: "step", name: "sk-pasted-key" }, "step 2 has a member written twice"],
  ] as const)("names only the envelope's own members: %o", (duplicate, expected) => {
    expect(describeDuplicate(duplicate)).toBe(`${expected}; send each member once`);
  });
});
