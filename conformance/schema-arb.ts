/**
 * A small, exact JSON Schema → fast-check deriver for the keywords the contract's request schemas
 * use, and the boundary probes of each keyword (one value just inside, one just outside). It
 * fails loudly on a keyword it does not know, so a schema using a new one cannot silently get
 * unchecked values. The `x-` business rules are applied on top by `gen.ts`.
 */
import fc from 'fast-check';
import { centimesFromNumber, centimesToNumber } from '../lib/money.ts';

export type Json = Record<string, unknown>;
export type Path = (string | number)[];

/** Keywords that constrain values: each has a generator and probes below. */
const CONSTRAINTS = new Set([
  'type',
  'enum',
  'const',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'minItems',
  'maxItems',
  'required',
  'properties',
  'additionalProperties',
  'format',
]);
/** Keywords that only annotate (x- extensions are judged by the business layer). */
const ANNOTATIONS = new Set(['title', 'description', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment']);
/** Formats with a meaning for generation; `mad`: a number with at most two decimals (ADR-021). */
const FORMATS = new Set(['mad', 'int64', 'int32']);

/** Resolves `$ref` (a JSON pointer into `doc`) and merges `allOf` and `$ref` siblings into one schema. */
export function flatten(doc: Json, node: unknown, where = '#'): Json {
  let n = node as Json;
  let out: Json = {};
  const merge = (a: Json, b: Json): Json => {
    const m: Json = { ...a };
    for (const [k, v] of Object.entries(b)) {
      if (k === 'minimum' || k === 'exclusiveMinimum' || k === 'minLength' || k === 'minItems')
        m[k] = typeof m[k] === 'number' ? Math.max(m[k], v as number) : v;
      else if (k === 'maximum' || k === 'exclusiveMaximum' || k === 'maxLength' || k === 'maxItems')
        m[k] = typeof m[k] === 'number' ? Math.min(m[k], v as number) : v;
      else if (k === 'required') m[k] = [...new Set([...((m[k] as string[]) ?? []), ...(v as string[])])];
      else m[k] = v;
    }
    return m;
  };
  if (typeof n.$ref === 'string') {
    const { $ref, ...rest } = n;
    const target = resolvePointer(doc, $ref);
    n = merge(flatten(doc, target, $ref), rest);
  }
  if (Array.isArray(n.allOf)) {
    const { allOf, ...rest } = n;
    for (const [i, part] of (allOf as unknown[]).entries()) out = merge(out, flatten(doc, part, `${where}/allOf/${i}`));
    n = merge(out, rest);
  }
  for (const k of Object.keys(n)) {
    if (!CONSTRAINTS.has(k) && !ANNOTATIONS.has(k) && !k.startsWith('x-'))
      throw new Error(`schema-arb: keyword ${JSON.stringify(k)} at ${where} is not known to the body generator`);
  }
  if (typeof n.format === 'string' && !FORMATS.has(n.format))
    throw new Error(`schema-arb: format ${JSON.stringify(n.format)} at ${where} is not known to the body generator`);
  if (n.additionalProperties !== undefined && typeof n.additionalProperties !== 'boolean')
    throw new Error(`schema-arb: additionalProperties as a schema at ${where} is not known to the body generator`);
  return n;
}

export function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`schema-arb: only local $ref are known, got ${ref}`);
  let cur: unknown = doc;
  for (const p of ref.slice(2).split('/')) cur = (cur as Json)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (cur === undefined) throw new Error(`schema-arb: $ref ${ref} does not resolve`);
  return cur;
}

/** The one JSON type a schema allows (a list of types is not used by the contract). */
function typeOf(s: Json, where: string): string {
  if (s.const !== undefined) return 'const';
  if (Array.isArray(s.enum)) return 'enum';
  if (typeof s.type !== 'string') throw new Error(`schema-arb: ${where} needs one type`);
  return s.type;
}

