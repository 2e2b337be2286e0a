/**
 * @module
 * A bare Worker in workerd that forwards every request unchanged to one upstream: the loopback
 * hop and workerd itself, without the Stepwise proxy. The Worker benchmarks measure the proxy
 * against it.
 */
import { Miniflare } from "miniflare";
import type { Cleanup } from "../cleanup.ts";

const script = `export default {
  fetch(request, env) {
    const url = new URL(request.url);
    return fetch(env.UPSTREAM + url.pathname + url.search, request);
  },
};`;

/** Starts the forwarding Worker in front of `upstreamUrl`; returns its base URL (no slash). */
export async function startForwardingWorker(
  cleanup: Cleanup,
  upstreamUrl: string,
): Promise<string> {
  const miniflare = cleanup.add(
    new Miniflare({
      modules: true,
      script,
      compatibilityDate: "2026-04-01",
      bindings: { UPSTREAM: upstreamUrl.replace(/\/$/, "") },
      host: "127.0.0.1",
      port: 0,
    }),
    (started) => started.dispose(),
  );
  return (await miniflare.ready).toString().replace(/\/$/, "");
}
