/**
 * @module
 * Which upstream bodies the scrubber can read. The Worker asks the gateway for
 * `accept-encoding: identity`; a body that comes back encoded anyway is scrubbed only when the
 * runtime's `fetch` has already decoded it. workerd decodes exactly two `content-encoding` values,
 * compared byte for byte with the whole header (`getContentEncoding` in workerd's
 * `src/workerd/api/system-streams.c++`): `gzip`, and `br` with the `brotli_content_encoding` flag
 * (on from compatibility date 2024-09-02; wrangler.jsonc's is later). Any other value (`deflate`,
 * `x-gzip`, `GZIP`, a stacked `gzip, gzip`, `zstd`…) reaches the Worker still encoded: the scrubber
 * would see compressed bytes and the app's client would decode them to the key, so such an answer
 * is refused (502), never passed through.
 */
import { WorkerError } from "../errors.ts";

/** What the Worker asks upstream for: no encoding at all. */
export const requestedEncoding = "identity";

/** `content-encoding` values whose body reaches the Worker decoded (or was never encoded). */
const readableEncodings: ReadonlySet<string> = new Set(["identity", "gzip", "br"]);

/** True when the scrubber sees the body as the app's client will decode it. */
export function scrubbableEncoding(headers: Headers): boolean {
  const encoding = headers.get("content-encoding");
  return encoding === null || readableEncodings.has(encoding);
}

/** The 502 for an answer whose encoding the Worker did not decode. */
export function undecodedEncoding(): WorkerError {
  return new WorkerError({
    status: 502,
    code: "unsupported_encoding",
    message:
      "The gateway answered in a content-encoding the Worker cannot check for secrets (it asks for identity; gzip and br are decoded); the answer was dropped. Try again, or make the upstream answer without encoding.",
  });
}
