/**
 * @module
 * Node-only additions to the client: the JSON-lines file recorder. Import from here, not from
 * the client core, so browser and Worker bundles stay free of `node:*` modules.
 */
export {
  type JsonLinesRecorder,
  type JsonLinesRecorderOptions,
  jsonLinesRecorder,
} from "./jsonl-recorder.ts";
