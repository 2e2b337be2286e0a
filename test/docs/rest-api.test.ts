/**
 * docs/emulator.md's REST API commands, run as written against `stepwise dev`: the curl call to
 * the AI REST API URL the emulator prints, and `--credits 0`, under which a call paid with
 * Cloudflare's key is refused with 402 (code 2021).
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  documented,
  interrupt,
  makeSandbox,
  runDocumented,
  type Sandbox,
  startDocumented,
} from "./documented.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await makeSandbox();
});
afterAll(() => sandbox.remove());

const curl = documented(
  'curl -X POST "$STEPWISE_AI_URL/chat/completions" --header "Authorization: Bearer stepwise-dev-token" --header "Content-Type: application/json" --data \'{"model": "openai/gpt-4.1", "messages": [{"role": "user", "content": "What is Cloudflare?"}]}\'',
);

describe("the REST API, as docs/emulator.md shows it", () => {
  it("answers the documented curl call on the AI REST API URL stepwise dev prints", async () => {
    // `--port 0`: the test listens on a port chosen at run time, never on the fixed 8787.
    const dev = startDocumented(documented("npx stepwise dev --stack dev --credits 0"), {
      sandbox,
      append: "--port 0",
    });
    onTestFinished(() => dev.stop().then(() => undefined));
    const [, aiUrl] = await dev.waitFor(/AI REST API\s+(\S+)/);
    expect(aiUrl).toMatch(/\/client\/v4\/accounts\/[0-9a-f]{32}\/ai\/v1$/);
    // With no credits, a call with no provider key (Unified Billing) is refused...
    const refused = await runDocumented(curl, {
      sandbox,
      env: { STEPWISE_AI_URL: aiUrl! },
    });
    expect(refused.code, refused.output).toBe(0);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      name: "AiGatewayError",
      error: [{ code: 2021 }],
    });
    expect(await interrupt(dev), dev.output()).toBe(true);
    // ...and with the default (unlimited) credits the same command is answered.
    const open = startDocumented("npx stepwise dev --stack dev --credits 0", {
      sandbox,
      append: "--port 0 --credits 1000",
    });
    onTestFinished(() => open.stop().then(() => undefined));
    const [, openUrl] = await open.waitFor(/AI REST API\s+(\S+)/);
    const answered = await runDocumented(curl, {
      sandbox,
      env: { STEPWISE_AI_URL: openUrl! },
    });
    expect(answered.code, answered.output).toBe(0);
    const completion = JSON.parse(answered.stdout) as {
      object: string;
      choices: { message: { content: string } }[];
    };
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.message.content).toContain(
      "Mock answer from openai model gpt-4.1",
    );
  });
});