/** A number's step: 1 for integers, a centime for `mad`, else `multipleOf` (or a centime). */
function stepOf(s: Json): number {
  if (s.type === 'integer') return 1;
  if (typeof s.multipleOf === 'number') return s.multipleOf;
  return 0.01;
}

/** Inclusive bounds of a number schema, in steps of `stepOf`. */
export function numberBounds(s: Json): { lo: number | undefined; hi: number | undefined; step: number } {
  const step = stepOf(s);
  const lo = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + step : typeof s.minimum === 'number' ? s.minimum : undefined;
  const hi = typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - step : typeof s.maximum === 'number' ? s.maximum : undefined;
  return {
    lo: typeof s.minimum === 'number' && lo !== undefined ? Math.max(lo, s.minimum) : lo,
    hi: typeof s.maximum === 'number' && hi !== undefined ? Math.min(hi, s.maximum) : hi,
    step,
  };
}

/** Widest generated magnitude of an unbounded number: JSON readers hold integers exactly up to 2^53 − 1. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

function numberArb(s: Json): fc.Arbitrary<number> {
  const { lo, hi, step } = numberBounds(s);
  if (step === 1) {
    const min = lo ?? -UNBOUNDED;
    const max = hi ?? UNBOUNDED;
    return fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 20) }) },
      { weight: 2, arbitrary: fc.integer({ min, max }) },
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
    );
  }
  // steps of a centime (or multipleOf): an integer count of steps, never a binary float sum
  const units = (v: number): number => Math.round(v / step);
  const min = lo !== undefined ? units(lo) : -1e11;
  const max = hi !== undefined ? units(hi) : 1e11;
  const toValue = (k: number): number => (step === 0.01 ? centimesToNumber(k) : k * step);
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 100_000) }) },
      { weight: 2, arbitrary: fc.integer({ min, max }) },
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
    )
    .map(toValue);
}

/** Printable characters, some beyond ASCII (JSON Schema lengths count code points). */
const CHAR = fc.oneof(
  { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ش', '€') },
);

function stringArb(s: Json): fc.Arbitrary<string> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : min + 64;
  const len = (v: string): number => [...v].length;
  if (typeof s.pattern === 'string') {
    const re = new RegExp(s.pattern, 'u');
    return fc.stringMatching(re).filter((v) => len(v) >= min && len(v) <= max);
  }
  const of = (n: number): fc.Arbitrary<string> => fc.array(CHAR, { minLength: n, maxLength: n }).map((c) => c.join(''));
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(CHAR, { minLength: min, maxLength: Math.min(max, min + 30) }).map((c) => c.join('')) },
    { weight: 1, arbitrary: of(min) },
    { weight: 1, arbitrary: of(max) },
  );
}

/**
 * Valid values of `schema`: every optional property present in some values, lengths and bounds at
 * their ends in some values. `onObject` may rewrite an object's arbitrary (the business rules).
 */
export function arbitraryOf(
  doc: Json,
  schema: unknown,
  onObject: (s: Json, arb: fc.Arbitrary<Json>) => fc.Arbitrary<Json> = (_s, a) => a,
  where = '#',
): fc.Arbitrary<unknown> {
  const s = flatten(doc, schema, where);
  switch (typeOf(s, where)) {
    case 'const':
      return fc.constant(s.const);
    case 'enum':
      return fc.constantFrom(...(s.enum as unknown[]));
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numberArb(s);
    case 'string':
      return stringArb(s);
    case 'array': {
      const item = arbitraryOf(doc, s.items, onObject, `${where}/items`);
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      const max = typeof s.maxItems === 'number' ? s.maxItems : min + 5;
      return fc.oneof(
        { weight: 8, arbitrary: fc.array(item, { minLength: min, maxLength: Math.min(max, min + 2) }) },
        { weight: 1, arbitrary: fc.array(item, { minLength: max, maxLength: max }) },
      );
    }
    case 'object': {
      const props = (s.properties ?? {}) as Json;
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, p] of Object.entries(props)) model[k] = arbitraryOf(doc, p, onObject, `${where}/properties/${k}`);
      const required = ((s.required ?? []) as string[]).filter((k) => k in props);
      const arb = fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Json>;
      return onObject(s, arb);
    }
    default:
      throw new Error(`schema-arb: type ${String(s.type)} at ${where} is not known to the body generator`);
  }
}

