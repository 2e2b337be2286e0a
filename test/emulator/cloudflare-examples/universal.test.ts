/**
 * The curl examples of Cloudflare's usage/universal.mdx (with its partial
 * universal-gateway-example.mdx) and configuration/request-handling.mdx, sent to the emulator as
 * written through the real curl binary. Not run: universal.mdx's WebSockets example (the emulator
 * has no WebSocket endpoint, docs/emulator.md "Not emulated") and its Workers binding example
 * (`env.AI.gateway(...).run`, which needs the Workers runtime's AI binding; the same body is the
 * curl example, which runs).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator, EmulatorOptions } from "../../../src/emulator/index.ts";
import { emulatorWith, testConfig } from "../helpers.ts";
import { asWritten, jsonOf, runCurl, streamEventsOf } from "./as-written.ts";

let emulator: Emulator | undefined;
let sleeps: number[] = [];
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: Partial<EmulatorOptions> = {}) {
  const started = await emulatorWith({ config: testConfig(), ...options });
  emulator = started.emulator;
  sleeps = started.clock.sleeps;
  return started;
}

const fills = {
  "{gateway_id}": "open",
  "{cloudflare_token}": "workers-ai-token",
  "{open_ai_token}": "sk-openai-token",
};

/** Runs a page's curl example on the `open` gateway; bash must end well. */
async function curl(example: string) {
  const run = await runCurl(asWritten(example, emulator!, fills));
  expect(run.code, run.stderr).toBe(0);
  return run;
}

const partialExample = `curl https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id} \\
  --header 'Content-Type: application/json' \\
  --data '[
  {
    "provider": "workers-ai",
    "endpoint": "@cf/meta/llama-3.1-8b-instruct",
    "headers": {
      "Authorization": "Bearer {cloudflare_token}",
      "Content-Type": "application/json"
    },
    "query": {
      "messages": [
        {
          "role": "system",
          "content": "You are a friendly assistant"
        },
        {
          "role": "user",
          "content": "What is Cloudflare?"
        }
      ]
    }
  },
  {
    "provider": "openai",
    "endpoint": "chat/completions",
    "headers": {
      "Authorization": "Bearer {open_ai_token}",
      "Content-Type": "application/json"
    },
    "query": {
      "model": "gpt-4o-mini",
      "stream": true,
      "messages": [
        {
          "role": "user",
          "content": "What is Cloudflare?"
        }
      ]
    }
  }
]'`;

describe("usage/universal.mdx, cURL example", () => {
  // "The above will send a request to Workers AI Inference API, if it fails it will proceed to
  // OpenAI."
  it("answers from Workers AI", async () => {
    await start();
    const answer = jsonOf(await curl(partialExample));
    expect(answer).toMatchObject({ success: true, result: { response: expect.any(String) } });
    expect(emulator!.logs("open")).toMatchObject([{ provider: "workers-ai", step: 0 }]);
  });

  it("proceeds to OpenAI, streamed as its query asks, when Workers AI fails", async () => {
    await start({ faults: { rules: [{ provider: "workers-ai", kind: "unavailable" }] } });
    const events = streamEventsOf(await curl(partialExample)) as {
      choices: { delta: { content?: string } }[];
    }[];
    const text = events.map((event) => event.choices[0]?.delta.content ?? "").join("");
    expect(text).toContain("Mock answer from openai");
    expect(emulator!.logs("open").map((log) => [log.provider, log.step, log.success])).toEqual([
      ["workers-ai", 0, false],
      ["openai", 1, true],
    ]);
  });
});

