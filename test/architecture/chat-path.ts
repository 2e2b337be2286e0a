/**
 * @module
 * The files of `src/` a healthy `client.chat` crosses, measured with V8's precise coverage.
 * test/architecture/import-graph.test.ts prints them and holds their number; test/docs/map.test.ts
 * holds ARCHITECTURE.md's list of them.
 */
import { readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { createGatewayClient } from "../../src/client/index.ts";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * The files of `src/` whose functions run during one healthy `client.chat`, with those functions,
 * by V8's precise coverage: a client with one OpenAI step and a recorder (an app's own), its
 * `fetch` answering the recorded OpenAI body at once. A first call loads what loads on demand
 * (the provider's format); the second is measured.
 */
export async function filesCrossedByChat(): Promise<{ file: string; functions: string[] }[]> {
  const body = readFileSync(
    path.join(root, "test/__fixtures__/providers/openai/response.json"),
    "utf8",
  );
  const events: unknown[] = [];
  const client = createGatewayClient({
    accountId: "0123456789abcdef0123456789abcdef",
    gatewayId: "chat-prod",
    routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
    recorder: { record: (event) => void events.push(event) },
    fetch: async () =>
      new Response(body, {
        headers: { "content-type": "application/json", "cf-aig-step": "0" },
      }),
  });
  const chat = () => client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });
  await chat();
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
    await session.post("Profiler.takePreciseCoverage");
    const answer = await chat();
    const { result } = await session.post("Profiler.takePreciseCoverage");
    expect(answer.served.index).toBe(0);
    expect(events).toHaveLength(2);
    const src = `${path.join(root, "src")}${path.sep}`;
    return result
      .filter(
        (script) => script.url.startsWith("file:") && fileURLToPath(script.url).startsWith(src),
      )
      .map((script) => ({
        file: path.relative(root, fileURLToPath(script.url)),
        // The counts start at the second call: a module's top level ran before, when it loaded.
        functions: script.functions
          .filter((fn) => fn.ranges[0]!.count > 0)
          .map((fn) => fn.functionName || "(anonymous)"),
      }))
      .filter(({ functions }) => functions.length > 0);
  } finally {
    await session.post("Profiler.stopPreciseCoverage");
    session.disconnect();
  }
}
