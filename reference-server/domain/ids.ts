/** Identifiers and secrets. */
import { hash, randomBytes, randomInt, randomUUIDv7, timingSafeEqual } from 'node:crypto';

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
