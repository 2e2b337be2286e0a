/**
 * What an app sends is scoped to the app its token names (src/worker/proxy/app-scope.ts, issue
 * #23): gateway controls only where the app's record allows them, `app` in `cf-aig-metadata`
 * written by the Worker, event ids prefixed with the app, universal steps unable to undo any of it.
 */
import { describe, expect, it } from "vitest";
import type { StoredAppToken } from "../../../src/worker/key-layout.ts";
import {
  scopeRequestHeaders,
  scopeStepHeaders,
  unscopeEventId,
} from "../../../src/worker/proxy/app-scope.ts";

function app(allow?: StoredAppToken["allow"]): StoredAppToken {
  return {
    id: "a1b2c3d4e5f6",
    name: "checkout",
    createdAt: 0,
    rateLimit: null,
    ...(allow === undefined ? {} : { allow }),
    tokenSha256: "0".repeat(64),
  };
}

const controls = {
  "cf-aig-custom-cost": '{"per_token_in":0,"per_token_out":0}',
  "cf-aig-collect-log": "false",
  "cf-aig-collect-log-payload": "false",
  "cf-aig-byok-alias": "other-team",
};

describe("scopeRequestHeaders", () => {
  it("drops every gateway control an app's record does not allow (records made before allow included)", () => {
    for (const record of [app(), app({}), app({ controls: [] })]) {
      const { headers } = scopeRequestHeaders(
        new Headers({ ...controls, "cf-aig-cache-ttl": "60" }),
        record,
      );
      for (const name of Object.keys(controls)) expect(headers.has(name), name).toBe(false);
      expect(headers.get("cf-aig-cache-ttl")).toBe("60");
    }
  });

  it("passes the controls the record allows, and only those", () => {
    const { headers } = scopeRequestHeaders(
      new Headers(controls),
      app({ controls: ["cf-aig-collect-log", "cf-aig-byok-alias"] }),
    );
    expect(headers.get("cf-aig-collect-log")).toBe("false");
    expect(headers.get("cf-aig-byok-alias")).toBe("other-team");
    expect(headers.has("cf-aig-custom-cost")).toBe(false);
    expect(headers.has("cf-aig-collect-log-payload")).toBe(false);
  });

  it("writes app first and over the app's own claim; keeps the app's other entries", () => {
    const scoped = scopeRequestHeaders(
      new Headers({ "cf-aig-metadata": '{"app":"victim","route":"default","user":12345}' }),
      app(),
    );
    expect(JSON.parse(scoped.headers.get("cf-aig-metadata")!)).toEqual({
      app: "a1b2c3d4e5f6",
      route: "default",
      user: 12345,
    });
    expect(Object.keys(scoped.metadata)[0]).toBe("app");
    expect(scoped.route).toBe("default");
    // An app that sent none still goes upstream as itself.
    const bare = scopeRequestHeaders(new Headers(), app());
    expect(bare.headers.get("cf-aig-metadata")).toBe('{"app":"a1b2c3d4e5f6"}');
    expect(bare.route).toBeNull();
  });

  it("keeps at most five entries, app among them, as the gateway saves", () => {
    // custom-metadata.mdx: "AI Gateway allows you to pass up to five custom metadata entries per
    // request. If more than five entries are provided, only the first five will be saved;
    // additional entries will be ignored."
    const given = { a: 1, b: 2, app: "victim", c: 3, d: 4, e: 5, f: 6 };
    const { headers } = scopeRequestHeaders(
      new Headers({ "cf-aig-metadata": JSON.stringify(given) }),
      app(),
    );
    expect(JSON.parse(headers.get("cf-aig-metadata")!)).toEqual({
      app: "a1b2c3d4e5f6",
      a: 1,
      b: 2,
      c: 3,
      d: 4,
    });
  });

  it("refuses metadata that is not an object of strings, numbers and booleans (400, value not echoed)", () => {
    // custom-metadata.mdx: "Objects are not supported as metadata values."
    for (const raw of ["not json", "[1]", '"text"', '{"team":{"id":1}}', '{"n":null}']) {
      expect(() => scopeRequestHeaders(new Headers({ "cf-aig-metadata": raw }), app())).toThrow(
        expect.objectContaining({ status: 400, code: "invalid_metadata" }),
      );
    }
  });

  it("prefixes the event id with the app; none is made up when the app sent none", () => {
    const scoped = scopeRequestHeaders(new Headers({ "cf-aig-event-id": "call-1" }), app());
    expect(scoped.headers.get("cf-aig-event-id")).toBe("a1b2c3d4e5f6:call-1");
    expect(scoped.eventId).toBe("a1b2c3d4e5f6:call-1");
    // Another app claiming this app's prefixed id gets it prefixed again, never as is.
    const other = { ...app(), id: "ffffffffffff" };
    expect(
      scopeRequestHeaders(new Headers({ "cf-aig-event-id": "a1b2c3d4e5f6:call-1" }), other).eventId,
    ).toBe("ffffffffffff:a1b2c3d4e5f6:call-1");
    const none = scopeRequestHeaders(new Headers(), app());
    expect(none.eventId).toBeNull();
    expect(none.headers.has("cf-aig-event-id")).toBe(false);
  });
});

describe("unscopeEventId", () => {
  it("gives the app back the id it sent; leaves an id the gateway made up alone", () => {
    const headers = new Headers({ "cf-aig-event-id": "a1b2c3d4e5f6:call-1" });
    unscopeEventId(headers, "a1b2c3d4e5f6");
    expect(headers.get("cf-aig-event-id")).toBe("call-1");
    const made = new Headers({ "cf-aig-event-id": "0193-gateway-id" });
    unscopeEventId(made, "a1b2c3d4e5f6");
    expect(made.get("cf-aig-event-id")).toBe("0193-gateway-id");
  });
});

describe("scopeStepHeaders", () => {
  it("a step cannot set metadata, an event id, a cache key or a control its app may not send", () => {
    const given = {
      "Content-Type": "application/json",
      "cf-aig-cache-ttl": "120",
      "CF-AIG-Metadata": '{"app":"victim"}',
      "cf-aig-event-id": "victim:call-1",
      "cf-aig-cache-key": "shared",
      ...controls,
    };
    expect(scopeStepHeaders(given, app())).toEqual({
      "Content-Type": "application/json",
      "cf-aig-cache-ttl": "120",
    });
    expect(scopeStepHeaders(given, app({ controls: ["cf-aig-custom-cost"] }))).toEqual({
      "Content-Type": "application/json",
      "cf-aig-cache-ttl": "120",
      "cf-aig-custom-cost": controls["cf-aig-custom-cost"],
    });
    expect(scopeStepHeaders(undefined, app())).toEqual({});
  });
});
