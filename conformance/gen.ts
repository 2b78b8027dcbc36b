/**
 * Request bodies from the contract: valid bodies derived from the operation's request schema
 * (`schema-arb.ts`; the probes, `schema-probes.ts`), with the `x-` business rules applied on top — the total inside
 * `x-amount-range` (its ends weighted in) and equal to Σ price × quantity (`x-amount-consistency`),
 * never a magic value of `x-sandbox-scenarios` — and the boundary probes of every keyword, each
 * changing one value. The expected answer is never derived here: `classifyBody` of commands/createSession.ts judges.
 */
import fc from 'fast-check';
import { centimesFromNumber, centimesOf, centimesToNumber, formatCentimes } from '../lib/money.ts';
import { arbitraryOf, flatten, type Json } from './schema-arb.ts';
import { asOtherType, probesOf, setAt, valueIn, withRoom, type Probe } from './schema-probes.ts';
import type { Contract } from '../judge/contract.ts';

interface Consistency {
  total: string;
  lines: string;
  price: string;
  quantity: string;
}

interface AmountRules {
  consistency: Consistency;
  /** The total's schema (flattened): its type says how an amount is written. */
  totalSchema: Json;
  /** `x-amount-range` in centimes. */
  min: number;
  max: number;
}

/** The x- amount rules of an object schema, or undefined when it declares none. */
function amountRules(doc: Json, s: Json): AmountRules | undefined {
  const ac = s['x-amount-consistency'] as Consistency | undefined;
  if (!ac) return undefined;
  const totalSchema = flatten(doc, (s.properties as Json)[ac.total]);
  const range = totalSchema['x-amount-range'] as { minimum: number; maximum: number } | undefined;
  if (!range) throw new Error(`gen: ${ac.total} of an x-amount-consistency object has no x-amount-range`);
  return { consistency: ac, totalSchema, min: centimesFromNumber(range.minimum)!, max: centimesFromNumber(range.maximum)! };
}

/** The written forms of an amount the total's schema accepts (a number, or the decimal strings its pattern allows). */
function amountForms(c: number, totalSchema: Json): unknown[] {
  if (totalSchema.type !== 'string') return [centimesToNumber(c)];
  const full = formatCentimes(c);
  const re = typeof totalSchema.pattern === 'string' ? new RegExp(totalSchema.pattern, 'u') : undefined;
  const forms = [...new Set([full, full.replace(/0$/, ''), full.replace(/\.00$/, '')])].filter((f) => !re || re.test(f));
  if (!forms.length) throw new Error(`gen: no written form of ${full} matches the total's pattern`);
  return forms;
}

/**
 * Prices and quantities of `lines` changed as little as needed so that Σ price × quantity is `t`
 * centimes: each line keeps at least a centime, the last takes the rest (lines beyond `t` dropped).
 */
function fitLines(all: Json[], t: number, ac: Consistency): Json[] {
  // a line costs at least a centime: never more lines than centimes
  const lines = all.slice(0, Math.max(1, Math.min(all.length, t)));
  let rest = t;
  return lines.map((line, i) => {
    const later = lines.length - 1 - i;
    const room = rest - later;
    let q = Number.isSafeInteger(line[ac.quantity]) ? (line[ac.quantity] as number) : 1;
    let c = centimesOf(line[ac.price]) ?? 1;
    if (later === 0) {
      if (q > room || room % q !== 0) q = 1;
      c = room / q;
    } else {
      if (q > room) q = 1 + (q % room);
      const maxC = Math.floor(room / q);
      if (c > maxC) c = 1 + (c % maxC);
    }
    rest -= c * q;
    return { ...line, [ac.quantity]: q, [ac.price]: centimesToNumber(c) };
  });
}

function isOrdinary(body: Json, magic: ReturnType<Contract['sandboxScenarios']>, rules: AmountRules | undefined): boolean {
  if (Object.values(body).some((v) => typeof v === 'string' && magic.phones.has(v))) return false;
  return !rules || !magic.totals.has(centimesOf(body[rules.consistency.total]) ?? NaN);
}

/** A total in centimes inside the range, its ends and the ten dirhams next to each weighted in. */
function totalArb(r: AmountRules): fc.Arbitrary<number> {
  const near = Math.min(1000, r.max - r.min);
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: r.min, max: r.max }) },
    { weight: 1, arbitrary: fc.integer({ min: r.min, max: r.min + near }) },
    { weight: 1, arbitrary: fc.integer({ min: r.max - near, max: r.max }) },
    { weight: 1, arbitrary: fc.constantFrom(r.min, r.max) },
  );
}

export interface BodyGen {
  /** Valid bodies: every optional property present in some, the business rules met. */
  valid: fc.Arbitrary<Json>;
  /** Every keyword boundary and business rule, one value changed each, applied to a valid body. */
  /** `twoFaults`: the two members a two-fault probe breaks (ADR-057). */
  probes: { label: string; heavy: boolean; twoFaults?: [string, string]; apply(body: Json): Json }[];
  /** A valid body with this total (centimes), deterministic: the tour's base. */
  fixed(totalCentimes: number): Json;
}

