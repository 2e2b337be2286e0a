/**
 * @module
 * The demo's live progress: a bar per run with the current phase and step shares on a terminal,
 * and one plain line per phase elsewhere (CI logs, pipes).
 */
import { SingleBar } from "cli-progress";
import pc from "picocolors";
import type { TrafficTally } from "./traffic.ts";

export interface DemoProgress {
  phase(name: string, description: string): void;
  update(tally: TrafficTally): void;
  note(line: string): void;
  stop(tally: TrafficTally): void;
}

/** Step shares as `step 0 82% · step 1 15% · failed 0`. */
export function describeTally(tally: TrafficTally): string {
  const total = Math.max(tally.calls, 1);
  const steps = Array.from({ length: Math.max(tally.steps.length, 1) }, (_, index) => {
    const share = ((tally.steps[index] ?? 0) / total) * 100;
    return `step ${index} ${share.toFixed(0).padStart(3)}%`;
  });
  return [...steps, `failed ${tally.failed}`, `cache hits ${tally.cacheHits}`].join(" · ");
}

/** `▶ primary outage: anthropic answers 503`, or `▶ healthy` for a phase without a description. */
export function phaseHeader(name: string, description: string): string {
  return description === "" ? pc.bold(`▶ ${name}`) : `${pc.bold(`▶ ${name}`)}: ${description}`;
}

/**
 * A progress display for `total` calls, written to `stream`; `more` adds to the shares (e.g. the
 * chains a routing policy picks).
 */
export function createProgress(
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
  more: () => string = () => "",
): DemoProgress {
  const describe = (tally: TrafficTally) =>
    [describeTally(tally), more()].filter((part) => part !== "").join(" · ");
  if (!stream.isTTY) {
    let current = "";
    return {
      phase: (name, description) => {
        current = name;
        stream.write(`${phaseHeader(name, description)}\n`);
      },
      update: () => undefined,
      note: (line) => stream.write(`  ${line}\n`),
      stop: (tally) =>
        stream.write(`  ${current} done · ${tally.calls}/${total} calls · ${describe(tally)}\n`),
    };
  }
  const bar = new SingleBar({
    stream,
    format: `${pc.cyan("{bar}")} {value}/{total} · ${pc.bold("{phase}")} · {shares}`,
    barsize: 24,
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(total, 0, { phase: "starting", shares: "" });
  let phase = "starting";
  return {
    phase: (name, description) => {
      phase = name;
      bar.update({ phase });
      stream.write(`\n${phaseHeader(name, description)}\n`);
    },
    update: (tally) => bar.update(tally.calls, { phase, shares: describe(tally) }),
    note: (line) => stream.write(`\n  ${line}\n`),
    stop: (tally) => {
      bar.update(tally.calls, { phase: "done", shares: describe(tally) });
      bar.stop();
    },
  };
}
