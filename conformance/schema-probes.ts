/**
 * The boundary probes of each keyword of a request schema: one value just inside its limit and one
 * just outside, a wrong type, a missing required member and an unknown member where members are
 * closed, built from a valid witness that `schema-arb.ts` generates. Deterministic: the tour sends
 * them all.
 */
import fc from 'fast-check';
import { centimesFromNumber, centimesToNumber } from '../lib/money.ts';
import { arbitraryOf, flatten, memberCount, nullableOf, numberBounds, typeOf, type Json, type Path } from './schema-arb.ts';

/** One boundary probe: a single keyword's value just inside (`valid`) or just outside its limit. */
export interface Probe {
  path: Path;
  keyword: string;
  /** The value to set; `undefined` deletes the property. */
  value: unknown;
  /** Whether the value satisfies the keyword (a boundary kept), as the schema says. */
  inside: boolean;
  label: string;
  /**
   * A wrong JSON type: a body generator sends the valid value it replaces written as another type
   * where one can (`"150.00"` as 150, 150 as `"150"`), so only the type is wrong; `value` otherwise.
   */
  wrongType?: true;
  /**
   * The value built from a body's own valid value at `path` (a pattern or decimal place broken
   * there, so nothing else about the value changes: an amount stays in its range); undefined when it
   * cannot be, and `value` is sent.
   */
  derive?: (valid: unknown) => unknown;
  /**
   * The object at `at` counts its members (`maxProperties`): before the value is set, its members
   * other than `keep` (its required ones) and the probed one are removed (`withRoom`).
   */
  alone?: { at: Path; keep: readonly string[] };
}

/** `body` ready for probe `p`: the members its object must drop for the probed one to count alone (a copy when changed). */
export function withRoom(body: Json, p: Pick<Probe, 'path' | 'alone'>): Json {
  if (!p.alone) return body;
  const member = p.path[p.alone.at.length];
  const obj = valueIn(body, p.alone.at);
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return body;
  const kept = Object.fromEntries(Object.entries(obj).filter(([k]) => k === member || p.alone!.keep.includes(k)));
  return p.alone.at.length ? setAt(body, p.alone.at, kept) : kept;
}

/** The valid value `valid` written as another JSON type (a numeric string as a number, a number as a string), or `fallback`. */
export function asOtherType(valid: unknown, fallback: unknown): unknown {
  if (typeof valid === 'number') return String(valid);
  if (typeof valid === 'string' && /^-?\d+(\.\d+)?$/.test(valid) && Number.isFinite(Number(valid))) return Number(valid);
  return fallback;
}

