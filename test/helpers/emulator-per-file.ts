/**
 * @module
 * The real emulator (with its mock providers) for the tests of one file, over loopback HTTP:
 * started before them, closed after them, and with no fault rule left over from the test before
 * (nor, with `clearAttempts`, an attempt in the mocks' log) when each test starts.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { StepwiseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";

/** Holds the file's emulator once started. */
export interface RunningEmulator {
  readonly emulator: Emulator;
}

/** Registers the hooks that run one emulator of `config` for the calling test file. */
export function useEmulatorPerFile(
  config: StepwiseConfig,
  options: { readonly gatewayToken?: string; readonly clearAttempts?: boolean } = {},
): RunningEmulator {
  let started: Emulator | undefined;
  beforeAll(async () => {
    started = await startEmulator({
      config,
      ...(options.gatewayToken === undefined ? {} : { gatewayToken: options.gatewayToken }),
    });
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(() => {
    started!.mocks!.setFaults({ rules: [] });
    if (options.clearAttempts === true) started!.mocks!.clearAttempts();
  });
  return {
    get emulator(): Emulator {
      if (started === undefined) throw new Error("the emulator starts in beforeAll");
      return started;
    },
  };
}
