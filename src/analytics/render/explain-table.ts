/**
 * @module
 * The terminal report's explanation sections (`explain.ts`): per route and step, the calls served
 * and the failures by reason, kept whatever `--by` groups the rest of the report by; and per
 * route, what fallback cost beside what the same calls would have cost on the primary.
 */
import pc from "picocolors";
import type { Explanation } from "../explain.ts";
import type { Report } from "../report.ts";
import { type Cell, type Column, renderColumns } from "./columns.ts";
import {
  extraText,
  onPrimaryText,
  pricingNote,
  primaryText,
  reasonsText,
  stepModelText,
} from "./explain-text.ts";
import { dollars, integer, keyValue, percent } from "./format.ts";

/** The explanation sections, or "" when the source recorded none. */
export function explainSections(report: Report): string {
  const { explanation } = report;
  if (explanation === null || explanation.routes.length === 0) return "";
  return [stepsSection(explanation), fallbackSection(explanation)]
    .filter((section) => section !== "")
    .join("\n\n");
}

function stepsSection(explanation: Explanation): string {
  const columns: Column[] = [
    { title: "gateway" },
    { title: "route" },
    { title: "step", align: "right" },
    { title: "provider/model" },
    { title: "served", align: "right" },
    { title: "share", align: "right" },
    { title: "cost", align: "right" },
    { title: "failed", align: "right" },
    { title: "failure reasons" },
  ];
  const rows: Cell[][] = explanation.routes.flatMap((route) =>
    route.steps.map((step): Cell[] => [
      keyValue(route.key, "gateway"),
      keyValue(route.key, "route"),
      step.step === null ? "none" : String(step.step),
      stepModelText(step),
      integer(step.served),
      percent(step.share),
      dollars(step.cost),
      step.failed > 0 ? { text: integer(step.failed), color: pc.yellow } : "0",
      reasonsText(step.reasons),
    ]),
  );
  return [
    pc.bold("Steps per route: calls served and failures by reason"),
    ...renderColumns(columns, rows),
  ].join("\n");
}

function fallbackSection(explanation: Explanation): string {
  const columns: Column[] = [
    { title: "gateway" },
    { title: "route" },
    { title: "cost", align: "right" },
    { title: "fallback calls", align: "right" },
    { title: "fallback cost", align: "right" },
    { title: "primary" },
    { title: "on primary", align: "right" },
    { title: "extra", align: "right" },
  ];
  const rows: Cell[][] = explanation.routes.map((route) => [
    keyValue(route.key, "gateway"),
    keyValue(route.key, "route"),
    dollars(route.cost),
    integer(route.fallback.calls),
    dollars(route.fallback.cost),
    primaryText(route.fallback),
    onPrimaryText(route.fallback.onPrimary),
    extraText(route.fallback.extra),
  ]);
  const { totals } = explanation;
  if (explanation.routes.length > 1) {
    rows.push([
      { text: "total", color: pc.bold },
      "",
      dollars(totals.cost),
      integer(totals.fallback.calls),
      dollars(totals.fallback.cost),
      "",
      onPrimaryText(totals.fallback.onPrimary),
      extraText(totals.fallback.extra),
    ]);
  }
  const note = pricingNote(explanation);
  return [
    pc.bold(
      "Cost of fallback beside the primary (the fallback calls' tokens at the primary's price)",
    ),
    ...renderColumns(columns, rows),
    ...(note === null ? [] : [pc.dim(note)]),
  ].join("\n");
}
