/**
 * @module
 * The measurement behind the Worker's choice of per-app limiter: a Durable Object counter (what
 * `AppLimiter` is) against Cloudflare's Workers Rate Limiting binding (`ratelimits` in
 * wrangler.jsonc), both in workerd through Miniflare: what each adds to a request, and what each
 * allows of 60 parallel requests against a limit of 10.
 */
import { Miniflare } from "miniflare";
import type { Cleanup } from "./cleanup.ts";
import { type Call, runInterleaved } from "./load.ts";
import { markdownTable } from "./markdown.ts";
import { formatDeltaMs, formatMs, summarize } from "./stats.ts";

const limit = 10;
const parallel = 60;

/** A Worker that counts each request with one mechanism or the other (or none). */
const script = `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  count = 0;
  async admit(limit) { if (this.count >= limit) return false; this.count++; return true; }
}
export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    let allowed = true;
    if (path === "/binding") allowed = (await env.LIMITER.limit({ key: "app" })).success;
    if (path === "/durable-object") allowed = await env.COUNTER.get(env.COUNTER.idFromName("app")).admit(${limit});
    return new Response(null, { status: allowed ? 204 : 429 });
  },
};`;

/** Runs the comparison; returns its Markdown table and notes. */
export async function measureLimiters(
  cleanup: Cleanup,
  options: { quick: boolean; progress: (text: string) => void },
): Promise<string> {
  const miniflare = cleanup.add(
    new Miniflare({
      modules: true,
      script,
      compatibilityDate: "2026-04-01",
      ratelimits: { LIMITER: { simple: { limit, period: 60 } } },
      durableObjects: { COUNTER: { className: "Counter", useSQLite: true } },
      host: "127.0.0.1",
      port: 0,
    }),
    (started) => started.dispose(),
  );
  const url = (await miniflare.ready).toString().replace(/\/$/, "");
  const allowedOf = async (path: string) => {
    const statuses = await Promise.all(
      Array.from({ length: parallel }, async () => (await fetch(`${url}${path}`)).status),
    );
    return statuses.filter((status) => status === 204).length;
  };
  const allowed = {
    binding: await allowedOf("/binding"),
    durable: await allowedOf("/durable-object"),
  };
  // After the burst both refuse every request: the timing below is the cost of the check alone.
  const request =
    (path: string): Call =>
    async () => {
      const response = await fetch(`${url}${path}`);
      await response.arrayBuffer();
    };
  const timed = await runInterleaved(
    { none: request("/"), binding: request("/binding"), durable: request("/durable-object") },
    {
      count: options.quick ? 300 : 1_000,
      blocks: options.quick ? 2 : 4,
      warmup: 50,
      onBlock: (done, total) => options.progress(`limiter comparison block ${done}/${total}`),
    },
  );
  const median = (side: "none" | "binding" | "durable") =>
    summarize(timed.sides[side].latencies).median;
  return markdownTable(
    [
      "per-app limiter",
      `${parallel} parallel vs a limit of ${limit}`,
      "median",
      "added",
      "on Cloudflare",
    ],
    [
      ["none", "—", formatMs(median("none")), "—", "—"],
      [
        "Workers Rate Limiting binding",
        `${allowed.binding} allowed`,
        formatMs(median("binding")),
        formatDeltaMs(median("binding") - median("none")),
        "counts per location, documented as approximate; one fixed limit and period (10 or 60 s) per binding",
      ],
      [
        "Durable Object counter (`AppLimiter`)",
        `${allowed.durable} allowed`,
        formatMs(median("durable")),
        formatDeltaMs(median("durable") - median("none")),
        "one object per app: exact wherever calls come from; any limit and window per app",
      ],
    ],
    ["left", "right", "right", "right", "left"],
  );
}
