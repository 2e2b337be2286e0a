/**
 * Writes `dashboards/step-rates.json` from `src/analytics/grafana-dashboard.ts`, or with `--check`
 * fails when the file differs from what the module builds.
 *
 * Usage: `npx tsx tools/scripts/grafana-dashboard.ts [--check]` (npm run dashboard[:check]).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { stepRatesDashboardText } from "../../src/analytics/grafana-dashboard.ts";

const file = fileURLToPath(new URL("../../dashboards/step-rates.json", import.meta.url));
const text = stepRatesDashboardText();
if (process.argv.includes("--check")) {
  if (readFileSync(file, "utf8") !== text) {
    console.error("dashboards/step-rates.json is out of date: run npm run dashboard");
    process.exit(1);
  }
} else {
  writeFileSync(file, text);
  console.log("wrote dashboards/step-rates.json");
}
