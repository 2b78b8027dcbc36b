/**
 * Small numbers for values the judge remembers instead of the values: a phone's hash, a record's
 * immutable fields as one fingerprint (their canonical JSON: member order never counts).
 */
import { stableJson } from '../lib/json.ts';
import { IMMUTABLE_FIELDS } from '../model/index.ts';
import { isSharedAnswer } from './answer.ts';
import type { Json } from './context.ts';

/** FNV-1a of a text, never 0. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0 || 1;
}

/** A small number for a value (30 bits: held unboxed in an object), equal for equal canonical JSON. */
export const smallHash = (v: unknown): number => fnv(stableJson(v)) & 0x3fffffff;

/** The prints of shared records (a record read again and again is one read-only value: answer.ts `answerJsonReader`). */
const printsOfShared = new WeakMap<Json, number>();

/** The immutable fields as an answer wrote them (member order kept), hashed; no canonical form made. */
export function answerPrint(rec: Json): number {
  let print = printsOfShared.get(rec);
  if (print !== undefined) return print;
  const values = new Array<unknown>(IMMUTABLE_FIELDS.length);
  for (let i = 0; i < IMMUTABLE_FIELDS.length; i++) values[i] = rec[IMMUTABLE_FIELDS[i]!];
  print = fnv(JSON.stringify(values)) & 0x3fffffff;
  // only a shared record keeps its print: any other may be changed after (frozen on top only, or not at all)
  if (isSharedAnswer(rec)) printsOfShared.set(rec, print);
  return print;
}

/**
 * The immutable fields' fingerprint: equal for semantically equal records, whatever their members'
 * order; 30 bits (never 0), a small integer held in the transaction itself (a 32-bit one above
 * 2^31 is a number boxed on its own: judge/memory.test.ts measured it).
 */
export function fingerprint(rec: Json): number {
  const values = new Array<string>(IMMUTABLE_FIELDS.length);
  for (let i = 0; i < IMMUTABLE_FIELDS.length; i++) values[i] = stableJson(rec[IMMUTABLE_FIELDS[i]!]);
  return fnv(values.join('\n')) & 0x3fffffff || 1;
}
