/**
 * @module
 * Hashing and comparison for secrets: SHA-256 fingerprints (a short, non-reversible name for a
 * key), constant-time token comparison, and random token generation. Web Crypto only, so it runs
 * in workerd, browsers and Node.
 */

const encoder = new TextEncoder();

/** SHA-256 of a string, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return toHex(new Uint8Array(digest));
}

/**
 * A short fingerprint of a key: `sha256:` and the first 12 hex digits of its SHA-256. Enough to
 * tell versions apart and to match a key an operator holds, never enough to recover it.
 */
export async function fingerprint(key: string): Promise<string> {
  return `sha256:${(await sha256Hex(key)).slice(0, 12)}`;
}

type TimingSafeEqual = (
  a: ArrayBufferView | ArrayBuffer,
  b: ArrayBufferView | ArrayBuffer,
) => boolean;

/**
 * Compares two secrets in constant time. Both sides are hashed first, so the comparison always
 * runs over 32 equal-length bytes whatever the inputs' lengths, and uses workerd's
 * `crypto.subtle.timingSafeEqual` where it exists (an XOR loop elsewhere).
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return digestsEqual(new Uint8Array(a), new Uint8Array(b));
}

/** Constant-time comparison of two equal-length digests. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  const native = (crypto.subtle as unknown as { timingSafeEqual?: TimingSafeEqual })
    .timingSafeEqual;
  if (typeof native === "function") return native.call(crypto.subtle, a, b);
  let difference = 0;
  for (let index = 0; index < a.byteLength; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

/** Compares a secret with a stored SHA-256 hex digest in constant time. */
export async function matchesDigest(given: string, expectedHex: string): Promise<boolean> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(given)));
  const expected = fromHex(expectedHex);
  return expected !== undefined && digestsEqual(digest, expected);
}

/** `byteLength` random bytes as base64url (no padding). */
export function randomToken(byteLength = 32): string {
  const bytes = crypto.getRandomValues(new Uint8Array(byteLength));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/** `length` random lowercase hex digits. */
export function randomHex(length: number): string {
  return toHex(crypto.getRandomValues(new Uint8Array(Math.ceil(length / 2)))).slice(0, length);
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) {
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  }
  return bytes;
}
