/**
 * @module
 * One chart per route in the HTML report: stacked bars of the share of the route's calls each
 * provider/model served per time bucket, so one route's anthropic and another's openai never
 * share a colour because both are "step 0". Colours belong to a provider/model for the whole page
 * ({@link modelColors}), so a model reads the same in every route; `none` (no step served) is red.
 * Bars use the same time buckets and axis as the main chart. Every bar carries `data-route`,
 * `data-served` (`provider/model` or `none`), `data-start`, `data-calls`, `data-served-calls`,
 * `data-share` and its `fill`; each legend item `data-served` and its swatch colour.
 */
import type { ExplainPoint, Explanation, RouteExplanation } from "../explain.ts";
import { escapeHtml } from "./escape.ts";
import { integer, keyValue, percent, visibleControls } from "./format.ts";
import { timeAxisSvg } from "./time-axis.ts";

/** Colours handed to the provider/models of a page in order of first appearance. */
export const palette = [
  "#1c7ed6",
  "#f59f00",
  "#2f9e44",
  "#7048e8",
  "#e8590c",
  "#0c8599",
  "#d6336c",
  "#66a80f",
  "#5c7cfa",
  "#862e9c",
  "#fab005",
  "#495057",
];

/** Colour of calls no step served. */
export const noStepColor = "#c92a2a";

/** A colour per serving `provider/model` of the page (and `none`), stable for the page. */
export function modelColors(explanation: Explanation): Map<string, string> {
  const colors = new Map<string, string>([["none", noStepColor]]);
  let next = 0;
  for (const route of explanation.routes) {
    for (const step of route.steps) {
      if (step.provider === null && step.model === null) continue;
      const label = `${step.provider ?? "?"}/${step.model ?? "?"}`;
      if (colors.has(label)) continue;
      colors.set(label, palette[next % palette.length] ?? "#495057");
      next += 1;
    }
  }
  return colors;
}

/** The time range and bar size the main chart uses, which every route chart follows. */
export interface ChartFrame {
  first: number;
  end: number;
  /** Bar width in ms (a whole multiple of the series' bucket). */
  size: number;
}

const width = 960;
const left = 64;
const right = 16;
const top = 28;
const panelHeight = 120;
const height = top + panelHeight + 48;
const plotWidth = width - left - right;

interface RouteBar {
  start: number;
  calls: number;
  served: Map<string, number>;
}

function barsOf(series: readonly ExplainPoint[], frame: ChartFrame): RouteBar[] {
  const bars = new Map<number, RouteBar>();
  for (const point of series) {
    const time = Date.parse(point.start);
    const start = frame.first + Math.floor((time - frame.first) / frame.size) * frame.size;
    const bar = bars.get(start) ?? { start, calls: 0, served: new Map<string, number>() };
    bar.calls += point.calls;
    for (const [label, calls] of Object.entries(point.served)) {
      bar.served.set(label, (bar.served.get(label) ?? 0) + calls);
    }
    bars.set(start, bar);
  }
  return [...bars.values()].sort((a, b) => a.start - b.start);
}

/** The served labels of a route in legend order: its steps' models by step, then `none`. */
function labelsOf(route: RouteExplanation): string[] {
  const labels: string[] = [];
  for (const step of route.steps) {
    if (step.served === 0 || step.step === null) continue;
    const label = `${step.provider ?? "?"}/${step.model ?? "?"}`;
    if (!labels.includes(label)) labels.push(label);
  }
  for (const point of route.series) {
    for (const label of Object.keys(point.served)) {
      if (label !== "none" && !labels.includes(label)) labels.push(label);
    }
  }
  if (route.series.some((point) => (point.served.none ?? 0) > 0)) labels.push("none");
  return labels;
}

function fixed(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** One route's chart and legend, as a `<figure>`. */
export function routeChart(
  route: RouteExplanation,
  frame: ChartFrame,
  colors: ReadonlyMap<string, string>,
): string {
  const name = `${keyValue(route.key, "gateway")} / ${keyValue(route.key, "route")}`;
  const span = Math.max(1, frame.end - frame.first);
  const x = (time: number) => left + ((time - frame.first) / span) * plotWidth;
  const labels = labelsOf(route);
  const bars = barsOf(route.series, frame);
  const parts: string[] = [
    `<text class="panel-title" x="${left}" y="18">${escapeHtml(name)}: share of calls per serving provider/model</text>`,
  ];
  for (const tick of [0, 0.5, 1]) {
    const y = top + panelHeight * (1 - tick);
    parts.push(`<line class="grid" x1="${left}" x2="${width - right}" y1="${y}" y2="${y}"/>`);
    parts.push(
      `<text class="tick" x="${left - 6}" y="${y + 4}" text-anchor="end">${tick * 100}%</text>`,
    );
  }
  for (const bar of bars) {
    const x0 = x(bar.start);
    const barWidth = Math.max(0.5, x(bar.start + frame.size) - x0 - (bars.length > 120 ? 0 : 1));
    let stacked = 0;
    for (const label of labels) {
      const calls = bar.served.get(label) ?? 0;
      if (calls === 0) continue;
      const share = calls / bar.calls;
      const y = top + panelHeight * (1 - stacked - share);
      stacked += share;
      const start = new Date(bar.start).toISOString();
      const color = colors.get(label) ?? "#495057";
      parts.push(
        `<rect class="route-bar" data-route="${escapeHtml(String(route.key.route))}" data-served="${escapeHtml(label)}" data-start="${start}" data-calls="${bar.calls}" data-served-calls="${calls}" data-share="${share}" x="${fixed(x0)}" y="${fixed(y)}" width="${fixed(barWidth)}" height="${fixed(panelHeight * share)}" fill="${color}"><title>${escapeHtml(`${start}\n${visibleControls(label === "none" ? "no step" : label)}: ${percent(share)} (${integer(calls)} of ${integer(bar.calls)} calls)`)}</title></rect>`,
      );
    }
  }
  parts.push(
    ...timeAxisSvg({
      first: frame.first,
      end: frame.end,
      x,
      y: top + panelHeight,
      left,
      right: width - right,
    }),
  );
  const legend = labels
    .map(
      (label) =>
        `<span class="legend-item" data-served="${escapeHtml(label)}"><span class="swatch" style="background:${colors.get(label) ?? "#495057"}"></span>${escapeHtml(label === "none" ? "no step" : visibleControls(label))}</span>`,
    )
    .join("");
  const svg = `<svg class="chart route-chart" data-route="${escapeHtml(String(route.key.route))}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(`${name}: share of calls per serving provider/model over time`)}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>`;
  return `<figure class="route-figure" data-route="${escapeHtml(String(route.key.route))}" data-gateway="${escapeHtml(String(route.key.gateway))}">${svg}<figcaption class="legend">${legend}</figcaption></figure>`;
}
