/**
 * @module
 * ULID-style ids, as Cloudflare uses for log ids (`01JADMCQQQBWH3NXZ5GCRN98DP`): 26 Crockford
 * base-32 characters, 10 for the millisecond time and 16 random, so ids sort by creation time.
 */
import { randomBytes } from "node:crypto";

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A new 26-character ULID for `time` (epoch ms).
 * @example createUlid(Date.now()) // "01JADMCQQQBWH3NXZ5GCRN98DP"
 */
export function createUlid(time: number, random: Uint8Array = randomBytes(16)): string {
  let timePart = "";
  let remaining = Math.max(0, Math.floor(time));
  for (let index = 0; index < 10; index++) {
    timePart = alphabet[remaining % 32] + timePart;
    remaining = Math.floor(remaining / 32);
  }
  let randomPart = "";
  for (let index = 0; index < 16; index++) randomPart += alphabet[random[index]! % 32];
  return timePart + randomPart;
}

/** An id generator bound to a clock: the emulator's default `generateId`. */
export function createIdGenerator(now: () => number): () => string {
  return () => createUlid(now());
}
