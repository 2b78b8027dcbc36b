/**
 * Probes that show one fault at a time: an invalid probe differs from the valid
 * body it starts from in the probed member only, and a wrong JSON type carries the valid value in
 * another type (an in-range amount), so no other rule refuses it too.
 */
import { describe, expect, it } from 'vitest';
import { centimesOf } from '../lib/money.ts';
import { amountRange } from '../generated/index.ts';
import { fixedBody, bodyGen } from './gen.ts';
import { stableJson } from '../lib/json.ts';
import { Contract } from '../judge/contract.ts';
import { classifyBody } from './commands/createSession.ts';
import { phoneNearMisses, swapCase } from './commands/nearMiss.ts';
import { referenceNearMisses } from './commands/crossMerchant.ts';
import { paddedJson } from './commands/createTransaction.ts';
import { maxBodyBytes } from '../generated/index.ts';
import fc from 'fast-check';

type Json = Record<string, unknown>;

/** The JSON paths at which two values differ. */
function diff(a: unknown, b: unknown, at = '$'): string[] {
  if (stableJson(a) === stableJson(b)) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => diff((a as Json)[k], (b as Json)[k], Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`));
  }
  return [at];
}

describe('wrong-type probes', () => {
  for (const variant of [1, 2] as const)
    for (const op of ['createPartnerTransaction', 'createSession'])
      it(`variant ${variant}, ${op}: each differs from the valid body in its member only, an amount in range`, () => {
        const c = Contract.for(variant);
        const base = fixedBody(c, op, 600);
        const probes = bodyGen(c, op).probes.filter((p) => / type \(/.test(p.label) && !/\(null\)/.test(p.label));
        expect(probes.length).toBeGreaterThan(3);
        for (const p of probes) expect(diff(base, p.apply(base)), p.label).toHaveLength(1);
        const total = probes.find((p) => p.label.startsWith('total type'))!;
        const sent = total.apply(base).total;
        // the same amount in the other JSON type (Variant 2's A1 writes a string: its probe is a number)
        expect(typeof sent).not.toBe(typeof base.total);
        expect(centimesOf(Number(sent))).toBe(centimesOf(Number(base.total)));
        expect(Number(sent)).toBeGreaterThanOrEqual(amountRange.minimum);
        expect(Number(sent)).toBeLessThanOrEqual(amountRange.maximum);
        expect(classifyBody(c, op, total.apply(base)).validation.length).toBeGreaterThan(0);
      });
});

describe('near-miss probes (ADR-049)', () => {
  for (const variant of [1, 2] as const)
    it(`variant ${variant}: the phone forms merchants type are derived from the spec's example, and each is refused by the schema alone`, () => {
      const c = Contract.for(variant);
      const forms = phoneNearMisses(c).map((p) => p.value);
      expect(forms).toEqual(['+212612345678', '212 612 345 678', '212-612-345-678', '0612345678']);
      const base = fixedBody(c, 'createPartnerTransaction', 600);
      expect(classifyBody(c, 'createPartnerTransaction', base).validation).toEqual([]);
      for (const phone of forms) {
        const body = { ...base, customerPhone: phone };
        expect(diff(base, body)).toEqual(['$.customerPhone']);
        expect(classifyBody(c, 'createPartnerTransaction', body).validation.length, phone).toBeGreaterThan(0);
      }
    });

  it('a reference in the other letter case differs in every letter, and stays valid', () => {
    expect(swapCase('cf-8a836f65-4C4E')).toBe('CF-8A836F65-4c4e');
    expect(swapCase('2026-000123')).toBe('2026-000123');
  });

  it("a reference's near-miss forms are each another value, and every one outside the pattern is one an implementation may normalise back", () => {
    const ref = 'cf-8a836f65-4c4e';
    const pattern = new RegExp(Contract.for(1).schema('VendorReference').pattern as string, 'u');
    const forms = referenceNearMisses(ref);
    expect(new Set(forms.map((f) => f.value)).size).toBe(forms.length);
    expect(forms.every((f) => f.value !== ref)).toBe(true);
    const byLabel = Object.fromEntries(forms.map((f) => [f.label, f.value]));
    expect(byLabel['fullwidth digits (NFKC)']!.normalize('NFKC')).toBe(ref);
    expect(byLabel['an inner zero-width space']!.replace(/\u200b/g, '')).toBe(ref);
    expect(byLabel['a trailing no-break space (trimmed by String.trim, NFKC gives a space)']!.trim()).toBe(ref);
    expect(byLabel['a trailing newline']!.trim()).toBe(ref);
    expect(byLabel['in the other letter case']!.toLowerCase()).toBe(ref);
    // within the pattern: the other case, the trailing dot, %2D decoded once (404); the rest refused by it (400)
    expect(forms.filter((f) => pattern.test(f.value)).map((f) => f.label)).toEqual(['a trailing dot', 'in the other letter case']);
  });
});

describe('both sides of the body size (x-max-body-bytes)', () => {
  it('a body padded with whitespace is exactly the bytes asked, and the same JSON', () => {
    const body = fixedBody(Contract.for(1), 'createPartnerTransaction', 600);
    for (const n of [maxBodyBytes, maxBodyBytes + 1]) {
      const text = paddedJson(body, n);
      expect(Buffer.byteLength(text)).toBe(n);
      expect(JSON.parse(text)).toEqual(body);
    }
  });
});

describe('realistic generated values', () => {
  it("phones are shaped like the contract's example most of the time (Moroccan mobiles 2126…/2127…)", () => {
    const bodies = fc.sample(bodyGen(Contract.for(1), 'createPartnerTransaction').valid, { numRuns: 200, seed: 5 });
    const phones = bodies.map((b) => String(b.customerPhone));
    expect(phones.filter((p) => /^212[67][0-9]{8}$/.test(p)).length).toBeGreaterThan(100);
    expect(phones.filter((p) => !p.startsWith('212')).length).toBeGreaterThan(10);
  });
  it('item names are often written in French and Arabic words', () => {
    const bodies = fc.sample(bodyGen(Contract.for(1), 'createPartnerTransaction').valid, { numRuns: 200, seed: 5 });
    const names = bodies.flatMap((b) => (b.items as Json[]).map((i) => String(i.name)));
    // an Arabic word (three letters or more in a row), a French word with an accent between spaces
    expect(names.filter((n) => /[\u0621-\u064a]{3,}/.test(n)).length).toBeGreaterThan(20);
    expect(names.filter((n) => /(^| )[A-Za-z']*[àâçéèêëîïôûùüœ][A-Za-z']+( |$)/.test(n)).length).toBeGreaterThan(20);
  });
});
