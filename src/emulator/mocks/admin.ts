/**
 * @module
 * The admin endpoints every mock server serves under `/__mock/`, for tests and tools that reach
 * the mocks only over HTTP:
 * - `GET /__mock/attempts` → `{ attempts: MockAttempt[] }` (all providers; `?provider=` filters)
 * - `DELETE /__mock/attempts` → 204, clears the log
 * - `GET /__mock/faults` → the current `FaultSchedule`
 * - `PUT /__mock/faults` with a JSON `FaultSchedule` → 200 `{ schedule }`, or 400
 *   `{ error: { code, message } }` naming each bad field
 * Admin requests are not logged as attempts and need no key.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJson } from "../../providers/json.ts";
import { FaultScheduleError } from "./errors.ts";
import type { MockState } from "./mock-state.ts";

/** The path prefix of the admin endpoints. */
export const adminPrefix = "/__mock/";

const maxAdminBodyBytes = 1024 * 1024;

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

function sendAdminError(response: ServerResponse, status: number, code: string, message: string) {
  sendJson(response, status, { error: { code, message } });
}

async function readText(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= maxAdminBodyBytes) chunks.push(chunk as Buffer);
  }
  return size > maxAdminBodyBytes ? undefined : Buffer.concat(chunks).toString("utf8");
}

function putFaults(state: MockState, response: ServerResponse, text: string | undefined): void {
  if (text === undefined) {
    sendAdminError(response, 413, "body_too_large", "The fault schedule is larger than 1 MiB.");
    return;
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    sendAdminError(
      response,
      400,
      "invalid_json",
      'The body is not JSON. Send a fault schedule: {"seed": 1, "rules": [{"kind": "unavailable"}]}.',
    );
    return;
  }
  try {
    state.setFaults(parsed.value, "PUT /__mock/faults");
  } catch (error) {
    if (!FaultScheduleError.isInstance(error)) throw error;
    sendAdminError(response, 400, error.code, error.message);
    return;
  }
  sendJson(response, 200, { schedule: state.schedule });
}

/** Answers one admin request. */
export async function handleAdminRequest(
  state: MockState,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const text = await readText(request);
  const route = `${request.method} ${url.pathname}`;
  switch (route) {
    case "GET /__mock/attempts": {
      const provider = url.searchParams.get("provider");
      const attempts = state.attempts();
      sendJson(response, 200, {
        attempts: provider === null ? attempts : attempts.filter((a) => a.provider === provider),
      });
      return;
    }
    case "DELETE /__mock/attempts":
      state.clearAttempts();
      response.writeHead(204).end();
      return;
    case "GET /__mock/faults":
      sendJson(response, 200, state.schedule);
      return;
    case "PUT /__mock/faults":
      putFaults(state, response, text);
      return;
    default:
      sendAdminError(
        response,
        404,
        "not_found",
        `No admin endpoint ${route}. Use GET or DELETE /__mock/attempts, GET or PUT /__mock/faults.`,
      );
  }
}
