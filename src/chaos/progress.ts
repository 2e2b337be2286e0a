/**
 * @module
 * The campaign's live progress: a bar on a terminal, and a plain line every tenth of the run
 * elsewhere (CI logs, pipes). Notes (rotations, circuit changes) print above it.
 */
import { SingleBar } from "cli-progress";
import pc from "picocolors";

/** Running counts shown while the campaign runs. */
export interface ProgressCounts {
  done: number;
  ok: number;
  failed: number;
  streamed: number;
  rotations: number;
}

export interface CampaignProgress {
  update(counts: ProgressCounts): void;
  note(line: string): void;
  stop(counts: ProgressCounts): void;
}

function describe(counts: ProgressCounts): string {
  return `ok ${counts.ok} · failed ${counts.failed} · streamed ${counts.streamed} · rotations ${counts.rotations}`;
}

/** A progress display for `total` calls, written to `stream` (stderr by default). */
export function createProgress(
  total: number,
  stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
): CampaignProgress {
  if (!stream.isTTY) {
    let nextLine = 0;
    const step = Math.max(1, Math.ceil(total / 10));
    return {
      update(counts) {
        if (counts.done < nextLine) return;
        nextLine = counts.done + step;
        stream.write(`  ${counts.done}/${total} calls · ${describe(counts)}\n`);
      },
      note: (line) => stream.write(`  ${line}\n`),
      stop: (counts) =>
        stream.write(`  ${counts.done}/${total} calls done · ${describe(counts)}\n`),
    };
  }
  const bar = new SingleBar({
    stream: stream as NodeJS.WriteStream,
    format: `${pc.cyan("{bar}")} {value}/{total} calls · {counts}`,
    barsize: 24,
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(total, 0, { counts: "" });
  return {
    update: (counts) => bar.update(counts.done, { counts: describe(counts) }),
    note: (line) => stream.write(`\n  ${line}\n`),
    stop(counts) {
      bar.update(counts.done, { counts: describe(counts) });
      bar.stop();
    },
  };
}
