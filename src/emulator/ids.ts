/**
 * @module
 * Ids as Cloudflare issues them. New log and request ids are lowercase UUIDv7
 * (`019a7b3e-5f2c-7c41-9d3e-2b8f6a1c4e07`: 48 bits of millisecond time, version 7, 74 random bits,
 * RFC 9562's variant), so they sort by creation time (changelog 2026-10-08). Older logs carried
 * 26-character ULIDs (`01JADMCQQQBWH3NXZ5GCRN98DP`); `createUlid` still makes those, for tools
 * that replay old records. Both are opaque to callers.
 *
 * The random part comes from a pool of cryptographic random bytes refilled 256 ids at a time (one
 * `randomFillSync` per 4 KiB instead of one `randomBytes` call per id).
 */
import { randomFillSync } from "node:crypto";

const randomLength = 16;
const pool = Buffer.alloc(randomLength * 256);
let poolOffset = pool.length;

/** The next 16 random bytes of the pool (a view, valid until the next call). */
function pooledRandom(): { readonly bytes: Uint8Array; readonly start: number } {
  if (poolOffset + randomLength > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += randomLength;
  return { bytes: pool, start };
}

const hex = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** The time part of the last UUIDv7 made (`xxxxxxxx-xxxx-`), by its millisecond. */
let lastMillis = -1;
let lastTimePrefix = "";

/**
 * A new lowercase UUIDv7 for `time` (epoch ms); `random` gives its random bytes (the pool's by
 * default; only the first 10 are used). The time part is formatted once per millisecond and the
 * last 6 random bytes in one hex slice: a universal request makes at least one id, and the twelve
 * pieces this was built from cost about 1 us of CPU per id (0.9 us after), most of it in making
 * and flattening the string.
 * @example createUuidV7(Date.now()) // "019a7b3e-5f2c-7c41-9d3e-2b8f6a1c4e07"
 */
export function createUuidV7(time: number, random?: Uint8Array): string {
  const { bytes, start } = random === undefined ? pooledRandom() : { bytes: random, start: 0 };
  const millis = Math.max(0, Math.min(Math.floor(time), 2 ** 48 - 1));
  if (millis !== lastMillis) {
    // 48 bits of time, written as 12 hex digits (numbers are exact up to 2^53).
    const timeHex = millis.toString(16).padStart(12, "0");
    lastTimePrefix = `${timeHex.slice(0, 8)}-${timeHex.slice(8)}-`;
    lastMillis = millis;
  }
  const versioned = 0x70 | (bytes[start]! & 0x0f);
  const variant = 0x80 | (bytes[start + 2]! & 0x3f);
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + start + 4, 6).toString("hex");
  return `${lastTimePrefix}${hex[versioned]}${hex[bytes[start + 1]!]}-${hex[variant]}${hex[bytes[start + 3]!]}-${tail}`;
}

/** An id generator bound to a clock: the emulator's default `generateId` (UUIDv7). */
export function createIdGenerator(now: () => number): () => string {
  return () => createUuidV7(now());
}

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A 26-character ULID for `time` (epoch ms), the format of log ids before UUIDv7; `random` gives
 * the 16 random bytes (the pool's by default).
 * @example createUlid(Date.now()) // "01JADMCQQQBWH3NXZ5GCRN98DP"
 */
export function createUlid(time: number, random?: Uint8Array): string {
  const { bytes, start } = random === undefined ? pooledRandom() : { bytes: random, start: 0 };
  let text = "";
  let remaining = Math.max(0, Math.floor(time));
  for (let index = 0; index < 10; index++) {
    text = alphabet[remaining % 32] + text;
    remaining = Math.floor(remaining / 32);
  }
  for (let index = 0; index < randomLength; index++) text += alphabet[bytes[start + index]! % 32];
  return text;
}
