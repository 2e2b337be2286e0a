/**
 * @module
 * What a REST handler gets: the services, the request, path parameters and the query; it
 * returns the JSON body to send with 200 (or throws `RestRequestError`).
 */
import type { IncomingMessage } from "node:http";
import type { RouteParams } from "../http/router.ts";
import type { EmulatorServices } from "../services.ts";

export interface RestContext {
  readonly services: EmulatorServices;
  readonly request: IncomingMessage;
  readonly params: RouteParams;
  readonly query: URLSearchParams;
}

export type RestHandler = (context: RestContext) => unknown;

/** A handler's answer that is not the JSON envelope: a stored body, sent as it was logged. */
export class RawRestBody {
  constructor(
    readonly bytes: Buffer,
    readonly contentType: string,
  ) {}
}
