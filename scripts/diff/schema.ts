/**
 * Compares two resolved JSON Schemas of one place of the contract (a request body, a parameter, a
 * response body, an event payload or its headers) and rates each change by the side it is on:
 * on the request side a narrowed limit breaks merchants' requests (major) and a widened one asks
 * implementers for more (minor); on the response and event sides the other way round, and a new
 * enum value or a removed or retyped field breaks the consumers (merchants and generated clients).
 */
import { isJson, stableJson as stable, textOf, type Json } from '../../lib/json.ts';
import { CLIENTS, IMPLEMENTERS, MERCHANTS, type Audience, type Impact } from './model.ts';

export type SchemaSide = 'request' | 'response' | 'event';

/** A change found by the comparator; the caller adds the document, subject and source place. */
export interface SchemaFinding {
  rule: string;
  impact: Impact;
  message: string;
  breaks: Audience[];
  /** Where, as keys below the compared schema. */
  keys: string[];
  /** Other places of the same change (e.g. the `required` list of an added property). */
  alsoAt?: string[][];
  /** True when the place exists only in the base (something removed). */
  inBase: boolean;
  removedNames?: string[];
}

const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
/** Extensions that state a numeric range the request must respect. */
const RANGE_EXTENSIONS = ['x-amount-range'] as const;

function types(s: Json): string[] | undefined {
  if (s.type === undefined) return undefined;
  return (Array.isArray(s.type) ? (s.type as string[]) : [textOf(s.type)]).slice().sort();
}

/** The values a schema enumerates: `enum`, or `oneOf`/`anyOf` made only of `const` branches. */
function enumerated(s: Json): { values: string[]; keys: string[] } | undefined {
  if (Array.isArray(s.enum)) return { values: (s.enum as unknown[]).map(String), keys: ['enum'] };
  for (const k of ['oneOf', 'anyOf'] as const) {
    const branches = s[k];
    if (Array.isArray(branches) && branches.length > 0 && branches.every((b) => isJson(b) && b.const !== undefined)) {
      return { values: branches.map((b) => String((b as Json).const)), keys: [k] };
    }
  }
  return undefined;
}

/**
 * A bound of `s` as it acts: the count of an object's members is bounded by its keywords and also
 * by its `required` members (at least that many) and, when it is closed, by its properties (at
 * most that many), so `{ seconds }` required and closed, and `{ seconds } or { milliseconds }`
 * (min and max 1 member, both optional), accept as many members. Other keywords as written.
 */
function memberBound(k: (typeof UPPER)[number] | (typeof LOWER)[number], s: Json): unknown {
  if (k !== 'minProperties' && k !== 'maxProperties') return s[k];
  const own = typeof s[k] === 'number' ? s[k] : undefined;
  if (k === 'minProperties') {
    const n = Math.max(own ?? 0, Array.isArray(s.required) ? s.required.length : 0);
    return n > 0 ? n : own;
  }
  const closed = s.additionalProperties === false && isJson(s.properties) ? Object.keys(s.properties).length : undefined;
  return own === undefined ? closed : closed === undefined ? own : Math.min(own, closed);
}

const show = (label: string) => (label ? `\`${label}\`` : 'the value');
const list = (xs: readonly string[]) => xs.map((x) => `\`${x}\``).join(', ');

class Comparator {
  readonly findings: SchemaFinding[] = [];
  constructor(private readonly side: SchemaSide) {}

  private get consumerSide(): boolean {
    return this.side !== 'request';
  }

  private add(f: SchemaFinding): void {
    this.findings.push(f);
  }

  /** A limit that now accepts less (`narrowed`) or more. */
  private limit(narrowed: boolean, what: string, keys: string[], inBase: boolean): void {
    const req = this.side === 'request';
    const breaking = req ? narrowed : !narrowed;
    this.add({
      rule: `${this.side}-limit-${narrowed ? 'narrowed' : 'widened'}`,
      impact: breaking ? 'major' : 'minor',
      message: `${what} (${narrowed ? 'narrowed' : 'widened'})`,
      breaks: breaking ? [MERCHANTS, CLIENTS] : [IMPLEMENTERS],
      keys,
      inBase,
    });
  }

