/**
 * The vars file `npm run worker:dev` hands wrangler instead of `--var NAME:secret`: readable by
 * this user only, outside the repository, gone after `remove()`, and never a value wrangler's
 * dotenv reader would change (a `$` would be expanded, a `#` cut as a comment).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { writeDevVarsFile } from "../../../tools/scripts/dev-vars-file.ts";

describe("writeDevVarsFile", () => {
  it("writes NAME=value lines to a file only its owner can read, outside the repository", () => {
    const file = writeDevVarsFile({ ROTATE_TOKEN: "admin-token", GATEWAY_TOKEN: "gw.token-1" });
    try {
      expect(readFileSync(file.path, "utf8")).toBe(
        "ROTATE_TOKEN=admin-token\nGATEWAY_TOKEN=gw.token-1\n",
      );
      expect(statSync(file.path).mode & 0o777).toBe(0o600);
      expect(file.path.startsWith(tmpdir())).toBe(true);
    } finally {
      file.remove();
    }
    expect(existsSync(file.path)).toBe(false);
    file.remove();
  });

  it.each(["has$dollar", "has#hash", "has space", 'has"quote', "has\nnewline", ""])(
    "refuses a value dotenv would not read back unchanged: %j",
    (value) => {
      expect(() => writeDevVarsFile({ TOKEN: value })).toThrow(/TOKEN cannot go in a dotenv file/);
    },
  );
});
