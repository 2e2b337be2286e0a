import { describe, expect, it } from "vitest";
import { measureClientBundle } from "../../tools/scripts/client-size.ts";

/** The REST mode is an entry of its own: an app on the gateway's URL does not carry it. */
describe("the REST client entry", () => {
  it("stays out of the core and needs nothing beyond the client's own modules", async () => {
    const core = await measureClientBundle("chat");
    expect(core.inputs.filter((input) => input.startsWith("src/client/rest/"))).toStrictEqual([]);
    const rest = await measureClientBundle("src/client/rest/index.ts");
    expect(rest.externalImports).toStrictEqual([]);
    expect(rest.inputs).toContain("src/client/rest/rest-client.ts");
    const foreign = rest.inputs.filter(
      (input) =>
        !/^(consumer|src\/(client\/(?!node\/)|providers\/|routes\/|errors\/|wire\/))/.test(input),
    );
    expect(foreign).toStrictEqual([]);
  });
});
