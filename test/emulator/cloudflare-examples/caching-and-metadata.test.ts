/**
 * The examples of Cloudflare's features/caching.mdx and observability/custom-metadata.mdx, sent to
 * the emulator as written: curl through the real binary, and custom-metadata.mdx's OpenAI SDK
 * Worker called as the Workers runtime would (`fetch(request, env, ctx)`). Its Workers binding
 * example (`env.AI.run(..., { gateway: { metadata } })`) needs the runtime's AI binding and is not
 * run; the metadata it sends is the curl example's, which is.
 */
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "../helpers.ts";
import { asWritten, jsonOf, runCurl } from "./as-written.ts";

let emulator: Emulator;
let clock: Awaited<ReturnType<typeof emulatorWith>>["clock"];
beforeEach(async () => {
  ({ emulator, clock } = await emulatorWith({ config: testConfig() }));
});
afterEach(() => emulator.close());

const fills = { "{gateway_id}": "open", "{openai_token}": "sk-openai", "{api_token}": "sk-openai" };

async function curl(example: string) {
  const run = await runCurl(asWritten(example, emulator, fills), { TOKEN: "sk-openai" });
  expect(run.code, run.stderr).toBe(0);
  return jsonOf(run);
}

/** The page's request body, as its examples indent it (a leading space, tabs). */
const spoonBody = ` {
   \t\t "model": "gpt-4o-mini",
   \t\t "messages": [
   \t\t\t {
   \t\t\t\t "role": "user",
   \t\t\t\t "content": "how to build a wooden spoon in 3 short steps? give as short as answer as possible"
   \t\t\t }
   \t\t ]
   \t }
`;
const cacheExample = (
  header: string,
  authorization: string,
) => `curl https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/openai/chat/completions \\
  --header ${authorization} \\
  --header 'Content-Type: application/json' \\
  --header '${header}' \\
  --data '${spoonBody}'`;
const ttlExample = cacheExample("cf-aig-cache-ttl: 3600", `"Authorization: Bearer $TOKEN"`);
const skipExample = cacheExample("cf-aig-skip-cache: true", `"Authorization: Bearer $TOKEN"`);
const keyExample = cacheExample(
  "cf-aig-cache-key: responseA",
  `'Authorization: Bearer {openai_token}'`,
);

const cachedFlags = () => emulator.logs("open").map((log) => log.cached);

describe("features/caching.mdx", () => {
  it("serves the cache-ttl example from the cache within the hour, and fresh after it", async () => {
    // "Within that hour, an identical request will be served from the cache instead of the
    // original API. After an hour, the cache expires and the request will go to the original API"
    await curl(ttlExample);
    await curl(ttlExample);
    clock.advance(3601 * 1000);
    await curl(ttlExample);
    expect(cachedFlags()).toEqual([false, true, false]);
    expect(emulator.mocks!.attempts).toHaveLength(2);
  });

  it("bypasses the cache with the skip-cache example", async () => {
    // "You can use the header cf-aig-skip-cache to bypass the cached version of the request."
    await curl(ttlExample);
    await curl(ttlExample);
    await curl(skipExample);
    expect(cachedFlags()).toEqual([false, true, false]);
    expect(emulator.mocks!.attempts).toHaveLength(2);
  });

  it("caches the custom-key example for 5 minutes on a gateway without caching", async () => {
    // "Subsequent requests with the same header will return the cached response." "If caching is
    // not enabled for the gateway, responses will be cached for 5 minutes by default."
    expect(emulator.state.gateways.get("open")!.settings.cache_ttl).toBe(0);
    await curl(keyExample);
    await curl(keyExample);
    clock.advance(5 * 60 * 1000 + 1000);
    await curl(keyExample);
    expect(cachedFlags()).toEqual([false, true, false]);
  });
});

describe("observability/custom-metadata.mdx", () => {
  it("logs the curl example's metadata with its types", async () => {
    // "Metadata values can be strings, numbers, or booleans, and will appear in your logs"
    const completion =
      await curl(`curl https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/openai/chat/completions \\
  --header 'Authorization: Bearer {api_token}' \\
  --header 'Content-Type: application/json' \\
  --header 'cf-aig-metadata: {"team": "AI", "user": 12345, "test":true}' \\
  --data '{"model": "gpt-4o", "messages": [{"role": "user", "content": "What should I eat for lunch?"}]}'`);
    expect(completion.object).toBe("chat.completion");
    const [log] = emulator.logs("open");
    expect(JSON.parse(log!.metadata!)).toEqual({ team: "AI", user: 12345, test: true });
  });

  it("logs the metadata the OpenAI SDK Worker example sends", async () => {
    // "To include custom metadata in your request using the OpenAI SDK"
    const baseURL = asWritten(
      "https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/openai",
      emulator,
      fills,
    );
    const worker = {
      async fetch(_request: Request, env: { OPENAI_API_KEY: string }, _ctx: unknown) {
        const openai = new OpenAI({
          apiKey: env.OPENAI_API_KEY,
          baseURL,
        });

        try {
          const chatCompletion = await openai.chat.completions.create(
            {
              model: "gpt-4o",
              messages: [{ role: "user", content: "What should I eat for lunch?" }],
              max_tokens: 50,
            },
            {
              headers: {
                "cf-aig-metadata": JSON.stringify({
                  user: "JaneDoe",
                  team: 12345,
                  test: true,
                }),
              },
            },
          );

          const response = chatCompletion.choices[0]!.message;
          return new Response(JSON.stringify(response));
        } catch (e) {
          console.log(e);
          return new Response(String(e));
        }
      },
    };
    const answer = await worker.fetch(
      new Request("http://worker.test/"),
      { OPENAI_API_KEY: "sk-openai" },
      {},
    );
    expect(JSON.parse(await answer.text())).toMatchObject({ role: "assistant" });
    const [log] = emulator.logs("open");
    expect(JSON.parse(log!.metadata!)).toEqual({ user: "JaneDoe", team: 12345, test: true });
  });
});
