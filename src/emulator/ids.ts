/**
 * @module
 * ULID-style ids, as Cloudflare uses for log ids (`01JADMCQQQBWH3NXZ5GCRN98DP`): 26 Crockford
 * base-32 characters, 10 for the millisecond time and 16 random, so ids sort by creation time.
 * The random part comes from a pool of cryptographic random bytes refilled 256 ids at a time
 * (one `randomFillSync` per 4 KiB instead of one `randomBytes` call per id).
 */
import { randomFillSync } from "node:crypto";

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const randomLength = 16;

/**
 * A new 26-character ULID for `time` (epoch ms); `random` gives the 16 random bytes (the pool's
 * by default).
 * @example createUlid(Date.now()) // "01JADMCQQQBWH3NXZ5GCRN98DP"
 */
export function createUlid(time: number, random?: Uint8Array): string {
  let bytes: Uint8Array = pool;
  let start = 0;
  if (random === undefined) {
    if (poolOffset + randomLength > pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    start = poolOffset;
    poolOffset += randomLength;
  } else bytes = random;
  let randomPart = "";
  for (let index = 0; index < randomLength; index++) {
    randomPart += alphabet[bytes[start + index]! % 32];
  }
  return timePart(time) + randomPart;
}

/** An id generator bound to a clock: the emulator's default `generateId`. */
export function createIdGenerator(now: () => number): () => string {
  return () => createUlid(now());
}

const pool = Buffer.alloc(randomLength * 256);
let poolOffset = pool.length;
let lastTime = Number.NaN;
let lastTimePart = "";

/** The 10 time characters; ids made in the same millisecond share them. */
function timePart(time: number): string {
  if (time === lastTime) return lastTimePart;
  let text = "";
  let remaining = Math.max(0, Math.floor(time));
  for (let index = 0; index < 10; index++) {
    text = alphabet[remaining % 32] + text;
    remaining = Math.floor(remaining / 32);
  }
  lastTime = time;
  lastTimePart = text;
  return text;
}