/** One boundary probe: a single keyword's value just inside (`valid`) or just outside its limit. */
export interface Probe {
  path: Path;
  keyword: string;
  /** The value to set; `undefined` deletes the property. */
  value: unknown;
  /** Whether the value satisfies the keyword (a boundary kept), as the schema says. */
  inside: boolean;
  label: string;
}

const show = (p: Path): string => p.map((x, i) => (typeof x === 'number' ? `[${x}]` : i ? `.${x}` : x)).join('');

/** A string `n` code points long that matches `pattern` when one can (repeating a witness's characters). */
function stringOfLength(n: number, pattern: string | undefined, witness: string): string {
  const re = pattern ? new RegExp(pattern, 'u') : undefined;
  for (const c of new Set([...witness, 'N', '1'])) {
    const v = [...witness, ...Array<string>(n).fill(c)].slice(0, n).join('');
    if (!re || re.test(v)) return v;
  }
  return 'N'.repeat(n);
}

/** A value violating only `pattern` (same length range), built from a valid witness. */
function patternBreaker(s: Json, witness: string): string | undefined {
  const re = new RegExp(s.pattern as string, 'u');
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  for (const v of [
    `+${witness.slice(1)}`,
    `-${witness.slice(1)}`,
    ` ${witness.slice(1)}`,
    `${witness.slice(0, -1)} `,
    `A${witness.slice(1)}`,
  ]) {
    if (!re.test(v) && [...v].length >= min && [...v].length <= max) return v;
  }
  return undefined;
}

/** A valid value of a schema, fixed (seeded), to build probes from. */
export function witnessOf(doc: Json, schema: unknown): unknown {
  return fc.sample(arbitraryOf(doc, schema), { numRuns: 1, seed: 7 })[0];
}

/**
 * Every keyword boundary of `schema`: for each property (items through their first element), the
 * value just inside and just outside each limit, a wrong type, a missing required member and an
 * unknown member where members are closed. Deterministic (no randomness): the tour sends them all.
 */
