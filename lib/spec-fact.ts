/**
 * A fact of the contract read where the code needs it: the value the bundled document holds at a
 * JSON pointer (Variant 1's document: a fact read this way is stated once, in a file both variants
 * share), read at start, so the spec stays its one statement. A pointer that holds no value of the
 * type asked for is an error naming it: the server does not start on a contract it cannot read.
 */
import { loadBundledDocument } from '../generated/index.ts';
import { valueAt } from './json-pointer.ts';

let doc: Record<string, unknown> | undefined;

export function specFact(pointer: string, type: 'number'): number;
export function specFact(pointer: string, type: 'string'): string;
export function specFact(pointer: string, type: 'number' | 'string'): number | string {
  doc ??= loadBundledDocument(1);
  const v = valueAt(doc, pointer);
  if (typeof v !== type) throw new Error(`spec: ${pointer} holds no ${type}`);
  return v as number | string;
}