/** The value at `path` in `body`, or undefined. */
export function valueIn(body: unknown, path: Path): unknown {
  let cur = body;
  for (const p of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[p] : undefined;
  return cur;
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

/** One way of breaking a pattern, from a valid value: which part of it (`group`), the value, and what it is for a label. */
export interface PatternBreak {
  group: 'sign' | 'before' | 'first' | 'inside' | 'after' | 'shorter' | 'longer' | 'decimals';
  value: string;
  inside: boolean;
  what: string;
}

/** Characters tried where a pattern may refuse them: a digit, a letter of each case, punctuation, space, a sign, a non-ASCII one. */
const TRIED = ['0', 'A', 'a', '.', '-', '_', ' ', '+', '/', 'é'];
/** A sign or a space written before a value (a phone's `+`, an amount's `-`). */
const SIGNS = ['+', '-', ' '];

/**
 * The ways a valid value `v` of a string schema breaks its `pattern` and nothing else (its length
 * stays within minLength/maxLength): a sign or space before it, a character it holds before it (a
 * leading zero), its first character replaced, one inside replaced, a character after it; the pattern's own shortest and longest lengths, on both
 * sides (the value cut, or its last character repeated); and for a decimal number, one decimal more
 * than the pattern allows, next to as many as it allows. One value per part, so a server that
 * checks only part of the pattern (digits only, not the leading digit nor the length) is found.
 */
export function patternBreaks(s: Json, v: string): PatternBreak[] {
  const re = new RegExp(s.pattern as string, 'u');
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  const len = (x: string): number => [...x].length;
  const fits = (x: string): boolean => len(x) >= Math.max(min, 1) && len(x) <= max;
  const chars = [...v];
  const out: PatternBreak[] = [];
  if (!chars.length || !re.test(v)) return out;
  // a decimal number (its pattern takes decimals: digits only are a number without, a phone): the
  // places its pattern allows, read by trying them; its breaks keep its value (an amount stays in range)
  const dec = /^(\d+)(?:\.(\d+))?$/.exec(v);
  const allows = (k: number): boolean => dec !== null && re.test(k ? `${dec[1]}.${'0'.repeat(k)}` : dec[1]!);
  let most = -1;
  for (let k = 0; k <= 6; k++) if (allows(k)) most = k;
  const decimal = dec !== null && most >= 1;
  const keepsValue = (x: string): boolean => !decimal || Number.isNaN(Number(x)) || Number(x) === Number(v);
  // a position's rule shows best with a character the pattern takes elsewhere in the value (a leading 0)
  const own = [...new Set([...chars, ...TRIED])];
  const first = (group: PatternBreak['group'], what: (c: string) => string, make: (c: string) => string, tried = TRIED): void => {
    for (const c of tried) {
      const x = make(c);
      if (x !== v && fits(x) && !re.test(x) && keepsValue(x)) return void out.push({ group, value: x, inside: false, what: what(c) });
    }
  };
  const mid = Math.floor(chars.length / 2);
  first(
    'sign',
    (c) => `${JSON.stringify(c)} before`,
    (c) => c + v,
    SIGNS,
  );
  first(
    'before',
    (c) => `${JSON.stringify(c)} before`,
    (c) => c + v,
    own,
  );
  first(
    'first',
    (c) => `first character ${JSON.stringify(c)}`,
    (c) => c + chars.slice(1).join(''),
    own,
  );
  if (chars.length > 2)
    first(
      'inside',
      (c) => `${JSON.stringify(c)} inside`,
      (c) => [...chars.slice(0, mid), c, ...chars.slice(mid + 1)].join(''),
      own,
    );
  first(
    'after',
    (c) => `${JSON.stringify(c)} after`,
    (c) => v + c,
    [...SIGNS, ...TRIED],
  );
  // the pattern's own length limits: the value cut from its end, or its last character repeated
  for (let n = chars.length - 1; n >= Math.max(min, 1); n--) {
    const x = chars.slice(0, n).join('');
    if (re.test(x)) continue;
    out.push({ group: 'shorter', value: x, inside: false, what: `${n} characters, the pattern's shortest is ${n + 1}` });
    out.push({ group: 'shorter', value: chars.slice(0, n + 1).join(''), inside: true, what: `${n + 1} characters` });
    break;
  }
  for (let n = chars.length + 1; n <= Math.min(max, chars.length + 64); n++) {
    const x = chars.join('') + chars.at(-1)!.repeat(n - chars.length);
    if (re.test(x)) continue;
    out.push({ group: 'longer', value: x, inside: false, what: `${n} characters, the pattern's longest is ${n - 1}` });
    out.push({ group: 'longer', value: x.slice(0, -1), inside: true, what: `${n - 1} characters` });
    break;
  }
  // a decimal number: as many places as its pattern allows, and one more
  if (decimal && dec) {
    if (most < 6) {
      const frac = (dec[2] ?? '').padEnd(most, '0').slice(0, most);
      const at = most ? `${dec[1]}.${frac}` : dec[1]!;
      const over = `${dec[1]}.${frac}5`;
      if (fits(over) && !re.test(over))
        out.push({ group: 'decimals', value: over, inside: false, what: `${most + 1} decimals, the pattern allows ${most}` });
      if (fits(at) && re.test(at)) out.push({ group: 'decimals', value: at, inside: true, what: `${most} decimals` });
    }
  }
  // one probe per value (a decimal place past the pattern may also be its longest length)
  const seen = new Set<string>();
  return out.filter((b) => !seen.has(`${b.inside} ${b.value}`) && seen.add(`${b.inside} ${b.value}`));
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
  return probesIn(doc, schema, path, where, true);
}

/**
 * The boundary probes of a path or query parameter's schema, each value as the string the URL
 * carries: no wrong-JSON-type probe (in a URL every value is a string; a non-integer still probes
 * an integer) and no empty path segment (it would name another path); a value matching only a
 * `pattern` is probed inside by a valid witness too. Deterministic, like `probesOf`.
 */
export function parameterProbesOf(doc: Json, schema: unknown, name: string, location: 'path' | 'query'): Probe[] {
  const out = probesIn(doc, schema, [name], `#/parameters/${name}`, false).map((p) => ({ ...p, value: String(p.value) }));
  return location === 'path' ? out.filter((p) => p.value !== '') : out;
}

function probesIn(doc: Json, schema: unknown, path: Path, where: string, typed: boolean): Probe[] {
  const s = flatten(doc, schema, where);
  const nonNull = nullableOf(s, where);
  if (nonNull) {
    // the non-null type's probes (its wrong type is neither), and null itself, inside
    // A probe inside the member is sent as the whole member: a valid value of the non-null type
    // with that one change (a valid body may hold null there, where a nested change would vanish).
    const inner = probesIn(doc, nonNull, path, where, typed);
    const probes =
      path.length === 0
        ? inner
        : inner.map((p): Probe => {
            if (p.path.length === path.length) return p;
            const { wrongType: _whole, ...rest } = p;
            return { ...rest, path, value: setAt(witnessOf(doc, nonNull) as Json, p.path.slice(path.length), p.value) };
          });
    if (typed && path.length) probes.push({ path, keyword: 'type', value: null, inside: true, label: `${show(path)} type (null)` });
    return probes;
  }
  const out: Probe[] = [];
  const add = (keyword: string, value: unknown, inside: boolean, what: string): void => {
    out.push({ path, keyword, value, inside, label: `${show(path) || 'body'} ${keyword} ${what}` });
  };
  const kind = typeOf(s, where);
  const witness = path.length ? witnessOf(doc, s) : undefined;
  if (typed && path.length && kind !== 'enum' && kind !== 'const') {
    const wrong = kind === 'string' ? 1 : kind === 'object' ? [] : kind === 'array' ? {} : String(witness);
    add('type', wrong, false, `(not a${/^[aeiou]/.test(kind) ? 'n' : ''} ${kind})`);
    out[out.length - 1]!.wrongType = true;
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
      else if (s.format === 'mad' || typeof s.multipleOf === 'number') {
        // a decimal place more than the step allows (a centime for `mad`, else `multipleOf`): half a
        // step past a valid value, the body's own where it has one (so only the places are judged)
        const places = (x: number): number => Math.max(0, -Math.floor(Math.log10(x)));
        const over = (v: number): number => Number((v + step / 2).toFixed(places(step) + 1));
        add(s.format === 'mad' ? 'format' : 'multipleOf', over(base), false, `(${over(base)}, ${places(step) + 1} decimals)`);
        out[out.length - 1]!.derive = (valid) => (typeof valid === 'number' && Number.isFinite(valid) ? over(valid) : undefined);
      }
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
        // a limit counts characters (code points), not bytes or UTF-16 units: at it in 2-byte
        // characters and one outside the BMP (a surrogate pair), where the pattern allows them
        const wide = `${'é'.repeat(s.maxLength - 1)}😀`;
        if (s.maxLength > 0 && (!pattern || new RegExp(pattern, 'u').test(wide)))
          add('maxLength', wide, true, `(${s.maxLength} chars, non-ASCII, one outside the BMP)`);
      }
      if (pattern) {
        // each part of the pattern, from the witness; a body's own valid value gives its own (`derive`)
        for (const b of patternBreaks(s, w)) {
          if (b.inside && !typed) continue;
          add('pattern', b.value, b.inside, `(${b.what}: ${JSON.stringify(b.value)})`);
          out[out.length - 1]!.derive = (valid) =>
            typeof valid === 'string'
              ? patternBreaks(s, valid).find((x) => x.group === b.group && x.inside === b.inside)?.value
              : undefined;
        }
        if (!typed && s.minLength === undefined && s.maxLength === undefined) add('pattern', w, true, `(${JSON.stringify(w)})`);
      }
      if (s.format === 'uuid') {
        add('format', w, true, `(uuid ${w})`);
        add('format', w.slice(0, -1), false, `(uuid one character short)`);
        add('format', `${w.slice(0, -1)}g`, false, `(uuid with a non-hex digit)`);
      }
      break;
    }
    case 'array': {
      const item = witnessOf(doc, s.items);
      // both sides of each count: the last accepted and the first refused
      if (typeof s.minItems === 'number' && s.minItems > 0) {
        add('minItems', Array(s.minItems).fill(item), true, `(${s.minItems} items)`);
        add('minItems', Array(s.minItems - 1).fill(item), false, `(${s.minItems - 1} items)`);
      }
      if (typeof s.maxItems === 'number') {
        add('maxItems', Array(s.maxItems).fill(item), true, `(${s.maxItems} items)`);
        add('maxItems', Array(s.maxItems + 1).fill(item), false, `(${s.maxItems + 1} items)`);
      }
      out.push(...probesIn(doc, s.items, [...path, 0], `${where}/items`, typed));
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
      // both sides of a count of members (the clock advance's `seconds` or `milliseconds`: one, not
      // none, not both), built from the witness and the other members' own witnesses
      const { min, max } = memberCount(s);
      if (min > 0 || max < Infinity) {
        const whole = (witness ?? witnessOf(doc, s)) as Json;
        const all: Json = { ...whole };
        for (const [k, p] of Object.entries(props)) if (!(k in all)) all[k] = witnessOf(doc, p);
        const keep = (n: number): Json => Object.fromEntries(Object.entries(all).slice(0, n));
        const count = (n: number, keyword: string, inside: boolean): void => {
          if (n < 0 || n > Object.keys(all).length) return;
          out.push({ path, keyword, value: keep(n), inside, label: `${show(path) || 'body'} ${keyword} (${n} members)` });
        };
        if (min > 0) {
          count(min, 'minProperties', true);
          count(min - 1, 'minProperties', false);
        }
        if (max < Infinity) {
          if (max !== min) count(max, 'maxProperties', true);
          count(max + 1, 'maxProperties', false);
        }
      }
      for (const [k, p] of Object.entries(props)) {
        const probes = probesIn(doc, p, [...path, k], `${where}/properties/${k}`, typed);
        // within a count of members, a member's own probe makes room for it: the object's other
        // optional members go, so only the member's keyword is judged
        const required = (s.required ?? []) as string[];
        out.push(
          ...(max < Infinity && !required.includes(k) ? probes.map((q) => ({ ...q, alone: { at: path, keep: required } })) : probes),
        );
      }
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
  // the whole body (a probe of the root object: its count of members)
  if (!path.length) return structuredClone(value) as Json;
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
