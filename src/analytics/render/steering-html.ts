/**
 * @module
 * The HTML page's steering tables (`#steering` per route, `#steered-steps` per step), the same
 * figures as the terminal's. A figure the events did not record shows `—` with
 * `data-value="null"`; a page whose events recorded none gets a note (`#steering-note`).
 */
import type { Report } from "../report.ts";
import type { CallShare, SteeringFigures } from "../steering.ts";
import { escapeHtml } from "./escape.ts";
import { integer, visibleControls } from "./format.ts";
import { cell, keyCells, table } from "./html-parts.ts";
import { callShareText, hedgeColumns, notRecordedNote, stepReasonsText } from "./steering-text.ts";

/** The steering tables, or the note that the events recorded none. */
export function steeringTables(report: Report): string {
  const { steering } = report;
  const note = notRecordedNote(steering);
  if (note !== null) {
    return report.routes.length === 0
      ? ""
      : `<p class="meta" id="steering-note">${escapeHtml(note)}</p>`;
  }
  return [routesTable(report), stepsTable(report)].filter((part) => part !== "").join("\n");
}

function shareCell(figure: string, value: CallShare | null): string {
  return cell({
    figure,
    value: value?.calls ?? null,
    text: callShareText(value),
    share: value?.share ?? null,
  });
}

function figureCells(row: SteeringFigures): string {
  const hedging = row.hedging;
  return [
    cell({ figure: "calls", value: row.calls, text: integer(row.calls) }),
    shareCell("skipped", row.skipped),
    shareCell("demoted", row.demoted),
    ...hedgeColumns.map((column) =>
      hedging === null
        ? cell({ figure: column.figure, value: null, text: "—" })
        : cell({ figure: column.figure, value: column.value(hedging), text: column.text(hedging) }),
    ),
  ].join("");
}

function routesTable(report: Report): string {
  const { routes, totals } = report.steering;
  const rows = routes.map(
    (row) => `<tr>${keyCells(row, ["gateway", "route"])}${figureCells(row)}</tr>`,
  );
  if (routes.length > 1) {
    rows.push(`<tr class="total"><td colspan="2">total</td>${figureCells(totals)}</tr>`);
  }
  const head = [
    "gateway",
    "route",
    "#calls",
    "#skipped a step",
    "#demoted a step",
    ...hedgeColumns.map((column) => `#${column.title}`),
  ];
  return table(
    "steering",
    "Client steering (share of each route's calls; — not recorded)",
    head,
    rows,
  );
}

function stepsTable(report: Report): string {
  const rows = report.steering.routes.flatMap((route) =>
    route.steps.map(
      (step) =>
        `<tr>${keyCells(route, ["gateway", "route"])}<td class="num" data-dimension="step">${step.step}</td><td class="key" data-dimension="provider">${escapeHtml(visibleControls(step.provider))}</td><td class="key" data-dimension="model">${escapeHtml(visibleControls(step.model))}</td>${shareCell("skipped", step.skipped)}${shareCell("demoted", step.demoted)}<td data-figure="reasons">${escapeHtml(stepReasonsText(step.skipped, step.demoted))}</td></tr>`,
    ),
  );
  if (rows.length === 0) return "";
  const head = [
    "gateway",
    "route",
    "#step",
    "provider",
    "model",
    "#skipped",
    "#demoted",
    "reasons",
  ];
  return table(
    "steered-steps",
    "Steps skipped or demoted (calls, share of the route's calls)",
    head,
    rows,
  );
}
