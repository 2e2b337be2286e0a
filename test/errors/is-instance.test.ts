import { describe, expect, it } from "vitest";
import * as analyticsErrors from "../../src/analytics/errors.ts";
import * as devCommand from "../../src/cli/commands/dev.ts";
import * as cliExitCodes from "../../src/cli/exit-codes.ts";
import * as clientErrors from "../../src/client/errors.ts";
import * as configErrors from "../../src/config/errors.ts";
import * as emulatorErrors from "../../src/emulator/errors.ts";
import * as mockErrors from "../../src/emulator/mocks/errors.ts";
import { StepwiseError } from "../../src/errors/index.ts";
import * as providerErrors from "../../src/providers/errors.ts";
import * as infraErrors from "../../src/pulumi/errors.ts";
import * as workerErrors from "../../src/worker/errors.ts";

type ErrorClass = typeof StepwiseError;

/** Every exported class that extends StepwiseError, by name. */
const classes: ErrorClass[] = [
  StepwiseError,
  ...[
    infraErrors,
    analyticsErrors,
    devCommand,
    cliExitCodes,
    clientErrors,
    configErrors,
    emulatorErrors,
    mockErrors,
    providerErrors,
    workerErrors,
  ].flatMap((module) =>
    Object.values(module).filter(
      (value): value is ErrorClass =>
        typeof value === "function" && value.prototype instanceof StepwiseError,
    ),
  ),
];

/** An instance whose class is `target`, built by the base constructor alone. */
function instanceOf(target: ErrorClass): StepwiseError {
  return Reflect.construct(StepwiseError, [{ code: "test", message: "test" }], target);
}

function extendsClass(child: ErrorClass, parent: ErrorClass): boolean {
  return child === parent || child.prototype instanceof parent;
}

describe("error classes", () => {
  it("finds every error class of the codebase", () => {
    expect(classes.length).toBeGreaterThanOrEqual(27);
  });

  it("each declares its own unique kind", () => {
    for (const errorClass of classes) {
      expect(Object.hasOwn(errorClass, "kind"), `${errorClass.name} declares no kind`).toBe(true);
      expect(errorClass.kind).toBe(`stepwise.${errorClass.name}`);
    }
    expect(new Set(classes.map((errorClass) => errorClass.kind)).size).toBe(classes.length);
  });

  it("isInstance is true exactly for the class and its subclasses, for every pair", () => {
    for (const checker of classes) {
      for (const made of classes) {
        expect(
          checker.isInstance(instanceOf(made)),
          `${checker.name}.isInstance(${made.name})`,
        ).toBe(extendsClass(made, checker));
      }
    }
  });

  it("works across copies of the package: a look-alike from another copy is recognised", () => {
    const foreign = Object.assign(new Error("from another copy"), {
      [Symbol.for("stepwise.error.kinds")]: ["stepwise.ConfigError", "stepwise.StepwiseError"],
    });
    expect(configErrors.ConfigError.isInstance(foreign)).toBe(true);
    expect(StepwiseError.isInstance(foreign)).toBe(true);
    expect(workerErrors.WorkerError.isInstance(foreign)).toBe(false);
  });

  it("is false for plain errors and non-objects, and says how to call it when unbound", () => {
    expect(StepwiseError.isInstance(new Error("plain"))).toBe(false);
    expect(StepwiseError.isInstance("stepwise.StepwiseError")).toBe(false);
    expect(StepwiseError.isInstance(null)).toBe(false);
    const unbound = configErrors.ConfigError.isInstance;
    expect(() => unbound.call(undefined as never, new Error("x"))).toThrow(/arrow function/);
  });
});