const cache = new WeakMap<Contract, Map<string, BodyGen>>();

/**
 * The k-th (k ≥ 0) of the suite's fixed totals for `opId` (a body with an `x-amount-consistency`
 * total), in MAD: inside `x-amount-range`, 100 MAD apart from its minimum up where the range is
 * wide enough and spread evenly across it where not, never a magic total of `x-sandbox-scenarios`
 * (it would change the outcome). The tour's bodies and every fixed body of the suite take theirs
 * here, so a narrower or shifted range moves them all.
 */
export function fixedTotal(contract: Contract, opId: string, k: number): number {
  const r = amountRules(contract.doc, contract.requestSchema(opId));
  if (!r) throw new Error(`gen: ${opId} has no x-amount-consistency total`);
  const magic = contract.sandboxScenarios().totals;
  const step = Math.max(1, Math.min(10_000, Math.floor((r.max - r.min) / 20)));
  const c = Math.min(r.max, r.min + step * k);
  for (let d = 0; d <= r.max - r.min; d++)
    for (const x of [c + d, c - d]) if (x >= r.min && x <= r.max && !magic.has(x)) return centimesToNumber(x);
  throw new Error(`gen: every total of x-amount-range is a magic total of x-sandbox-scenarios`);
}

/** The body generator of an operation's JSON request body (cached per contract). */
export function bodyGen(contract: Contract, opId: string): BodyGen {
  let byOp = cache.get(contract);
  if (!byOp) cache.set(contract, (byOp = new Map<string, BodyGen>()));
  let g = byOp.get(opId);
  if (!g) byOp.set(opId, (g = makeBodyGen(contract, opId)));
  return g;
}

