/**
 * @module
 * Cuts a file into byte ranges that each start at the beginning of a line, so that threads can
 * read one range each and together read every line exactly once, in order: range `i` holds the
 * lines that come before those of range `i + 1`.
 */
import { open } from "node:fs/promises";

/** Bytes `[start, end)` of a file. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** Bytes read at a time while looking for a line's end. */
const probeBytes = 64 * 1024;

/**
 * About `parts` ranges of nearly equal size covering `[0, size)`, each cut just after a line
 * feed; fewer when lines are long enough that two cuts meet (at least one range).
 */
export async function lineAlignedRanges(
  path: string,
  size: number,
  parts: number,
): Promise<ByteRange[]> {
  const handle = await open(path, "r");
  try {
    const cuts = [0];
    const buffer = Buffer.alloc(probeBytes);
    for (let part = 1; part < parts; part += 1) {
      let at = Math.max(Math.floor((size * part) / parts), cuts.at(-1) as number);
      let cut = size;
      while (at < size) {
        const { bytesRead } = await handle.read(buffer, 0, probeBytes, at);
        if (bytesRead === 0) break;
        const feed = buffer.subarray(0, bytesRead).indexOf(10);
        if (feed !== -1) {
          cut = at + feed + 1;
          break;
        }
        at += bytesRead;
      }
      if (cut > (cuts.at(-1) as number) && cut < size) cuts.push(cut);
    }
    cuts.push(size);
    return cuts.slice(1).map((end, index) => ({ start: cuts[index] as number, end }));
  } finally {
    await handle.close();
  }
}
