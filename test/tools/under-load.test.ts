/**
 * The script that runs the suite on a busy machine (`npm run test:under-load`): its options, the
 * busy processes it starts and always stops, and a whole run on a short command.
 */
import { describe, expect, it } from "vitest";
import {
  describeRun,
  parseLoadOptions,
  startHogs,
  stopHogs,
} from "../../tools/scripts/under-load.ts";
import { makeSandbox, projectRoot } from "../docs/documented.ts";
import { startProcess } from "../helpers/processes.ts";

describe("npm run test:under-load", () => {
  it("runs npm test once with one busy process per core unless told otherwise", () => {
    expect(parseLoadOptions([])).toMatchObject({ runs: 1, command: ["npm", "test"] });
    expect(parseLoadOptions([]).hogs).toBeGreaterThanOrEqual(1);
    expect(parseLoadOptions(["--runs", "2", "--hogs", "3", "--", "npx", "vitest", "run"])).toEqual({
      runs: 2,
      hogs: 3,
      command: ["npx", "vitest", "run"],
    });
    expect(() => parseLoadOptions(["--runs", "0"])).toThrow(/--runs takes a whole number/);
    expect(() => parseLoadOptions(["--bogus"])).toThrow();
  });

  it("starts busy processes that stay busy, and stops every one", async () => {
    const hogs = startHogs(2);
    const exits = hogs.map((hog) => new Promise((resolve) => hog.once("exit", resolve)));
    expect(hogs.every((hog) => hog.pid !== undefined && hog.exitCode === null)).toBe(true);
    stopHogs(hogs);
    await Promise.all(exits);
    expect(hogs.every((hog) => hog.signalCode === "SIGKILL")).toBe(true);
  });

  it("prints each run's exit code, wall time and load", () => {
    expect(
      describeRun({
        run: 2,
        exitCode: 0,
        wallMs: 312_400,
        load: { min: 3.9, mean: 5.1, max: 6.2 },
      }),
    ).toBe("run 2: exit 0 in 5 min 12 s · load (1-min average) 5.1 (3.9–6.2)");
  });

  it("runs a command under load through npm and exits with its verdict", async () => {
    const sandbox = await makeSandbox([]);
    const started: ReturnType<typeof startProcess>[] = [];
    try {
      const passing = startProcess(
        "npm",
        ["run", "test:under-load", "--", "--runs", "2", "--hogs", "1", "--", "node", "-e", "0"],
        { cwd: projectRoot, env: sandbox.env },
      );
      started.push(passing);
      expect(await passing.exited).toBe(0);
      expect(passing.output()).toMatch(/under load: 1 busy process\(es\) on \d+ core\(s\)/);
      expect(passing.output()).toMatch(/run 1: exit 0 in \d+ s/);
      expect(passing.output()).toMatch(/run 2: exit 0 in \d+ s/);
      const failing = startProcess(
        "npm",
        ["run", "test:under-load", "--", "--hogs", "1", "--", "node", "-e", "process.exit(3)"],
        { cwd: projectRoot, env: sandbox.env },
      );
      started.push(failing);
      expect(await failing.exited).toBe(1);
      expect(failing.output()).toContain("run 1: exit 3");
    } finally {
      // npm exits before the busy processes it killed are reaped: wait for the whole group.
      await Promise.all(started.map((process) => process.stop()));
      await sandbox.remove();
    }
  });
});
