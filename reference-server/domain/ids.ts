/** Identifiers and secrets. */
import * as crypto from 'node:crypto';
import { hash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * A UUID version 7 made from 16 random bytes (RFC 9562 §5.7: 48 bits of Unix time in ms, the
 * version, 74 random bits, the variant): Node 22, which the package supports, has no
 * `crypto.randomUUIDv7` (Node 24 does, and it is used there).
 */
export function uuidV7FromRandomBytes(nowMs: number = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(nowMs, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
const randomUUIDv7: () => string = (crypto as { randomUUIDv7?: () => string }).randomUUIDv7 ?? (() => uuidV7FromRandomBytes());

/**
 * A new id: a UUID version 7 (time in milliseconds, then 74 random bits), so that the store's
 * unique indexes grow at their right edge (ADR-058).
 * @rule ADR-058
 */
export const uuid = (): string => randomUUIDv7();

const ALNUM36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function pick(alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[randomInt(alphabet.length)];
  return s;
}
/**
 * `ORD-` + 10 of `0-9A-Z` (ADR-011).
 * @rule ADR-011
 */
export const orderReference = (): string => `ORD-${pick(ALNUM36, 10)}`;
export const sessionToken = (test: boolean): string => `st_${test ? 'test' : 'live'}_${randomBytes(16).toString('hex')}`;
export const sessionId = (test: boolean): string => `cs_${test ? 'test' : 'live'}_${randomBytes(12).toString('hex')}`;

// `crypto.hash` (one-shot) is several times faster than createHash/update/digest for short
// inputs such as API keys, hashed on every request; its hex output is its fastest form.
export const sha256 = (s: string): string => hash('sha256', s, 'hex');
/** The raw 32 bytes of the SHA-256 of `s` (UTF-8). */
export const sha256Bytes = (s: string): Buffer => Buffer.from(hash('sha256', s, 'hex'), 'hex');

/** Constant-time equality of two raw SHA-256 digests (32 bytes each). */
export function digestBytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === 32 && b.length === 32 && timingSafeEqual(a, b);
}
