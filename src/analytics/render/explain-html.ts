/**
 * @module
 * The explanation in the HTML report (`explain.ts`): a chart per route of the provider/models that
 * served (`route-charts.ts`), the per-step table of every route with its failures by reason (a
 * cell per reason with `data-reason`, and a bar of the step's failures coloured by reason), kept
 * whatever `--by` groups the rest by, and the cost of fallback beside the primary.
 */
import type { Explanation, StepExplanation } from "../explain.ts";
import { type FailureReason, failureReasonLabels, failureReasons } from "../failure-reasons.ts";
import type { Report } from "../report.ts";
import { escapeHtml } from "./escape.ts";
import {
  extraText,
  onPrimaryText,
  pricingNote,
  primaryText,
  stepModelText,
} from "./explain-text.ts";
import { dollars, integer, keyValue, percent } from "./format.ts";
import { cell, table } from "./html-parts.ts";
import { type ChartFrame, modelColors, routeChart } from "./route-charts.ts";

/** A colour per failure reason, for the reason bars and their legend. */
export const reasonColors: Readonly<Record<FailureReason, string>> = {
  rate_limited: "#f08c00",
  client_error: "#ae3ec9",
  server_error: "#e03131",
  timeout: "#1971c2",
  stream_break: "#0ca678",
  refusal: "#845ef7",
  validation: "#f783ac",
  unreadable: "#868e96",
  network: "#343a40",
  no_detail: "#ced4da",
  other: "#adb5bd",
};

/** The route charts, or "" when there is nothing to chart. */
export function routeCharts(report: Report, frame: ChartFrame | null): string {
  const { explanation } = report;
  if (explanation === null || frame === null || explanation.routes.length === 0) return "";
  const colors = modelColors(explanation);
  return `<h2>Which provider/model served, per route</h2>\n<div id="route-charts">${explanation.routes
    .map((route) => routeChart(route, frame, colors))
    .join("\n")}</div>`;
}

/** The per-step table and the fallback-cost table, or "" when the source recorded none. */
export function explainTables(report: Report): string {
  const { explanation } = report;
  if (explanation === null || explanation.routes.length === 0) return "";
  return [stepsTable(explanation), fallbackTable(explanation)].join("\n");
}

function reasonsUsed(explanation: Explanation): FailureReason[] {
  return failureReasons.filter((reason) => (explanation.totals.reasons[reason] ?? 0) > 0);
}

/** A bar of the step's failures, one segment per reason, 120 px for the route's worst step. */
function reasonBar(step: StepExplanation, most: number): string {
  if (step.failed === 0) return "";
  const barWidth = 120;
  let x = 0;
  const segments = (Object.entries(step.reasons) as Array<[FailureReason, number]>).map(
    ([reason, count]) => {
      const w = (count / most) * barWidth;
      const rect = `<rect class="reason-segment" data-reason="${reason}" data-count="${count}" x="${Math.round(x * 100) / 100}" y="0" width="${Math.round(w * 100) / 100}" height="10" fill="${reasonColors[reason]}"><title>${escapeHtml(`${failureReasonLabels[reason]}: ${integer(count)}`)}</title></rect>`;
      x += w;
      return rect;
    },
  );
  return `<svg class="reason-bar" width="${barWidth}" height="10" viewBox="0 0 ${barWidth} 10" role="img" aria-label="failures by reason" xmlns="http://www.w3.org/2000/svg">${segments.join("")}</svg>`;
}

