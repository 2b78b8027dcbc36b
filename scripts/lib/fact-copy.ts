/**
 * A copy of a fact in a bundled document (ADR-086) and the means the checks of `facts.ts` find
 * copies with: JSON pointers walked with `$ref`s followed (so a copy is named where it really is),
 * the error examples, each operation's answers, one wait shown several times.
 */
import { operations } from './contract-facts.ts';
import { isJson, stableJson, textOf, type Json, type JsonKey } from '../../lib/json.ts';

/** One copy of a fact in a bundled document: where it is, what it holds, what the fact makes it. */
export interface FactCopy {
  variant: number;
  /** JSON pointer into the bundled document, `$ref`s followed: the node that holds the copy. */
  pointer: string;
  /** What the copy holds. */
  value: unknown;
  /** What the fact makes it: what `--fix` writes. */
  expected: unknown;
  /** Set when the copy disagrees with its fact: how, in words. */
  reason?: string;
}

/** The copies a check found, and the problems no derived value can fix (a fact stated twice, a pattern that encodes it). */
export interface CopyCheck {
  copies: FactCopy[];
  problems: string[];
}

/** The problems of a check: its own and those of each disagreeing copy. */
export function problemsOf(check: CopyCheck): string[] {
  return [...check.problems, ...check.copies.flatMap((c) => (c.reason ? [`Variant ${c.variant} ${c.pointer}: ${c.reason}`] : []))];
}

export const esc = (key: JsonKey): string => String(key).replace(/~/g, '~0').replace(/\//g, '~1');
export const unesc = (seg: string): string => seg.replace(/~1/g, '/').replace(/~0/g, '~');

export function nodeAt(doc: Json, pointer: string): unknown {
  let node: unknown = doc;
  for (const seg of pointer.replace(/^#\/?/, '').split('/')) {
    if (seg === '') continue;
    const key = unesc(seg);
    node = Array.isArray(node) ? node[Number(key)] : isJson(node) ? node[key] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** The node at `pointer`, its internal `$ref`s followed, with the pointer of where it really is. */
export function follow(doc: Json, pointer: string): { pointer: string; node: unknown } {
  for (let i = 0; i < 32; i++) {
    const node = nodeAt(doc, pointer);
    if (!isJson(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#')) return { pointer, node };
    pointer = node.$ref;
  }
  throw new Error(`too many $refs from ${pointer}`);
}

/** `keys` below `from`, following `$ref`s at each step; undefined when a step is missing. */
export function child(doc: Json, from: string, ...keys: JsonKey[]): { pointer: string; node: unknown } | undefined {
  let at = follow(doc, from);
  for (const key of keys) {
    if (!isJson(at.node) && !Array.isArray(at.node)) return undefined;
    const p = `${at.pointer}/${esc(key)}`;
    if (nodeAt(doc, p) === undefined) return undefined;
    at = follow(doc, p);
  }
  return at;
}

/** Records a copy at `pointer` (value read there) and its problem when it differs from `expected`. */
export function copyAt(
  out: FactCopy[],
  variant: number,
  doc: Json,
  pointer: string,
  expected: unknown,
  says: (value: unknown) => string,
): void {
  const value = nodeAt(doc, pointer);
  const agrees = stableJson(value) === stableJson(expected);
  out.push({ variant, pointer, value, expected, ...(agrees ? {} : { reason: says(value) }) });
}

export function attempt<T>(problems: string[], label: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    problems.push(`${label}: ${(e as Error).message}`);
    return undefined;
  }
}

/** Every error example of the document (`{ value: { error: { code } } }`), with its JSON pointer. */
export function errorExamples(doc: Json): Array<{ pointer: string; error: Json }> {
  const out: Array<{ pointer: string; error: Json }> = [];
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${pointer}/${i}`));
    else if (isJson(node)) {
      const error = (node.value as Json | undefined)?.error as Json | undefined;
      if (error && typeof error.code === 'string') out.push({ pointer, error });
      for (const [k, v] of Object.entries(node)) visit(v, `${pointer}/${esc(k)}`);
    }
  };
  visit(doc, '#');
  return out;
}

/** The numbers written in a text (`1,000` read as 1000). */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, '')));
}

/** The answer of each operation of the document: (operationId, status, the response's pointer, refs followed). */
export function responsesOf(doc: Json): Array<{ opId: string; status: string; pointer: string; operation: Json }> {
  const out: Array<{ opId: string; status: string; pointer: string; operation: Json }> = [];
  for (const [opId, op] of Object.entries(operations(doc))) {
    const opAt = child(doc, `#/paths/${esc(op.path)}`, op.method.toLowerCase())!;
    const operation = opAt.node as Json;
    for (const status of Object.keys(operation.responses ?? {}))
      out.push({ opId, status, pointer: child(doc, opAt.pointer, 'responses', status)!.pointer, operation });
  }
  return out;
}

/**
 * One wait shown several times in a 429's examples (`where` each), all equal and within `window`
 * seconds: a wait is the time left in the window, an example of it a number from 1 to the window.
 * Each copy's derived value is the first wait, brought into the window when it lies outside.
 */
export function oneWait(
  variant: number,
  doc: Json,
  at: string,
  window: number,
  waits: Array<{ pointer: string; what: string; form?: (wait: number) => string }>,
  copies: FactCopy[],
): void {
  const valueOf = (w: (typeof waits)[number]): unknown => {
    const v = nodeAt(doc, w.pointer);
    return w.form ? numbersIn(String(v))[0] : v;
  };
  const first = waits[0];
  if (!first) return;
  const firstValue = valueOf(first);
  const wait = typeof firstValue === 'number' && Number.isInteger(firstValue) ? Math.min(Math.max(firstValue, 1), window) : window;
  for (const w of waits) {
    const v = valueOf(w);
    copyAt(copies, variant, doc, w.pointer, w.form ? w.form(wait) : wait, () =>
      v === firstValue && v !== wait
        ? `${at}: ${w.what} ${textOf(v)} is not a wait within the ${window} s window`
        : `${at}: ${w.what} says ${textOf(v)}, ${first.what} says ${textOf(firstValue)}: one wait (ADR-006), within the ${window} s window`,
    );
  }
}