describe("usage/universal.mdx, Hierarchy example", () => {
  const example = `curl https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id} \\
  --header 'Content-Type: application/json' \\
  --header 'cf-aig-cache-ttl: 3600' \\
  --data '[
    {
      "provider": "workers-ai",
      "endpoint": "@cf/meta/llama-3.1-8b-instruct",
      "headers": {
        "Authorization": "Bearer {cloudflare_token}",
        "Content-Type": "application/json"
      },
      "query": {
        "messages": [
          {
            "role": "system",
            "content": "You are a friendly assistant"
          },
          {
            "role": "user",
            "content": "What is Cloudflare?"
          }
        ]
      }
    },
    {
      "provider": "openai",
      "endpoint": "chat/completions",
      "headers": {
        "Authorization": "Bearer {open_ai_token}",
        "Content-Type": "application/json",
        "cf-aig-cache-ttl": "0"
      },
      "query": {
        "model": "gpt-4o-mini",
        "stream": true,
        "messages": [
          {
            "role": "user",
            "content": "What is Cloudflare?"
          }
        ]
      }
    }
  ]'`;

  it("caches the Workers AI answer for the request-level TTL", async () => {
    // "Request-level header: The `cf-aig-cache-ttl` is set to `3600` seconds, applying this
    // caching duration to the request by default."
    const { clock } = await start();
    await curl(example);
    await curl(example);
    clock.advance(3601 * 1000);
    await curl(example);
    expect(emulator!.logs("open").map((log) => [log.provider, log.cached])).toEqual([
      ["workers-ai", false],
      ["workers-ai", true],
      ["workers-ai", false],
    ]);
  });

  it("never serves the OpenAI fallback from the cache", async () => {
    // "For the fallback provider (OpenAI), `cf-aig-cache-ttl` is explicitly set to `0` seconds,
    // overriding the request-level header and disabling caching for responses when OpenAI is used
    // as the provider."
    await start({ faults: { rules: [{ provider: "workers-ai", kind: "unavailable" }] } });
    await curl(example);
    await curl(example);
    const served = emulator!.logs("open").filter((log) => log.provider === "openai");
    expect(served.map((log) => [log.success, log.cached])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(emulator!.mocks!.attempts.filter((a) => a.provider === "openai")).toHaveLength(2);
  });
});

describe("configuration/request-handling.mdx", () => {
  it("falls back when the first step passes its requestTimeout (trailing commas as written)", async () => {
    // "If set on a Universal Endpoint, a request timeout specifies the timeout duration for
    // requests and triggers a fallback."
    await start({
      faults: {
        rules: [
          { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct", kind: "no-response" },
        ],
      },
    });
    const answer = jsonOf(
      await curl(`curl 'https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}' \\
	--header 'Content-Type: application/json' \\
	--data '[
    {
        "provider": "workers-ai",
        "endpoint": "@cf/meta/llama-3.1-8b-instruct",
        "headers": {
            "Authorization": "Bearer {cloudflare_token}",
            "Content-Type": "application/json"
        },
        "config": {
            "requestTimeout": 1000
        },
        "query": {
            "messages": [
                {
                    "role": "system",
                    "content": "You are a friendly assistant"
                },
                {
                    "role": "user",
                    "content": "What is Cloudflare?"
                }
            ]
        }
    },
    {
        "provider": "workers-ai",
        "endpoint": "@cf/meta/llama-3.1-8b-instruct-fast",
        "headers": {
            "Authorization": "Bearer {cloudflare_token}",
            "Content-Type": "application/json"
        },
        "query": {
            "messages": [
                {
                    "role": "system",
                    "content": "You are a friendly assistant"
                },
                {
                    "role": "user",
                    "content": "What is Cloudflare?"
                }
            ]
        },
				"config": {
            "requestTimeout": 3000
        },
    }
]'`),
    );
    expect(answer).toMatchObject({ success: true });
    expect(emulator!.logs("open").map((log) => [log.model, log.error ?? null])).toEqual([
      ["@cf/meta/llama-3.1-8b-instruct", "timeout"],
      ["@cf/meta/llama-3.1-8b-instruct-fast", null],
    ]);
  });

  it("retries the first step as its config says before falling back", async () => {
    // "If set on a Universal Endpoint, a request retry will automatically retry failed requests up
    // to five times before triggering any configured fallbacks."
    await start({
      faults: {
        rules: [
          { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct", kind: "unavailable" },
        ],
      },
    });
    const answer = jsonOf(
      await curl(`curl 'https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}' \\
	--header 'Content-Type: application/json' \\
	--data '[
    {
        "provider": "workers-ai",
        "endpoint": "@cf/meta/llama-3.1-8b-instruct",
        "headers": {
            "Authorization": "Bearer {cloudflare_token}",
            "Content-Type": "application/json"
        },
        "config": {
            "maxAttempts": 2,
						"retryDelay": 1000,
						"backoff": "constant"
        },
        "query": {
            "messages": [
                {
                    "role": "system",
                    "content": "You are a friendly assistant"
                },
                {
                    "role": "user",
                    "content": "What is Cloudflare?"
                }
            ]
        }
    },
    {
        "provider": "workers-ai",
        "endpoint": "@cf/meta/llama-3.1-8b-instruct-fast",
        "headers": {
            "Authorization": "Bearer {cloudflare_token}",
            "Content-Type": "application/json"
        },
        "query": {
            "messages": [
                {
                    "role": "system",
                    "content": "You are a friendly assistant"
                },
                {
                    "role": "user",
                    "content": "What is Cloudflare?"
                }
            ]
        },
				"config": {
            "maxAttempts": 4,
						"retryDelay": 1000,
						"backoff": "exponential"
        },
    }
]'`),
    );
    expect(answer).toMatchObject({ success: true });
    expect(emulator!.mocks!.attempts.map((attempt) => [attempt.model, attempt.status])).toEqual([
      ["@cf/meta/llama-3.1-8b-instruct", 503],
      ["@cf/meta/llama-3.1-8b-instruct", 503],
      ["@cf/meta/llama-3.1-8b-instruct-fast", 200],
    ]);
    // "How long before retrying (in milliseconds, maximum of 5 seconds)": 1000 ms, constant.
    expect(sleeps).toEqual([1000]);
  });

  it("answers the direct-provider example as bash runs it: without its body", async () => {
    // The page's example lacks the `\` after `cf-aig-request-timeout: 5000`, so bash runs curl
    // without `--data` (a GET) and then fails on `--data` as a command. The emulator answers that
    // GET with JSON, never a crash, and records it.
    await start();
    const run = await runCurl(
      asWritten(
        `curl https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/workers-ai/@cf/meta/llama-3.1-8b-instruct \\
 --header 'Authorization: Bearer {cf_api_token}' \\
 --header 'Content-Type: application/json' \\
 --header 'cf-aig-request-timeout: 5000'
 --data '{"prompt": "What is Cloudflare?"}'`,
        emulator!,
        { ...fills, "{cf_api_token}": "workers-ai-token" },
      ),
    );
    expect(run.stderr).toMatch(/--data: command not found/);
    const firstLine = run.stdout.split("\n")[0]!;
    expect(() => JSON.parse(firstLine)).not.toThrow();
    expect(emulator!.logs("open")).toHaveLength(1);
  });
});
