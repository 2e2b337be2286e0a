/**
 * Runs after every test file of the node project: any process the file started and left running
 * (a workerd behind a Miniflare that was never disposed, a `stepwise dev` the test meant to
 * stop, a `wrangler dev`) is killed, and the file fails naming it. A test or hook that fails or
 * times out can no longer leave an orphan behind; a test that forgets to stop what it started
 * fails here even when it passed.
 */
import { afterAll } from "vitest";
import { alive, descendantsOf, runningGroups, stopProcesses } from "../helpers/processes.ts";

/** Helper processes that live as long as the test worker by design and end with it. */
const expected = [/^esbuild$/];

afterAll(async () => {
  // Groups first: a group outlives its leader, whose children are then no longer below us.
  const groups = [...runningGroups].filter((group) => alive(-group));
  runningGroups.clear();
  await stopProcesses(groups.map((group) => -group));
  const left = (await descendantsOf(process.pid)).filter(
    (child) => !expected.some((pattern) => pattern.test(child.command)),
  );
  if (left.length === 0 && groups.length === 0) return;
  await stopProcesses(left.map((child) => child.pid));
  if (left.length === 0) {
    throw new Error(
      `This file left ${groups.length} process group(s) started with startProcess running, now stopped (pids ${groups.join(", ")}). Call stop() in afterEach/afterAll.`,
    );
  }
  throw new Error(
    `This file left ${left.length} process(es) running, now killed: ${left
      .map((child) => `${child.command} (pid ${child.pid})`)
      .join(", ")}. Stop what a test starts in its afterEach/afterAll, also when it fails.`,
  );
}, 30_000);
