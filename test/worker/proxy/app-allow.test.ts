/**
 * Per-app allow-lists (src/worker/proxy/app-allow.ts, issue #23): a list left out does not
 * restrict; a call outside one is a 403 `not_allowed` whose message names only known names.
 */
import { describe, expect, it } from "vitest";
import type { StoredAppToken } from "../../../src/worker/key-layout.ts";
import { checkGateway, checkProviders, checkRoute } from "../../../src/worker/proxy/app-allow.ts";

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

const refused = expect.objectContaining({ status: 403, code: "not_allowed" });

describe("allow-lists", () => {
  it("an app without lists (or made before them) may use every gateway, route and provider", () => {
    for (const record of [app(), app({})]) {
      expect(() => checkGateway(record, "chat")).not.toThrow();
      expect(() => checkRoute(record, null, false)).not.toThrow();
      expect(() => checkRoute(record, "default", true)).not.toThrow();
      expect(() => checkProviders(record, ["openai", "anthropic"])).not.toThrow();
    }
  });

  it("refuses a gateway, a provider (any step's) and a route outside the lists", () => {
    const limited = app({ gateways: ["chat"], providers: ["openai"], routes: ["default"] });
    expect(() => checkGateway(limited, "chat")).not.toThrow();
    expect(() => checkGateway(limited, "batch")).toThrow(refused);
    expect(() => checkProviders(limited, ["openai"])).not.toThrow();
    expect(() => checkProviders(limited, ["openai", "anthropic"])).toThrow(
      expect.objectContaining({ message: expect.stringContaining("provider anthropic") }),
    );
    expect(() => checkRoute(limited, "default", false)).not.toThrow();
    expect(() => checkRoute(limited, "default", true)).not.toThrow();
    expect(() => checkRoute(limited, "long-context", false)).toThrow(refused);
    // With routes listed, a call must say which route it is for.
    expect(() => checkRoute(limited, null, false)).toThrow(refused);
  });

  it("with providers limited, a dynamic route (providers picked by the gateway) needs routes to name it", () => {
    expect(() => checkRoute(app({ providers: ["openai"] }), "default", true)).toThrow(refused);
    expect(() =>
      checkRoute(app({ providers: ["openai"], routes: ["default"] }), "default", true),
    ).not.toThrow();
  });

  it("never echoes a name the app made up", () => {
    const limited = app({ routes: ["default"], providers: ["openai"] });
    for (const run of [
      () => checkRoute(limited, "sk-LEAK Secret!", false),
      () => checkProviders(limited, ["sk-LEAK Secret!"]),
    ]) {
      expect(run).toThrow(refused);
      try {
        run();
      } catch (error) {
        expect((error as Error).message).not.toContain("LEAK");
      }
    }
  });
});
