/**
 * @module
 * Lets every write to the process's stdout and stderr through unchanged while showing it to a
 * scanner, so the campaign can check that no key reaches the terminal (its own progress and
 * report, and anything any part of the system prints).
 */

type Write = typeof process.stdout.write;

/** Taps `process.stdout` and `process.stderr`; returns the function that removes the tap. */
export function tapProcessOutput(
  onText: (stream: "stdout" | "stderr", text: string) => void,
): () => void {
  const restore: (() => void)[] = [];
  for (const name of ["stdout", "stderr"] as const) {
    const stream = process[name];
    const original = stream.write;
    const tapped = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      try {
        onText(
          name,
          typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"),
        );
      } catch {
        // Scanning must never break the output.
      }
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as Write;
    stream.write = tapped;
    restore.push(() => {
      if (stream.write === tapped) stream.write = original;
    });
  }
  return () => {
    for (const undo of restore) undo();
  };
}
