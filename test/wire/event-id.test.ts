/**
 * The longest `cf-aig-event-id` (src/wire/event-id.ts). Cloudflare documents no limit (the header
 * glossary only says "cf-aig-event-id is a unique identifier for an event, used to trace specific
 * events through the system"); 256 characters is the emulator's guess (docs/emulator.md), and an
 * app behind the Worker has that less its `<app id>:` prefix.
 */
import { describe, expect, it } from "vitest";
import { appScopedEventId, maxAppEventIdChars, maxEventIdChars } from "../../src/wire/event-id.ts";

const table: [string, string, number][] = [
  ["a 12-character app id", "a1b2c3d4e5f6", 243],
  ["a one-character app id", "a", 254],
  ["an app id as long as the limit", "x".repeat(256), 0],
];

describe("event id limits", () => {
  it("the gateway's guess is 256 characters", () => {
    expect(maxEventIdChars).toBe(256);
  });

  it.each(table)("%s leaves the app %i characters", (_name, appId, limit) => {
    expect(maxAppEventIdChars(appId)).toBe(limit);
    if (limit > 0) {
      expect(appScopedEventId(appId, "e".repeat(limit))).toHaveLength(maxEventIdChars);
    }
  });

  it("scopes an id as <app id>:<id>", () => {
    expect(appScopedEventId("a1b2c3d4e5f6", "call-1")).toBe("a1b2c3d4e5f6:call-1");
  });
});
