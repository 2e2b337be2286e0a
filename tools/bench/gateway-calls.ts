/**
 * @module
 * The calls of the gateway benchmarks, each checking its answer: the emulator's universal
 * endpoint, Portkey's chat endpoint with a fallback config, and the mock provider called
 * directly (no gateway), plus how many upstream attempts one call makes.
 */
import type { MockProviders } from "../../src/emulator/mocks/index.ts";
import {
  accountId,
  benchKey,
  gatewayId,
  openAiChatBody,
  primary,
  secondary,
  universalBody,
} from "./fixtures.ts";
import { type Call, fetchPost, type Post, runLoad } from "./load.ts";
import { type PortkeyTarget, portkeyFallbackConfig } from "./servers/portkey.ts";

/** Portkey's targets for the bench route; `custom_host` is the mock's base plus the API prefix. */
export function portkeyTargets(
  mocks: Pick<MockProviders, "urls">,
  requestTimeoutMs?: number,
): PortkeyTarget[] {
  const timeout = requestTimeoutMs === undefined ? {} : { requestTimeoutMs };
  return [
    {
      provider: "groq",
      apiKey: benchKey("groq"),
      customHost: `${mocks.urls.groq}openai/v1`,
      model: primary.model,
      ...timeout,
    },
    {
      provider: "openai",
      apiKey: benchKey("openai"),
      customHost: `${mocks.urls.openai}v1`,
      model: secondary.model,
    },
  ];
}

/** A call to the emulator's universal endpoint that expects step `step` to serve. */
export function emulatorCall(
  emulatorUrl: string,
  steps: Parameters<typeof universalBody>[0],
  step: number,
  post: Post = fetchPost,
): Call {
  const url = `${emulatorUrl}/v1/${accountId}/${gatewayId}`;
  const body = JSON.stringify(universalBody(steps));
  const headers = { "content-type": "application/json" };
  return async () => {
    const answer = await post(url, headers, body);
    const served = answer.header("cf-aig-step");
    if (answer.status !== 200 || served !== String(step)) {
      throw new Error(`emulator: ${answer.status}, step ${served}: ${answer.text.slice(0, 200)}`);
    }
  };
}

/** A call to Portkey's chat endpoint that expects target `step` to serve. */
export function portkeyCall(
  portkeyUrl: string,
  targets: readonly PortkeyTarget[],
  step: number,
  post: Post = fetchPost,
): Call {
  const url = `${portkeyUrl}/v1/chat/completions`;
  const headers = {
    "content-type": "application/json",
    "x-portkey-config": portkeyFallbackConfig(targets),
  };
  const body = openAiChatBody(targets[0]!.model);
  return async () => {
    const answer = await post(url, headers, body);
    const served = answer.header("x-portkey-last-used-option-index");
    if (answer.status !== 200 || served !== `config.targets[${step}]`) {
      throw new Error(`Portkey: ${answer.status}, ${served}: ${answer.text.slice(0, 200)}`);
    }
  };
}

/**
 * A call straight to a mock provider's chat endpoint (no gateway): the most the load generator
 * and the mocks can do on this machine, the row every gateway is held against.
 */
export function directCall(
  mocks: Pick<MockProviders, "urls">,
  step: typeof primary,
  post: Post = fetchPost,
): Call {
  const path = step.provider === "groq" ? "openai/v1/chat/completions" : "v1/chat/completions";
  const url = `${mocks.urls[step.provider]}${path}`;
  const headers = {
    "content-type": "application/json",
    authorization: `Bearer ${benchKey(step.provider)}`,
  };
  const body = openAiChatBody(step.model);
  return async () => {
    const answer = await post(url, headers, body);
    if (answer.status !== 200) {
      throw new Error(`direct: ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
}

/** Upstream attempts per call, from a short run of `calls` calls alone. */
export async function attemptsPerCall(
  mocks: MockProviders,
  call: Call,
  calls = 20,
): Promise<number> {
  mocks.clearAttempts();
  const result = await runLoad(call, { count: calls });
  if (result.failures > 0) throw new Error(result.firstFailure);
  const attempts = mocks.attempts.length / calls;
  mocks.clearAttempts();
  return attempts;
}
