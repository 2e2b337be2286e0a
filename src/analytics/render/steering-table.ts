/**
 * @module
 * The terminal report's steering sections: per route, calls that skipped or demoted a step and
 * the hedges (due, sent, not sent, won, estimated extra cost); per steered step, the calls that
 * skipped or demoted it with the reasons. `—` marks what the events did not record.
 */
import pc from "picocolors";
import type { Report } from "../report.ts";
import type { RouteSteering, SteeringFigures } from "../steering.ts";
import { type Cell, type Column, renderColumns } from "./columns.ts";
import { integer, keyValue, visibleControls } from "./format.ts";
import { callShareText, hedgeColumns, notRecordedNote, stepReasonsText } from "./steering-text.ts";

/** The steering sections, or a one-line note when the events recorded none. */
export function steeringSections(report: Report): string {
  const { steering } = report;
  const note = notRecordedNote(steering);
  if (note !== null) return report.routes.length === 0 ? "" : pc.dim(note);
  return [routesSection(steering.routes, steering.totals), stepsSection(steering.routes)]
    .filter((section) => section !== "")
    .join("\n\n");
}

function routesSection(routes: readonly RouteSteering[], totals: SteeringFigures): string {
  const columns: Column[] = [
    { title: "gateway" },
    { title: "route" },
    { title: "calls", align: "right" },
    { title: "skipped a step", align: "right" },
    { title: "demoted a step", align: "right" },
    ...hedgeColumns.map((column): Column => ({ title: column.title, align: "right" })),
  ];
  const figureCells = (row: SteeringFigures): Cell[] => [
    integer(row.calls),
    callShareText(row.skipped),
    callShareText(row.demoted),
    ...hedgeColumns.map((column) => (row.hedging === null ? "—" : column.text(row.hedging))),
  ];
  const rows: Cell[][] = routes.map((row) => [
    keyValue(row.key, "gateway"),
    keyValue(row.key, "route"),
    ...figureCells(row),
  ]);
  if (routes.length > 1) rows.push([{ text: "total", color: pc.bold }, "", ...figureCells(totals)]);
  return [
    pc.bold("Client steering (share of each route's calls; — not recorded)"),
    ...renderColumns(columns, rows),
  ].join("\n");
}

function stepsSection(routes: readonly RouteSteering[]): string {
  const rows: Cell[][] = routes.flatMap((route) =>
    route.steps.map((step): Cell[] => [
      keyValue(route.key, "gateway"),
      keyValue(route.key, "route"),
      String(step.step),
      visibleControls(step.provider),
      visibleControls(step.model),
      callShareText(step.skipped),
      callShareText(step.demoted),
      stepReasonsText(step.skipped, step.demoted),
    ]),
  );
  if (rows.length === 0) return "";
  const columns: Column[] = [
    { title: "gateway" },
    { title: "route" },
    { title: "step", align: "right" },
    { title: "provider" },
    { title: "model" },
    { title: "skipped", align: "right" },
    { title: "demoted", align: "right" },
    { title: "reasons" },
  ];
  return [
    pc.bold("Steps skipped or demoted (calls, share of the route's calls)"),
    ...renderColumns(columns, rows),
  ].join("\n");
}
