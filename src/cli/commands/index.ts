/**
 * @module
 * Every `stepwise` command, one factory per file. Add a command by adding its line here.
 */
import type { Command } from "commander";
import { chaosCommand } from "./chaos.ts";
import { demoCommand } from "./demo.ts";
import { devCommand } from "./dev.ts";
import { initCommand } from "./init.ts";
import { planCommand } from "./plan.ts";
import { reportCommand } from "./report.ts";
import { rotateCommand } from "./rotate.ts";
import { validateCommand } from "./validate.ts";

export const commands: ReadonlyArray<() => Command> = [
  demoCommand,
  validateCommand,
  devCommand,
  planCommand,
  initCommand,
  reportCommand,
  rotateCommand,
  chaosCommand,
];
