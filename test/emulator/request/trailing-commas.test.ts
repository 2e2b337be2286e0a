/**
 * Trailing commas, as Cloudflare's request-handling.mdx examples leave them in universal bodies,
 * are removed outside strings only.
 */
import { describe, expect, it } from "vitest";
import { withoutTrailingCommas } from "../../../src/emulator/request/trailing-commas.ts";

describe("withoutTrailingCommas", () => {
  it.each([
    ['{"config": {"requestTimeout": 3000},\n    }', '{"config": {"requestTimeout": 3000}\n    }'],
    ["[1, 2,]", "[1, 2]"],
    ['{"a": ",}", "b": [",]",],}', '{"a": ",}", "b": [",]"]}'],
    ['{"a": "quote \\",}",}', '{"a": "quote \\",}"}'],
    ['{"a": 1, "b": 2}', '{"a": 1, "b": 2}'],
  ])("%s", (text, expected) => {
    expect(withoutTrailingCommas(text)).toBe(expected);
    expect(() => JSON.parse(withoutTrailingCommas(text))).not.toThrow();
  });
});
