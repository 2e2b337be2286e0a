/**
 * @module
 * The main inline SVG chart of the HTML report, generated without any library: on top, the cost
 * of the calls per time bucket; below, the availability line on its own scale; one time axis
 * (`time-axis.ts`). Which provider/model served is charted per route (`route-charts.ts`), so
 * steps of different routes never share a colour. Buckets are re-binned (counts add up exactly)
 * to at most {@link maxChartBars} bars. Every cost bar carries `data-start`, `data-end`,
 * `data-calls` and `data-cost`; every availability point carries `data-start`,
 * `data-availability`, `data-answered` and `data-calls`; each has a `<title>` tooltip with the
 * numbers.
 */
import { isoTime, type SeriesPoint } from "../aggregate.ts";
import { escapeHtml } from "./escape.ts";
import { dollars, integer, percent } from "./format.ts";
import { timeAxisSvg } from "./time-axis.ts";

/** Most bars the chart draws; finer series are merged into wider bars. */
export const maxChartBars = 120;

/** One bar of the chart: a time range and its counts. */
export interface ChartBar {
  start: number;
  end: number;
  calls: number;
  answered: number;
  cost: number;
  steps: Record<string, number>;
}

const width = 960;
const left = 64;
const right = 16;
const costTop = 28;
const costHeight = 120;
const availabilityTop = costTop + costHeight + 36;
const availabilityHeight = 90;
const height = availabilityTop + availabilityHeight + 48;
const plotWidth = width - left - right;

/** Merges series points into at most `maxChartBars` bars of whole multiples of `bucketMs`. */
export function chartBars(points: readonly SeriesPoint[], bucketMs: number): ChartBar[] {
  if (points.length === 0) return [];
  const first = Date.parse(points[0]?.start ?? "");
  const last = Date.parse(points.at(-1)?.start ?? "");
  const slots = Math.round((last - first) / bucketMs) + 1;
  const factor = Math.max(1, Math.ceil(slots / maxChartBars));
  const size = bucketMs * factor;
  const bars = new Map<number, ChartBar>();
  for (const point of points) {
    const start = first + Math.floor((Date.parse(point.start) - first) / size) * size;
    const bar = bars.get(start) ?? {
      start,
      end: start + size,
      calls: 0,
      answered: 0,
      cost: 0,
      steps: {},
    };
    bar.calls += point.figures.calls;
    bar.answered += point.figures.answered;
    bar.cost += point.figures.cost;
    for (const [step, calls] of Object.entries(point.figures.steps)) {
      bar.steps[step] = (bar.steps[step] ?? 0) + calls;
    }
    bars.set(start, bar);
  }
  return [...bars.values()].sort((a, b) => a.start - b.start);
}

/** The chart as an `<svg>` element string. */
export function renderChart(bars: readonly ChartBar[]): string {
  if (bars.length === 0)
    return `<p class="empty">No calls in the window, so there is nothing to chart.</p>`;
  const first = bars[0]?.start ?? 0;
  const span = Math.max(1, (bars.at(-1)?.end ?? 1) - first);
  const x = (time: number) => left + ((time - first) / span) * plotWidth;
  const parts = costPanel(bars, x);
  parts.push(...availabilityPanel(bars, x));
  parts.push(
    ...timeAxisSvg({
      first,
      end: first + span,
      x,
      y: availabilityTop + availabilityHeight,
      left,
      right: width - right,
    }),
  );
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="Cost and availability over time" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>`;
}

/** A round top for the cost scale: 1, 2 or 5 times a power of ten, at least `value`. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10) * power;
}

function costPanel(bars: readonly ChartBar[], x: (time: number) => number): string[] {
  const top = niceCeiling(Math.max(...bars.map((bar) => bar.cost)));
  const parts = [`<text class="panel-title" x="${left}" y="18">Cost per bucket (USD)</text>`];
  for (const tick of [0, 0.5, 1]) {
    const y = costTop + costHeight * (1 - tick);
    parts.push(`<line class="grid" x1="${left}" x2="${width - right}" y1="${y}" y2="${y}"/>`);
    parts.push(
      `<text class="tick" x="${left - 6}" y="${y + 4}" text-anchor="end">${escapeHtml(costTick(top * tick))}</text>`,
    );
  }
  for (const bar of bars) {
    const x0 = x(bar.start);
    const barWidth = Math.max(0.5, x(bar.end) - x0 - (bars.length > 120 ? 0 : 1));
    const barHeight = costHeight * (bar.cost / top);
    parts.push(
      `<rect class="cost-bar" data-start="${isoTime(bar.start)}" data-end="${isoTime(bar.end)}" data-calls="${bar.calls}" data-cost="${bar.cost}" x="${fixed(x0)}" y="${fixed(costTop + costHeight - barHeight)}" width="${fixed(barWidth)}" height="${fixed(barHeight)}"><title>${isoTime(bar.start)} – ${isoTime(bar.end)}\ncost ${dollars(bar.cost)} (${integer(bar.calls)} calls)</title></rect>`,
    );
  }
  return parts;
}

/** `$0.05`, `$1.2`, `$0`: the cost scale's tick labels. */
function costTick(value: number): string {
  if (value === 0) return "$0";
  return `$${Number(value.toPrecision(3))}`;
}

function availabilityPanel(bars: readonly ChartBar[], x: (time: number) => number): string[] {
  const values = bars.map((bar) => bar.answered / bar.calls);
  // Zoom in on the interesting range: from a round step (1 % near the top, else 10 %) below the
  // lowest point, up to 100 %.
  const lowest = Math.min(...values);
  const step = lowest >= 0.9 ? 0.01 : 0.1;
  const floor = Math.max(0, Math.floor((lowest - step / 4) / step) * step);
  const y = (value: number) =>
    availabilityTop + availabilityHeight * (1 - (value - floor) / (1 - floor));
  const parts = [
    `<text class="panel-title" x="${left}" y="${availabilityTop - 12}">Availability (calls answered / calls made)</text>`,
  ];
  for (const tick of [floor, (floor + 1) / 2, 1]) {
    parts.push(
      `<line class="grid" x1="${left}" x2="${width - right}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}"/>`,
    );
    parts.push(
      `<text class="tick" x="${left - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end">${percent(tick, 1)}</text>`,
    );
  }
  const centers = bars.map((bar, index) => [
    fixed((x(bar.start) + x(bar.end)) / 2),
    fixed(y(values[index] ?? 0)),
  ]);
  parts.push(
    `<polyline class="availability-line" points="${centers.map((point) => point.join(",")).join(" ")}"/>`,
  );
  bars.forEach((bar, index) => {
    const value = values[index] ?? 0;
    const [cx, cy] = centers[index] ?? ["0", "0"];
    parts.push(
      `<circle class="availability-point" data-start="${isoTime(bar.start)}" data-availability="${value}" data-answered="${bar.answered}" data-calls="${bar.calls}" cx="${cx}" cy="${cy}" r="${bars.length > 120 ? 1.5 : 3}"><title>${isoTime(bar.start)}\navailability ${percent(value)} (${integer(bar.answered)} of ${integer(bar.calls)} calls answered)</title></circle>`,
    );
  });
  return parts;
}

function fixed(value: number): string {
  return String(Math.round(value * 100) / 100);
}
