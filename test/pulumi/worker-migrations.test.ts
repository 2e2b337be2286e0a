/**
 * The Durable Object migrations the Worker script is uploaded with: all of wrangler.jsonc's for a
 * first deploy; only the later ones, checked against the deployed tag, once some are applied.
 */
import { describe, expect, it } from "vitest";
import { workerMigrations } from "../../src/pulumi/worker-bindings.ts";

const migrations = [
  { tag: "v1", newSqliteClasses: ["KeyLedger", "AppLimiter"] },
  { tag: "v2", newSqliteClasses: ["Other"] },
];

describe("workerMigrations", () => {
  it("a first deploy sends every migration, up to the last tag", () => {
    expect(workerMigrations(migrations)).toEqual({
      newTag: "v2",
      steps: [{ newSqliteClasses: ["KeyLedger", "AppLimiter"] }, { newSqliteClasses: ["Other"] }],
    });
  });

  it("after v1, only v2, with v1 as the tag the API must find", () => {
    expect(workerMigrations(migrations, "v1")).toEqual({
      oldTag: "v1",
      newTag: "v2",
      steps: [{ newSqliteClasses: ["Other"] }],
    });
  });

  it("nothing when every migration is applied", () => {
    expect(workerMigrations(migrations, "v2")).toBeUndefined();
  });

  it("refuses a deployed tag wrangler.jsonc does not list, saying how to fix it", () => {
    expect(() => workerMigrations(migrations, "v9")).toThrow(/add it back to "migrations"/);
  });
});
