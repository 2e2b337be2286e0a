# `jq -n -c -f bench/jq/stream-reduce.jq events.jsonl`: a streaming jq aggregation in constant
# memory, one pass with `reduce inputs`. Same groups and sums as group-by.jq, but no latency
# percentiles (they need every latency of a group at once).
reduce inputs as $e ({};
  ([$e.gateway, $e.route, ($e.step | tostring), $e.provider, $e.model] | join("|")) as $k
  | .[$k].calls += 1
  | .[$k].ok += (if $e.ok then 1 else 0 end)
  | .[$k].tokensIn += ($e.tokensIn // 0)
  | .[$k].tokensOut += ($e.tokensOut // 0)
  | .[$k].cost += ($e.cost // 0)
  | .[$k].cacheHits += (if $e.cacheStatus == "HIT" then 1 else 0 end)
  | .[$k].latencyMsSum += $e.latencyMs)
