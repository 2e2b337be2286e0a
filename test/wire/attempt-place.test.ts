/**
 * The `stepwise` entry of `cf-aig-metadata`, value by value (src/wire/attempt-place.ts): what the
 * client writes on a re-sent or reordered request, what the Worker forwards when it drops or
 * repeats steps, and what the report reads back from the gateway's logs.
 *
 * The limit it lives within, from Cloudflare's custom-metadata page: "AI Gateway allows you to
 * pass up to five custom metadata entries per request. If more than five entries are provided,
 * only the first five will be saved; additional entries will be ignored."
 */
import { describe, expect, it } from "vitest";
import {
  type AttemptPlace,
  firstPlace,
  formatAttemptPlace,
  forwardPlace,
  maxMetadataEntries,
  needsPlace,
  parseAttemptPlace,
  placeOfMetadata,
  routeStepOf,
  withAttemptPlace,
} from "../../src/wire/attempt-place.ts";

const table: [string, AttemptPlace, string, boolean][] = [
  ["a first, in-order request", firstPlace(3), "attempt=1;steps=0.1.2;elapsed=0", false],
  [
    "a re-send of the rest after a cut stream",
    { attempt: 2, steps: [1, 2], elapsedMs: 31 },
    "attempt=2;steps=1.2;elapsed=31",
    true,
  ],
  [
    "a first request reordered by an open breaker",
    { attempt: 1, steps: [1, 2, 0], elapsedMs: 0 },
    "attempt=1;steps=1.2.0;elapsed=0",
    true,
  ],
  [
    "the same chain again after a backoff",
    { attempt: 3, steps: [0, 1], elapsedMs: 1250 },
    "attempt=3;steps=0.1;elapsed=1250",
    true,
  ],
  [
    "a first request that skipped a step",
    { attempt: 1, steps: [0, 2], elapsedMs: 0 },
    "attempt=1;steps=0.2;elapsed=0",
    true,
  ],
];

describe("the attempt place entry", () => {
  it.each(table)("%s", (_, place, text, needed) => {
    expect(formatAttemptPlace(place)).toBe(text);
    expect(parseAttemptPlace(text)).toEqual(place);
    expect(needsPlace(place)).toBe(needed);
  });

  it("rounds elapsed time to whole ms and never below 0", () => {
    expect(formatAttemptPlace({ attempt: 2, steps: [1], elapsedMs: 12.6 })).toBe(
      "attempt=2;steps=1;elapsed=13",
    );
    expect(formatAttemptPlace({ attempt: 2, steps: [1], elapsedMs: -3 })).toBe(
      "attempt=2;steps=1;elapsed=0",
    );
  });

  it.each([
    ["", null],
    ["attempt=0;steps=0;elapsed=0", null],
    ["attempt=2;steps=;elapsed=0", null],
    ["attempt=2;steps=1,2;elapsed=0", null],
    ["attempt=2;elapsed=0;steps=1", null],
    ["attempt=2;steps=1.x;elapsed=0", null],
    [42, null],
    [" attempt=2;steps=1;elapsed=5 ", { attempt: 2, steps: [1], elapsedMs: 5 }],
  ])("reads %j as %j (anything else is not guessed)", (value, place) => {
    expect(parseAttemptPlace(value)).toEqual(place);
  });

  it("maps a gateway step to the route step", () => {
    const place = { attempt: 2, steps: [1, 2], elapsedMs: 31 };
    expect(routeStepOf(place, 0)).toBe(1);
    expect(routeStepOf(place, 1)).toBe(2);
    expect(routeStepOf(place, 2)).toBeNull();
    expect(routeStepOf(null, 1)).toBe(1);
    expect(
      placeOfMetadata({ route: "default", stepwise: "attempt=2;steps=1.2;elapsed=31" }),
    ).toEqual(place);
    expect(placeOfMetadata({ route: "default" })).toBeNull();
  });

  it("is rewritten by the Worker so the steps it sends still name route steps", () => {
    // The app re-sent route steps 1 and 2; the Worker sends step 1 once per key of a two-key pool.
    expect(forwardPlace({ attempt: 2, steps: [1, 2], elapsedMs: 31 }, [0, 0, 1], 2)).toEqual({
      attempt: 2,
      steps: [1, 1, 2],
      elapsedMs: 31,
    });
    // A first, in-order request whose first step the Worker left out (keys at their caps).
    expect(forwardPlace(null, [1, 2], 3)).toEqual({ attempt: 1, steps: [1, 2], elapsedMs: 0 });
    // Nothing dropped or repeated: still no entry.
    expect(forwardPlace(null, [0, 1, 2], 3)).toBeNull();
  });
});

describe("the entry within cf-aig-metadata", () => {
  const place = { attempt: 2, steps: [1, 2], elapsedMs: 31 };

  it("goes second, after route, so it is within the five entries the gateway keeps", () => {
    const text = withAttemptPlace('{"route":"default","plan":"pro","team":"ai"}', place);
    expect(Object.keys(JSON.parse(text!))).toEqual(["route", "stepwise", "plan", "team"]);
    expect(JSON.parse(text!).stepwise).toBe("attempt=2;steps=1.2;elapsed=31");
  });

  it("replaces an entry already there, and is removed for a place that needs none", () => {
    const sent = withAttemptPlace('{"route":"r","stepwise":"attempt=2;steps=1;elapsed=3"}', place);
    expect(JSON.parse(sent!)).toEqual({ route: "r", stepwise: "attempt=2;steps=1.2;elapsed=31" });
    expect(withAttemptPlace(sent, null)).toBe('{"route":"r"}');
    expect(withAttemptPlace('{"route":"r"}', null)).toBe('{"route":"r"}');
    expect(withAttemptPlace(null, place)).toBe('{"stepwise":"attempt=2;steps=1.2;elapsed=31"}');
  });

  it("is left out when the request already has five entries", () => {
    const full = JSON.stringify(Object.fromEntries(["a", "b", "c", "d", "e"].map((k) => [k, 1])));
    expect(maxMetadataEntries).toBe(5);
    expect(withAttemptPlace(full, place)).toBe(full);
  });

  it("leaves text that is not a JSON object as it was", () => {
    expect(withAttemptPlace("not json", place)).toBe("not json");
    expect(withAttemptPlace("[1]", place)).toBe("[1]");
  });
});
