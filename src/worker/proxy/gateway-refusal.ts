/**
 * @module
 * Whether a 401, 403 or 429 is the gateway's own refusal — its rate or spend limit, a missing or
 * wrong gateway token — or the provider's answer about the key that was sent. Only the
 * provider's answers move a call to the next key of a pool or cool a key down: the gateway's
 * refusals would be the same for every key.
 *
 * Headers decide when they can: `cf-aig-step` (the gateway names the step that answered) or a
 * provider's rate-limit headers mean the provider answered. Cloudflare documents `cf-aig-step`
 * for the universal endpoint only, so otherwise the body is read (at most
 * {@link maxInspectedBytes}; error bodies are small): the gateway's own errors are
 * `AiGatewayError` bodies (`{"success":false,"error":[{"code":2003,…}],"name":"AiGatewayError",…}`,
 * codes 2000–2999; aig-spec §7, §10). The answer is rebuilt around the bytes read, so it is
 * passed on unchanged.
 */

/** Most bytes of a refusal's body read to tell whose it is. */
export const maxInspectedBytes = 64 * 1024;

/** An upstream answer, and whether the gateway itself refused the call. */
export interface ClassifiedAnswer {
  /** The answer to pass on (a new object when its body was read). */
  readonly response: Response;
  readonly byGateway: boolean;
}

/** Statuses that can be about a key, and that the gateway also answers for itself. */
export function isKeyStatus(status: number): boolean {
  return status === 401 || status === 403 || status === 429;
}

/** Tells the gateway's own refusals from the provider's answers. */
export async function classifyAnswer(response: Response): Promise<ClassifiedAnswer> {
  if (!isKeyStatus(response.status) || answeredByProvider(response.headers)) {
    return { response, byGateway: false };
  }
  if (response.body === null) return { response, byGateway: false };
  const { head, rest } = await readHead(response.body, maxInspectedBytes);
  const rebuilt = new Response(rest === null ? head : prepend(head, rest), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  return { response: rebuilt, byGateway: rest === null && isGatewayError(head) };
}

/** Whether the headers show that a provider answered. */
export function answeredByProvider(headers: Headers): boolean {
  if (headers.has("cf-aig-step")) return true;
  for (const name of headers.keys()) {
    if (name.startsWith("x-ratelimit-") || name.startsWith("anthropic-ratelimit-")) return true;
  }
  return false;
}

/** An `AiGatewayError` body: named so, or Cloudflare's error envelope with a 2xxx code. */
function isGatewayError(bytes: Uint8Array): boolean {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return false;
  }
  if (typeof body !== "object" || body === null) return false;
  const { name, success, error } = body as { name?: unknown; success?: unknown; error?: unknown };
  if (name === "AiGatewayError") return true;
  return (
    success === false &&
    Array.isArray(error) &&
    error.some((entry) => {
      const code = (entry as { code?: unknown } | null)?.code;
      return typeof code === "number" && code >= 2000 && code < 3000;
    })
  );
}

/** Reads up to `limit` bytes; `rest` is the unread remainder (null when the body ended). */
async function readHead(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<{
  head: Uint8Array<ArrayBuffer>;
  rest: ReadableStreamDefaultReader<Uint8Array> | null;
}> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size <= limit) {
    const { done, value } = await reader.read();
    if (done) return { head: concat(chunks, size), rest: null };
    chunks.push(value);
    size += value.byteLength;
  }
  return { head: concat(chunks, size), rest: reader };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The bytes read, then the rest of the body as it comes. */
function prepend(
  head: Uint8Array,
  rest: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (first) {
        first = false;
        controller.enqueue(head);
        return;
      }
      const { done, value } = await rest.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => rest.cancel(reason),
  });
}
