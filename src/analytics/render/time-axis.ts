/**
 * @module
 * The time axis every chart of the HTML report shares: ticks at round UTC times (1 min … 7 days
 * apart, at most {@link maxTicks}), labelled `HH:MM` within a day and `MM-DD` (with the time when
 * it is not a whole-day step) at the first tick and where the day changes, and one axis title, `time (UTC)`, under the axis.
 */
import { isoTime } from "../aggregate.ts";
import { escapeHtml } from "./escape.ts";

/** Most ticks on an axis. */
export const maxTicks = 8;

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const tickSteps = [
  minute,
  5 * minute,
  10 * minute,
  15 * minute,
  30 * minute,
  hour,
  2 * hour,
  3 * hour,
  6 * hour,
  12 * hour,
  day,
  2 * day,
  7 * day,
];

/** One tick: its time and label. */
export interface TimeTick {
  time: number;
  label: string;
}

/** Round ticks in [first, end], at most `maxTicks` of them. */
export function timeTicks(first: number, end: number): TimeTick[] {
  const span = Math.max(1, end - first);
  const step =
    tickSteps.find((size) => Math.floor(span / size) + 1 <= maxTicks) ?? tickSteps.at(-1) ?? day;
  const ticks: TimeTick[] = [];
  let previousDay: string | null = null;
  for (let time = Math.ceil(first / step) * step; time <= end; time += step) {
    const iso = isoTime(time);
    const date = iso.slice(5, 10);
    const clock = iso.slice(11, 16);
    const label = step >= day ? date : date === previousDay ? clock : `${date} ${clock}`;
    ticks.push({ time, label });
    previousDay = date;
  }
  return ticks;
}

/** The SVG of an axis: tick marks and labels at `y`, and the axis title below them. */
export function timeAxisSvg(options: {
  first: number;
  end: number;
  x: (time: number) => number;
  y: number;
  left: number;
  right: number;
}): string[] {
  const { first, end, x, y, left, right } = options;
  const parts = [`<line class="axis" x1="${left}" x2="${right}" y1="${y}" y2="${y}"/>`];
  for (const tick of timeTicks(first, end)) {
    const at = Math.round(x(tick.time) * 100) / 100;
    parts.push(`<line class="axis" x1="${at}" x2="${at}" y1="${y}" y2="${y + 4}"/>`);
    parts.push(
      `<text class="tick time-tick" data-time="${isoTime(tick.time)}" x="${at}" y="${y + 16}" text-anchor="middle">${escapeHtml(tick.label)}</text>`,
    );
  }
  parts.push(
    `<text class="axis-title" x="${(left + right) / 2}" y="${y + 32}" text-anchor="middle">time (UTC)</text>`,
  );
  return parts;
}
