/**
 * @module
 * The first step of reading a worker view, shared by the zod reader (`worker-view.ts`, the build
 * side) and the plain one (`worker-view-read.ts`, the Worker): its JSON text (a `plain_text`
 * variable) parsed, or the value as given (a `json` binding, a test).
 */
import { ConfigError } from "./errors.ts";

/**
 * The view's value before its fields are checked.
 * @throws {ConfigError} `config_invalid` when the text is not JSON, naming the fix.
 */
export function workerViewValue(input: unknown, source: string): unknown {
  if (typeof input !== "string") return input;
  try {
    return JSON.parse(input);
  } catch (error) {
    throw new ConfigError({
      code: "config_invalid",
      source,
      issues: [
        {
          path: "",
          message:
            "is not valid JSON: set it to workerViewText(config), as Pulumi and the local system do",
        },
      ],
      cause: error,
    });
  }
}
