/**
 * @module
 * What request handling needs from the running emulator: the config, injected clock, sleep,
 * upstream transport, ids and randomness, the upstreams, the gateways and the cache. Built once by
 * `startEmulator`; handlers receive it as an argument (no module state).
 */
import type { StepwiseConfig } from "../config/index.ts";
import type { PriceTable } from "../providers/index.ts";
import type { CreditBalance } from "./features/credits.ts";
import type { ResponseCache } from "./features/response-cache.ts";
import type { FaultPicker } from "./mocks/index.ts";
import type { GatewayStore } from "./state/gateway-store.ts";
import type { UpstreamTransport } from "./transport/attempt.ts";
import type { CallAbort } from "./transport/call-abort.ts";
import type { UpstreamRegistry } from "./transport/upstreams.ts";

export interface EmulatorServices {
  readonly config: StepwiseConfig;
  readonly prices: PriceTable;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Makes upstream attempts: `node:http` by default, an injected `fetch` in some tests. */
  readonly transport: UpstreamTransport;
  readonly generateId: () => string;
  /** A number in [0, 1) for percentage splits. */
  readonly random: () => number;
  /** The token `cf-aig-authorization: Bearer <token>` must carry on authenticated gateways. */
  readonly gatewayToken: string;
  readonly upstreams: UpstreamRegistry;
  readonly gateways: GatewayStore;
  readonly cache: ResponseCache;
  /** The account's Unified Billing credits. */
  readonly credits: CreditBalance;
  /** The fault schedule's Guardrails outcomes, which the gateway applies; absent without any. */
  readonly guardrails: FaultPicker | undefined;
  /** Time to first byte when nothing sets a request timeout, in ms. */
  readonly defaultTimeoutMs: number;
  /** Every in-flight request's controller; the emulator aborts them all when it closes. */
  readonly inFlight: Set<CallAbort>;
  /** Which upstream statuses are failures that retry and fall back (see `step/step-runner.ts`). */
  readonly failOn: "retryable" | "any-error";
  /** Permissive mode: dynamic routes without Cloudflare's requirements (see `EmulatorOptions`). */
  readonly lenient: boolean;
  /** The emulator's own base URL, e.g. `http://127.0.0.1:8787` (known once it listens). */
  readonly publicUrl: () => string;
  /** Called with unexpected errors (bugs); the client gets a 500 body, the server stays up. */
  readonly onError: (error: unknown) => void;
}