function stepsTable(explanation: Explanation): string {
  const reasons = reasonsUsed(explanation);
  const most = Math.max(
    1,
    ...explanation.routes.flatMap((route) => route.steps.map((step) => step.failed)),
  );
  const rows = explanation.routes.flatMap((route) =>
    route.steps.map((step) => {
      const reasonCells = reasons.map(
        (reason) =>
          `<td class="num" data-figure="failed" data-reason="${reason}" data-value="${step.reasons[reason] ?? 0}">${integer(step.reasons[reason] ?? 0)}</td>`,
      );
      const stepText = step.step === null ? "none" : String(step.step);
      return `<tr data-route="${escapeHtml(String(route.key.route))}" data-step="${stepText}"><td class="key" data-dimension="gateway">${escapeHtml(keyValue(route.key, "gateway"))}</td><td class="key" data-dimension="route">${escapeHtml(keyValue(route.key, "route"))}</td><td class="num" data-dimension="step">${stepText}</td><td class="key" data-dimension="served">${escapeHtml(stepModelText(step))}</td>${cell({ figure: "served", value: step.served, text: integer(step.served) })}${cell({ figure: "share", value: step.share, text: percent(step.share) })}${cell({ figure: "cost", value: step.cost, text: dollars(step.cost) })}${cell({ figure: "failed", value: step.failed, text: integer(step.failed) })}${reasonCells.join("")}<td class="reasons">${reasonBar(step, most)}</td></tr>`;
    }),
  );
  const head = [
    "gateway",
    "route",
    "#step",
    "provider/model",
    "#served",
    "#share",
    "#cost",
    "#failed",
    ...reasons.map((reason) => `#${failureReasonLabels[reason]}`),
    "failures",
  ];
  const legend =
    reasons.length === 0
      ? `<p class="meta" id="no-failures">No step failed in the window.</p>`
      : `<p class="legend" id="reason-legend">${reasons
          .map(
            (reason) =>
              `<span class="legend-item" data-reason="${reason}"><span class="swatch" style="background:${reasonColors[reason]}"></span>${escapeHtml(failureReasonLabels[reason])}</span>`,
          )
          .join("")}</p>`;
  return `${table("steps", "Steps per route: calls served and failures by reason", head, rows)}\n${legend}`;
}

function fallbackTable(explanation: Explanation): string {
  const rows = explanation.routes.map(
    (route) =>
      `<tr data-route="${escapeHtml(String(route.key.route))}"><td class="key" data-dimension="gateway">${escapeHtml(keyValue(route.key, "gateway"))}</td><td class="key" data-dimension="route">${escapeHtml(keyValue(route.key, "route"))}</td>${cell({ figure: "cost", value: route.cost, text: dollars(route.cost) })}${cell({ figure: "fallbackCalls", value: route.fallback.calls, text: integer(route.fallback.calls) })}${cell({ figure: "fallbackCost", value: route.fallback.cost, text: dollars(route.fallback.cost) })}<td class="key" data-dimension="primary">${escapeHtml(primaryText(route.fallback))}</td>${cell({ figure: "costOnPrimary", value: route.fallback.onPrimary, text: onPrimaryText(route.fallback.onPrimary) })}${cell({ figure: "fallbackExtraCost", value: route.fallback.extra, text: extraText(route.fallback.extra) })}</tr>`,
  );
  const { totals } = explanation;
  if (explanation.routes.length > 1) {
    rows.push(
      `<tr class="total"><td colspan="2">total</td>${cell({ figure: "cost", value: totals.cost, text: dollars(totals.cost) })}${cell({ figure: "fallbackCalls", value: totals.fallback.calls, text: integer(totals.fallback.calls) })}${cell({ figure: "fallbackCost", value: totals.fallback.cost, text: dollars(totals.fallback.cost) })}<td></td>${cell({ figure: "costOnPrimary", value: totals.fallback.onPrimary, text: onPrimaryText(totals.fallback.onPrimary) })}${cell({ figure: "fallbackExtraCost", value: totals.fallback.extra, text: extraText(totals.fallback.extra) })}</tr>`,
    );
  }
  const head = [
    "gateway",
    "route",
    "#cost",
    "#fallback calls",
    "#fallback cost",
    "primary",
    "#on primary",
    "#extra",
  ];
  const note = pricingNote(explanation);
  return `${table("fallback-cost", "Cost of fallback beside the primary (the fallback calls' tokens at the primary's price)", head, rows)}${note === null ? "" : `\n<p class="meta">${escapeHtml(note)}</p>`}`;
}