  private bound(kind: 'upper' | 'lower', name: string, b: unknown, r: unknown, label: string, keys: string[]): void {
    label = label ? `\`${label}\`` : 'the value';
    if (stable(b) === stable(r)) return;
    const bn = typeof b === 'number' ? b : undefined;
    const rn = typeof r === 'number' ? r : undefined;
    let narrowed: boolean;
    if (bn === undefined) narrowed = true;
    else if (rn === undefined) narrowed = false;
    else narrowed = kind === 'upper' ? rn < bn : rn > bn;
    this.limit(narrowed, `\`${name}\` of ${label} ${bn ?? 'none'} → ${rn ?? 'none'}`, keys, rn === undefined);
  }

  compare(b: Json, r: Json, keys: string[], label: string): void {
    const bt = types(b);
    const rt = types(r);
    if (stable(bt) !== stable(rt)) {
      const widened = bt !== undefined && (rt === undefined || bt.every((t) => rt.includes(t)));
      const narrowed = rt !== undefined && (bt === undefined || rt.every((t) => bt.includes(t)));
      const safe = this.consumerSide ? narrowed : widened;
      this.add({
        rule: `${this.side}-field-retyped`,
        impact: safe ? 'minor' : 'major',
        message: `${label ? `\`${label}\`` : 'the value'} is retyped: ${bt?.join('|') ?? 'any'} → ${rt?.join('|') ?? 'any'}`,
        breaks: safe ? [IMPLEMENTERS] : [MERCHANTS, CLIENTS, IMPLEMENTERS],
        keys: [...keys, 'type'],
        inBase: rt === undefined,
      });
    }
    if (stable(b.const) !== stable(r.const)) {
      this.add({
        rule: `${this.side}-const-changed`,
        impact: 'major',
        message: `${show(label)}: constant ${stable(b.const)} → ${stable(r.const)}`,
        breaks: [MERCHANTS, CLIENTS, IMPLEMENTERS],
        keys: [...keys, 'const'],
        inBase: r.const === undefined,
        removedNames: b.const === undefined ? undefined : [textOf(b.const)],
      });
    }
    this.enums(b, r, keys, label);
    // a count of members is compared as it acts once either side states one (`memberBound`)
    const acting = (k: string): boolean => typeof b[k] === 'number' || typeof r[k] === 'number';
    for (const k of UPPER)
      this.bound('upper', k, acting(k) ? memberBound(k, b) : b[k], acting(k) ? memberBound(k, r) : r[k], label, [...keys, k]);
    for (const k of LOWER)
      this.bound('lower', k, acting(k) ? memberBound(k, b) : b[k], acting(k) ? memberBound(k, r) : r[k], label, [...keys, k]);
    for (const ext of RANGE_EXTENSIONS) {
      const be = isJson(b[ext]) ? b[ext] : {};
      const re = isJson(r[ext]) ? r[ext] : {};
      this.bound('upper', `${ext}.maximum`, be.maximum, re.maximum, label, [...keys, ext, 'maximum']);
      this.bound('lower', `${ext}.minimum`, be.minimum, re.minimum, label, [...keys, ext, 'minimum']);
    }
    for (const k of ['pattern', 'format', 'multipleOf'] as const) {
      if (stable(b[k]) === stable(r[k])) continue;
      this.limit(
        r[k] !== undefined,
        `\`${k}\` of ${label ? `\`${label}\`` : 'the value'} ${stable(b[k]) ?? 'none'} → ${stable(r[k]) ?? 'none'}`,
        [...keys, k],
        r[k] === undefined,
      );
    }
    if (
      stable(b.additionalProperties) !== stable(r.additionalProperties) &&
      (b.additionalProperties === false || r.additionalProperties === false)
    ) {
      this.limit(
        r.additionalProperties === false,
        `${show(label)}: additional properties ${b.additionalProperties === false ? 'refused' : 'allowed'} → ${r.additionalProperties === false ? 'refused' : 'allowed'}`,
        [...keys, 'additionalProperties'],
        r.additionalProperties === undefined,
      );
    }
    this.properties(b, r, keys, label);
    if (isJson(b.items) && isJson(r.items)) this.compare(b.items, r.items, [...keys, 'items'], `${label}[]`);
    for (const k of ['allOf', 'oneOf', 'anyOf'] as const) {
      const bs = Array.isArray(b[k]) ? (b[k] as Json[]) : [];
      const rs = Array.isArray(r[k]) ? (r[k] as Json[]) : [];
      if (enumerated(b)?.keys[0] === k || enumerated(r)?.keys[0] === k) continue;
      if (bs.length !== rs.length) {
        this.add({
          rule: `${this.side}-combinator-changed`,
          impact: 'major',
          message: `${show(label)}: \`${k}\` has ${bs.length} → ${rs.length} branches`,
          breaks: [MERCHANTS, CLIENTS, IMPLEMENTERS],
          keys: [...keys, k],
          inBase: rs.length === 0,
        });
        continue;
      }
      bs.forEach((bb, i) => this.compare(bb, rs[i]!, [...keys, k, String(i)], label));
    }
  }

  private enums(b: Json, r: Json, keys: string[], label: string): void {
    const be = enumerated(b);
    const re = enumerated(r);
    if (!be && !re) return;
    const bv = be?.values ?? [];
    const rv = re?.values ?? [];
    const added = rv.filter((v) => !bv.includes(v));
    const removed = bv.filter((v) => !rv.includes(v));
    const where = [...keys, ...(re ?? be)!.keys];
    if (be && added.length > 0) {
      this.add({
        rule: `${this.side}-enum-value-added`,
        impact: this.consumerSide ? 'major' : 'minor',
        message: `${show(label)}: new value${added.length > 1 ? 's' : ''} ${list(added)}${this.consumerSide ? ' that consumers do not know' : ' accepted'}`,
        breaks: this.consumerSide ? [MERCHANTS, CLIENTS] : [IMPLEMENTERS],
        keys: where,
        inBase: false,
      });
    }
    if (removed.length > 0 && re) {
      this.add({
        rule: `${this.side}-enum-value-removed`,
        impact: this.consumerSide ? 'minor' : 'major',
        message: `${show(label)}: value${removed.length > 1 ? 's' : ''} ${list(removed)} ${this.consumerSide ? 'no longer sent' : 'no longer accepted'}`,
        breaks: this.consumerSide ? [IMPLEMENTERS] : [MERCHANTS, CLIENTS],
        keys: where,
        inBase: false,
        removedNames: removed,
      });
    }
  }

  private properties(b: Json, r: Json, keys: string[], label: string): void {
    const bp = isJson(b.properties) ? b.properties : {};
    const rp = isJson(r.properties) ? r.properties : {};
    const breq = Array.isArray(b.required) ? (b.required as string[]) : [];
    const rreq = Array.isArray(r.required) ? (r.required as string[]) : [];
    const at = (name: string) => show(label ? `${label}.${name}` : name);
    const sub = (name: string) => (label ? `${label}.${name}` : name);
    for (const name of Object.keys(bp)) {
      if (name in rp) continue;
      const consumer = this.consumerSide;
      this.add({
        rule: `${this.side}-field-removed`,
        impact: 'major',
        message: `${at(name)} is removed${consumer ? '' : ' (requests that send it are refused)'}`,
        breaks: [MERCHANTS, CLIENTS],
        keys: [...keys, 'properties', name],
        alsoAt: [[...keys, 'required']],
        inBase: true,
        removedNames: [name],
      });
    }
    for (const name of Object.keys(rp)) {
      if (name in bp) continue;
      const required = rreq.includes(name);
      const breaking = this.side === 'request' && required;
      this.add({
        rule: `${this.side}-field-added${this.side === 'request' ? (required ? '-required' : '-optional') : ''}`,
        impact: breaking ? 'major' : 'minor',
        message: `${at(name)} is new${required ? ' and required' : ', optional'}`,
        breaks: breaking ? [MERCHANTS, CLIENTS] : this.side === 'request' ? [IMPLEMENTERS] : [IMPLEMENTERS, CLIENTS],
        keys: [...keys, 'properties', name],
        alsoAt: [[...keys, 'required']],
        inBase: false,
      });
    }
    for (const name of Object.keys(rp)) {
      if (!(name in bp)) continue;
      const was = breq.includes(name);
      const is = rreq.includes(name);
      if (was !== is) {
        const breaking = this.side === 'request' ? is : was;
        this.add({
          rule: `${this.side}-field-became-${is ? 'required' : 'optional'}`,
          impact: breaking ? 'major' : 'minor',
          message: `${at(name)} is now ${is ? 'required' : 'optional'}`,
          breaks: breaking ? [MERCHANTS, CLIENTS] : [IMPLEMENTERS],
          keys: [...keys, 'required'],
          inBase: false,
        });
      }
      if (isJson(bp[name]) && isJson(rp[name])) this.compare(bp[name], rp[name], [...keys, 'properties', name], sub(name));
    }
  }
}

/** The changes between two schemas of the same place, on the given side. */
export function compareSchemas(side: SchemaSide, base: unknown, revision: unknown, label = ''): SchemaFinding[] {
  const c = new Comparator(side);
  c.compare(isJson(base) ? base : {}, isJson(revision) ? revision : {}, [], label);
  return c.findings;
}