function makeBodyGen(contract: Contract, opId: string): BodyGen {
  const doc = contract.doc;
  const schema = contract.requestSchema(opId);
  const root = flatten(doc, schema);
  const rules = amountRules(doc, root);
  const magic = contract.sandboxScenarios();
  const withTotal = (body: Json, c: number, form = 0): Json => {
    if (!rules) return body;
    const ac = rules.consistency;
    const forms = amountForms(c, rules.totalSchema);
    return { ...body, [ac.total]: forms[form % forms.length], [ac.lines]: fitLines(body[ac.lines] as Json[], c, ac) };
  };
  const onObject = (s: Json, arb: fc.Arbitrary<Json>): fc.Arbitrary<Json> => {
    const r = amountRules(doc, s);
    if (!r) return arb;
    return fc.tuple(arb, totalArb(r), fc.nat()).map(([b, t, form]) => withTotal(b, t, form));
  };
  const valid = (arbitraryOf(doc, schema, onObject) as fc.Arbitrary<Json>).filter((b) => isOrdinary(b, magic, rules));
  const base = fc.sample(valid, { numRuns: 1, seed: 11 })[0]!;
  const fixed = (c: number): Json => withTotal(base, c);

  const probes: BodyGen['probes'] = [];
  /**
   * After a change to the first line, the rest follows (the other lines, or a line added, else the
   * total), so only the changed keyword is judged.
   */
  const rebalance = (b: Json): Json => {
    if (!rules) return b;
    const ac = rules.consistency;
    const ls = b[ac.lines];
    if (!Array.isArray(ls) || !ls.length) return b;
    const costs: number[] = [];
    for (const l of ls as Json[]) {
      const c = centimesOf(l?.[ac.price]);
      const q = l?.[ac.quantity];
      if (c === null || !Number.isSafeInteger(q)) return b;
      costs.push(c * (q as number));
    }
    const first = ls[0] as Json;
    const t = centimesOf(b[ac.total]);
    if (t === null) return b;
    const rest = t - costs[0]!;
    if (ls.length > 1 && rest >= ls.length - 1) return { ...b, [ac.lines]: [first, ...fitLines(ls.slice(1) as Json[], rest, ac)] };
    if (rest >= 1) return { ...b, [ac.lines]: [first, { ...first, [ac.quantity]: 1, [ac.price]: centimesToNumber(rest) }] };
    const c0 = costs[0]!;
    if (c0 >= rules.min && c0 <= rules.max && !magic.totals.has(c0))
      return { ...b, [ac.lines]: [first], [ac.total]: amountForms(c0, rules.totalSchema)[0] };
    return b;
  };
  for (const p of probesOf(doc, schema)) {
    if (p.wrongType) {
      // the valid value itself as another JSON type where one can: an in-range amount, never a value
      // another rule refuses too (a lenient server would refuse `1` as out of range anyway)
      probes.push({
        label: p.label,
        heavy: false,
        apply: (b) => setAt(withRoom(b, p), p.path, asOtherType(valueIn(withRoom(b, p), p.path), p.value)),
      });
      continue;
    }
    probes.push({
      label: p.label,
      heavy: false,
      apply: (b) => {
        const room = withRoom(b, p);
        // built from the body's own value where the probe can be (a pattern or a decimal place broken there)
        const value = p.derive?.(valueIn(room, p.path)) ?? p.value;
        return follow(p, value, setAt(room, p.path, value));
      },
    });
  }
  function follow(p: Probe, value: unknown, b: Json): Json {
    if (!rules) return b;
    // a new total that is an amount takes the lines with it; a changed line moves the total
    const t = rules.consistency.total;
    if (p.path.length === 1 && p.path[0] === t) {
      // the lines fitted to it; the total as the probe writes it (a form the pattern refuses stays so)
      const c = centimesOf(value);
      return c !== null && c > 0 && typeof value === typeof base[t] ? { ...withTotal(b, c), [t]: value } : b;
    }
    // a count of lines (minItems, maxItems): the lines fitted to the body's total, so only the count is judged
    const c = centimesOf(b[t]);
    if (p.path.length === 1 && p.path[0] === rules.consistency.lines && Array.isArray(value) && value.length && c !== null)
      return { ...b, [rules.consistency.lines]: fitLines(value as Json[], c, rules.consistency) };
    return p.path[0] === rules.consistency.lines && p.path.length > 1 ? rebalance(b) : b;
  }
  if (rules) {
    const r = rules;
    const rs = r.totalSchema;
    const { total, lines } = r.consistency;
    // x-amount-range: each end, and a centime past it, with the lines consistent (skipped where the
    // total's own minimum/maximum already probe the same values)
    const own = (k: string, v: number): boolean => typeof rs[k] === 'number' && centimesFromNumber(rs[k])! === v;
    for (const [c, inside] of [
      [r.min, true],
      [r.min - 1, false],
      [r.max, true],
      [r.max + 1, false],
    ] as const) {
      if (own('minimum', inside ? c : c + 1) || own('maximum', inside ? c : c - 1)) continue;
      probes.push({ label: `${total} at ${formatCentimes(c)} (x-amount-range)`, heavy: !inside, apply: (b) => withTotal(b, c) });
    }
    probes.push({
      label: `${total} ≠ Σ ${lines} by a centime (x-amount-consistency)`,
      heavy: true,
      apply: (b) => {
        const c = centimesOf(b[total])!;
        const off = c + 1 <= r.max ? c + 1 : c - 1;
        return { ...b, [total]: amountForms(off, rs)[0] };
      },
    });
  }
  // two failing members of different codes at once (ADR-057): which code answers is
  // `x-error-precedence`'s, computed by `classifyBody` (commands/createSession.ts), never the order a server meets them
  const faults = new Map<string, { member: string; path: Probe['path']; value: unknown; label: string }>();
  const fault = (member: string, path: Probe['path'], value: unknown, label: string): void => {
    const code = contract.errorCodeOf(opId, member);
    if (!faults.has(code)) faults.set(code, { member, path, value, label });
  };
  if (rules && !rules.totalSchema['x-business-rule']) {
    const t = rules.consistency.total;
    fault(t, [t], amountForms(rules.min - 1, rules.totalSchema)[0], `${t} at ${formatCentimes(rules.min - 1)} (x-amount-range)`);
  }
  for (const p of probesOf(doc, schema)) {
    if (p.inside || p.wrongType || p.path.length === 0) continue;
    fault(String(p.path[0]), p.path, p.value, p.label);
  }
  const distinct = [...faults.values()];
  for (let i = 0; i < distinct.length; i++)
    for (let j = i + 1; j < distinct.length; j++) {
      const [a, b] = [distinct[i]!, distinct[j]!];
      probes.push({
        label: `two faults: ${a.label} + ${b.label} (x-error-precedence)`,
        heavy: false,
        twoFaults: [a.member, b.member],
        apply: (body) => setAt(setAt(body, a.path, a.value), b.path, b.value),
      });
    }
  return { valid, probes, fixed };
}

/** A body of `opId`: valid, or valid with one probe applied (business rules weigh more). */
export function anyBody(contract: Contract, opId: string): fc.Arbitrary<{ body: Json; label: string }> {
  const g = bodyGen(contract, opId);
  return fc.oneof(
    { weight: 3, arbitrary: g.valid.map((body) => ({ body, label: 'valid' })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(g.valid, fc.oneof(...g.probes.map((p) => ({ weight: p.heavy ? 8 : 1, arbitrary: fc.constant(p) }))))
        .map(([b, p]) => ({ body: p.apply(b), label: p.label })),
    },
  );
}

/** A fixed valid body of `opId` with `mad` as its total (the tour's base bodies). */
export function fixedBody(contract: Contract, opId: string, mad: number): Json {
  return bodyGen(contract, opId).fixed(centimesFromNumber(mad)!);
}

/** A valid body of `opId` (its total, where it has one, inside `x-amount-range` and no magic total: `fixedTotal`). */
export function validBody(contract: Contract, opId: string): Json {
  return amountRules(contract.doc, contract.requestSchema(opId))
    ? fixedBody(contract, opId, fixedTotal(contract, opId, 0))
    : bodyGen(contract, opId).fixed(0);
}
