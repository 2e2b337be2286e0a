# `jq -s -c -f bench/jq/group-by.jq events.jsonl`: the jq counterpart of `stepwise report`'s
# table. Slurps the file, groups by gateway, route, step, provider and model, and reports calls,
# successes, tokens, cost, cache hits and the latency p50/p95/p99 of each group.
def pct($p): .[((length - 1) * $p) | floor];
group_by([.gateway, .route, .step, .provider, .model])
| map({
    key: (.[0] | [.gateway, .route, .step, .provider, .model]),
    calls: length,
    ok: (map(select(.ok)) | length),
    tokensIn: (map(.tokensIn // 0) | add),
    tokensOut: (map(.tokensOut // 0) | add),
    cost: (map(.cost // 0) | add),
    cacheHits: (map(select(.cacheStatus == "HIT")) | length),
    latency: (map(.latencyMs) | sort | {p50: pct(0.5), p95: pct(0.95), p99: pct(0.99)})
  })
