/**
 * @module
 * Number and label formatting shared by the renderers. Renderers round only for display; JSON
 * and CSV carry full precision.
 */
import type { Dimension, GroupKey } from "../aggregate.ts";
import type { Figures } from "../figures.ts";

/**
 * `0.98765` → `98.77%`; null → `—`. Only exact 100 % and 0 % display as such: 0.99998 shows as
 * `99.99%` and 0.00002 as `0.01%`, so one failed call in 50,000 never reads as 100 % available.
 */
export function percent(rate: number | null, digits = 2): string {
  if (rate === null) return "—";
  const unit = 10 ** -digits;
  let value = rate * 100;
  if (rate < 1 && Number(value.toFixed(digits)) >= 100) value = 100 - unit;
  if (rate > 0 && Number(value.toFixed(digits)) <= 0) value = unit;
  return `${value.toFixed(digits)}%`;
}

/** `1234567` → `1,234,567`. */
export function integer(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** Latency in ms: whole ms from 10 ms up, one decimal below; null → `—`. */
export function milliseconds(value: number | null): string {
  if (value === null) return "—";
  return value >= 10 ? integer(value) : value.toFixed(1);
}

/** USD with 4 decimals: `$12.3456`. */
export function dollars(value: number): string {
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 })}`;
}

/** Signed change in percentage points: `+1.25 pp`; null → `—`. */
export function pointsChange(delta: number | null): string {
  if (delta === null) return "—";
  const points = delta * 100;
  return `${points >= 0 ? "+" : ""}${points.toFixed(2)} pp`;
}

/** Signed relative change: `+12.5%`; null → `—`. */
export function relativeChange(relative: number | null): string {
  if (relative === null) return "—";
  return `${relative >= 0 ? "+" : ""}${(relative * 100).toFixed(1)}%`;
}

/** Column title of a dimension: its name (`metadata.plan` for a metadata key). */
export function dimensionTitle(dimension: Dimension): string {
  return dimension;
}

/** The display value of one dimension of a key (`none` for a call no step served). */
export function keyValue(key: GroupKey, dimension: Dimension): string {
  const value = key[dimension];
  if (value === undefined) return "";
  if (value === null) return dimension === "step" ? "none" : "—";
  return visibleControls(String(value));
}

/**
 * Control characters (C0, DEL, C1) written as visible escapes (`\x1b`), so a name from the data
 * cannot move the cursor, recolour or clear a terminal, or hide text in a page or a sheet.
 */
export function visibleControls(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : char;
  });
}

/** `chat-prod / default / step 1 / openai / gpt-4o-mini` */
export function keyLabel(key: GroupKey, dimensions: readonly Dimension[]): string {
  return dimensions
    .map((dimension) =>
      dimension === "step" ? `step ${keyValue(key, dimension)}` : keyValue(key, dimension),
    )
    .join(" / ");
}

/** Step key (`"0"`, `"none"`) to a label (`step 0`, `no step`). */
export function stepLabel(step: string): string {
  return step === "none" ? "no step" : `step ${step}`;
}

/** Every step key seen in a list of `steps` maps, ordered 0, 1, …, none. */
export function stepKeysOf(maps: ReadonlyArray<Record<string, number>>): string[] {
  const keys = new Set<string>();
  for (const map of maps) for (const key of Object.keys(map)) keys.add(key);
  return [...keys].sort((a, b) => {
    if (a === "none") return 1;
    if (b === "none") return -1;
    return Number(a) - Number(b);
  });
}

/** One figure column of the per-group tables: its title, the figure it shows and its text. */
export interface FigureColumn {
  readonly title: string;
  readonly figure: keyof Figures;
  readonly text: (figures: Figures) => string;
}

/** The figure columns every human-readable renderer (table, HTML) shows, in order. */
export const figureColumns: readonly FigureColumn[] = [
  { title: "calls", figure: "calls", text: (f) => integer(f.calls) },
  { title: "share", figure: "share", text: (f) => percent(f.share) },
  { title: "success", figure: "successRate", text: (f) => percent(f.successRate) },
  { title: "availability", figure: "availability", text: (f) => percent(f.availability) },
  { title: "fallback", figure: "fallbackRate", text: (f) => percent(f.fallbackRate) },
  { title: "p50 ms", figure: "p50LatencyMs", text: (f) => milliseconds(f.p50LatencyMs) },
  { title: "p95 ms", figure: "p95LatencyMs", text: (f) => milliseconds(f.p95LatencyMs) },
  { title: "p99 ms", figure: "p99LatencyMs", text: (f) => milliseconds(f.p99LatencyMs) },
  { title: "tokens in", figure: "tokensIn", text: (f) => integer(f.tokensIn) },
  { title: "tokens out", figure: "tokensOut", text: (f) => integer(f.tokensOut) },
  { title: "cost", figure: "cost", text: (f) => dollars(f.cost) },
  { title: "cache hits", figure: "cacheHitRate", text: (f) => percent(f.cacheHitRate) },
];

/** Calls sent to a spent budget's `over` chain: a column only where the report has any. */
const budgetHitsColumn: FigureColumn = {
  title: "over budget",
  figure: "budgetHits",
  text: (f) => integer(f.budgetHits),
};

/** The figure columns of one report: {@link figureColumns}, and budget hits when there are some. */
export function figureColumnsOf(totals: Figures): readonly FigureColumn[] {
  return totals.budgetHits > 0 ? [...figureColumns, budgetHitsColumn] : figureColumns;
}
