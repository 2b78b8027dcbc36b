/**
 * Every format rule of every request field is probed, in both variants, read from the spec: each
 * `pattern` part by part, each decimal-places rule (`format: mad`, `multipleOf`, or a decimal
 * string's pattern) by a value with one decimal more than it allows. Each probe, applied to a valid
 * body, breaks that field's rule and nothing else — its amount stays within `x-amount-range` — so a
 * server that enforces the range but not the format is found.
 */
import { describe, expect, it } from 'vitest';
import { amountRange } from '../generated/index.ts';
import { bodyGen } from './gen.ts';
import { flatten, type Json, type Path } from './schema-arb.ts';
import { valueIn } from './schema-probes.ts';
import { Contract } from '../judge/contract.ts';

interface Rule {
  path: Path;
  kind: 'pattern' | 'decimals';
  /** The field states `x-amount-range`: a probe's amount stays inside it. */
  ranged: boolean;
}

/** The format rules of a request schema, by field (array items through their first element). */
function formatRules(doc: Json, schema: unknown, path: Path = []): Rule[] {
  const s = flatten(doc, schema);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : s.type;
  if (type === 'object') return Object.entries((s.properties ?? {}) as Json).flatMap(([k, p]) => formatRules(doc, p, [...path, k]));
  if (type === 'array') return formatRules(doc, s.items, [...path, 0]);
  const out: Rule[] = [];
  // a decimal string: its pattern takes a point and digits after it, and no letter
  const re = typeof s.pattern === 'string' ? new RegExp(s.pattern, 'u') : undefined;
  if (re?.test('1.5') && !re.test('a')) out.push({ path, kind: 'decimals', ranged: s['x-amount-range'] !== undefined });
  if (type === 'number' && (s.format === 'mad' || typeof s.multipleOf === 'number'))
    out.push({ path, kind: 'decimals', ranged: s['x-amount-range'] !== undefined });
  if (re) out.push({ path, kind: 'pattern', ranged: s['x-amount-range'] !== undefined });
  return out;
}

const decimalsOf = (v: unknown): number => /\.(\d+)$/.exec(String(v))?.[1]?.length ?? 0;
const show = (p: Path): string => p.join('.');

describe('format rules of request fields, probed from the spec', () => {
  for (const variant of [1, 2] as const) {
    const contract = Contract.for(variant);
    const ops = Object.entries(contract.ops)
      .filter(([op, o]) => !o.internal && contract.hasRequestBody(op))
      .map(([op]) => op);
    for (const op of ops) {
      const rules = formatRules(contract.doc, contract.requestSchema(op));
      if (!rules.length) continue;
      it(`variant ${variant}, ${op}: ${rules.map((r) => `${show(r.path)} ${r.kind}`).join(', ')}`, () => {
        const g = bodyGen(contract, op);
        const base = g.fixed(60_000);
        const validate = contract.requestValidator(op);
        for (const rule of rules) {
          const at = `/${rule.path.join('/')}`;
          // the probes that change this field alone and break it (not a wrong type, not two faults)
          const probes = g.probes
            .filter((p) => !p.twoFaults && p.label.startsWith(`${show(rule.path).replace(/\.0(\.|$)/g, '[0]$1')} `))
            .map((p) => ({ label: p.label, body: p.apply(base) }))
            .filter((p) => !validate(p.body) && (validate.errors ?? []).every((e) => e.instancePath === at) && !/type/.test(p.label));
          const broken =
            rule.kind === 'pattern'
              ? probes.filter((p) => /pattern/.test(p.label))
              : probes.filter((p) => decimalsOf(valueIn(p.body, rule.path)) > 2);
          expect(broken.length, `${show(rule.path)}: no probe breaks its ${rule.kind}`).toBeGreaterThan(rule.kind === 'pattern' ? 3 : 0);
          for (const p of broken) {
            validate(p.body);
            // only this field fails, and an amount stays inside its range: the format alone is judged
            expect([...new Set(validate.errors!.map((e) => e.instancePath))], p.label).toEqual([at]);
            const amount = Number(valueIn(p.body, rule.path));
            if (rule.ranged && !Number.isNaN(amount))
              expect(amount >= amountRange.minimum && amount <= amountRange.maximum, `${p.label}: ${amount}`).toBe(true);
          }
        }
      });
    }
  }
});