export function probesOf(doc: Json, schema: unknown, path: Path = [], where = '#'): Probe[] {
  const s = flatten(doc, schema, where);
  const out: Probe[] = [];
  const add = (keyword: string, value: unknown, inside: boolean, what: string): void => {
    out.push({ path, keyword, value, inside, label: `${show(path) || 'body'} ${keyword} ${what}` });
  };
  const kind = typeOf(s, where);
  const witness = path.length ? witnessOf(doc, s) : undefined;
  if (path.length && kind !== 'enum' && kind !== 'const') {
    const wrong = kind === 'string' ? 1 : kind === 'object' ? [] : kind === 'array' ? {} : String(witness);
    add('type', wrong, false, `(${JSON.stringify(wrong)} for ${kind})`);
  }
  switch (kind) {
    case 'enum': {
      const e = s.enum as unknown[];
      const first = String(e[0]);
      const other = e.includes(first.toLowerCase()) ? `${first}X` : first.toLowerCase();
      add('enum', other, false, `(${JSON.stringify(other)})`);
      break;
    }
    case 'const':
      add('const', `${String(s.const)}X`, false, `(${JSON.stringify(`${String(s.const)}X`)})`);
      break;
    case 'integer':
    case 'number': {
      const { lo, hi, step } = numberBounds(s);
      const fix = (v: number): number => (step === 0.01 ? centimesToNumber(centimesFromNumber(Number(v.toFixed(2)))!) : v);
      const kw = (ex: string, inc: string): string => (typeof s[ex] === 'number' ? ex : inc);
      if (lo !== undefined) {
        add(kw('exclusiveMinimum', 'minimum'), fix(lo), true, `at ${fix(lo)}`);
        add(kw('exclusiveMinimum', 'minimum'), fix(lo - step), false, `at ${fix(lo - step)}`);
      }
      if (hi !== undefined) {
        add(kw('exclusiveMaximum', 'maximum'), fix(hi), true, `at ${fix(hi)}`);
        add(kw('exclusiveMaximum', 'maximum'), fix(hi + step), false, `at ${fix(hi + step)}`);
      }
      const base = lo ?? 1;
      if (kind === 'integer') add('type', base + 0.5, false, `(${base + 0.5}, not an integer)`);
      else if (s.format === 'mad') add('format', base + 0.005, false, `(${base + 0.005}, three decimals)`);
      break;
    }
    case 'string': {
      const w = witness as string;
      const pattern = typeof s.pattern === 'string' ? s.pattern : undefined;
      if (typeof s.minLength === 'number' && s.minLength > 0) {
        add('minLength', stringOfLength(s.minLength, pattern, w), true, `(${s.minLength} chars)`);
        add('minLength', stringOfLength(s.minLength - 1, undefined, w), false, `(${s.minLength - 1} chars)`);
      }
      if (typeof s.maxLength === 'number') {
        add('maxLength', stringOfLength(s.maxLength, pattern, w), true, `(${s.maxLength} chars)`);
        add('maxLength', stringOfLength(s.maxLength + 1, pattern, w), false, `(${s.maxLength + 1} chars)`);
      }
      if (pattern) {
        const bad = patternBreaker(s, w);
        if (bad !== undefined) add('pattern', bad, false, `(${JSON.stringify(bad)})`);
      }
      break;
    }
    case 'array': {
      const item = witnessOf(doc, s.items);
      if (typeof s.minItems === 'number' && s.minItems > 0)
        add('minItems', Array(s.minItems - 1).fill(item), false, `(${s.minItems - 1} items)`);
      if (typeof s.maxItems === 'number') add('maxItems', Array(s.maxItems + 1).fill(item), false, `(${s.maxItems + 1} items)`);
      out.push(...probesOf(doc, s.items, [...path, 0], `${where}/items`));
      break;
    }
    case 'object': {
      const props = (s.properties ?? {}) as Json;
      for (const k of (s.required ?? []) as string[])
        out.push({
          path: [...path, k],
          keyword: 'required',
          value: undefined,
          inside: false,
          label: `${show([...path, k])} missing (required)`,
        });
      if (s.additionalProperties === false) {
        let extra = 'unexpected';
        while (extra in props) extra += '_';
        out.push({
          path: [...path, extra],
          keyword: 'additionalProperties',
          value: true,
          inside: false,
          label: `${show(path) || 'body'} unknown member ${extra}`,
        });
      }
      for (const [k, p] of Object.entries(props)) out.push(...probesOf(doc, p, [...path, k], `${where}/properties/${k}`));
      break;
    }
    case 'boolean':
      break;
    default:
      throw new Error(`schema-arb: type ${String(s.type)} at ${where} is not known to the body generator`);
  }
  return out;
}

/** `body` with the value at `path` set (or deleted when `value` is undefined); a copy. */
export function setAt(body: Json, path: Path, value: unknown): Json {
  const o = structuredClone(body);
  let cur: unknown = o;
  for (const p of path.slice(0, -1)) {
    const next = (cur as Record<string | number, unknown>)[p];
    if (next === undefined || next === null || typeof next !== 'object') return o;
    cur = next;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete (cur as Record<string | number, unknown>)[last];
  else (cur as Record<string | number, unknown>)[last] = structuredClone(value);
  return o;
}
