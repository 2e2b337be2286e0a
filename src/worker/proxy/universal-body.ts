/**
 * @module
 * Rewrites a universal request body without re-serialising it: each step's `headers` member is
 * replaced (or added) and every other member — the step's `query` payload, its `config` — goes
 * upstream as the app wrote it, byte for byte (numbers past double precision, spacing, key
 * order). The text has already been parsed as JSON and checked for depth; src/wire/universal-body.ts
 * finds where each step and member starts and ends. A body with a member written twice is
 * refused first: the Worker would pick the key by one reading and forward both.
 */
import {
  describeDuplicate,
  findDuplicateMember,
  type JsonMember,
  scanUniversalBody,
} from "../../wire/universal-body.ts";
import { WorkerError } from "../errors.ts";

/**
 * Refuses a universal body with a duplicate member (a step's, or in its `headers` or `config`).
 * @throws WorkerError 400 `duplicate_member`
 */
export function refuseDuplicateMembers(text: string): void {
  const duplicate = findDuplicateMember(scanUniversalBody(text));
  if (duplicate === undefined) return;
  throw new WorkerError({
    status: 400,
    code: "duplicate_member",
    message: `The universal body's ${describeDuplicate(duplicate)}.`,
  });
}

/**
 * The body with step `i`'s `headers` replaced by `headers[i]`.
 * @param text a JSON array of objects (already validated)
 */
export function replaceStepHeaders(
  text: string,
  headers: readonly Readonly<Record<string, string>>[],
): string {
  return rewriteSteps(
    text,
    headers.map((stepHeaders, step) => ({ step, headers: stepHeaders })),
  );
}

/** One step of the body sent upstream: a copy of the app's step `step` with its own headers. */
export interface StepCopy {
  readonly step: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The body as the given copies of the app's steps, in order (a step may appear several times,
 * once per key of its provider's pool, or not at all), each with its `headers` replaced.
 * @param text a JSON array of objects (already validated)
 */
export function rewriteSteps(text: string, copies: readonly StepCopy[]): string {
  const body = scanUniversalBody(text);
  if (body.form !== "steps") throw new SyntaxError("a universal body is a JSON array of steps");
  const parts = copies.map(({ step, headers }) => {
    const members = body.steps[step];
    if (members === undefined) throw new SyntaxError(`step ${step} is not a JSON object`);
    return `{${withHeaders(members, `"headers":${JSON.stringify(headers)}`).join(",")}}`;
  });
  return `[${parts.join(",")}]`;
}

/** The members as written, the first `headers` replaced (or one added) and any other dropped. */
function withHeaders(members: readonly JsonMember[], replacement: string): string[] {
  const written: string[] = [];
  let replaced = false;
  for (const member of members) {
    if (member.name !== "headers") written.push(`${member.nameText}:${member.valueText}`);
    else if (!replaced) {
      written.push(replacement);
      replaced = true;
    }
  }
  if (!replaced) written.push(replacement);
  return written;
}
