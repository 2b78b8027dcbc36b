import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { sameJson, canonicalText } from './same.ts';
import { Contract } from '../judge/contract.ts';

describe('semantic comparison (ADR-048)', () => {
  it('never counts member order, at any depth', () => {
    expect(sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
    expect(canonicalText('{"x":1,"y":[2,3]}')).toBe(canonicalText('{"y":[2,3],"x":1}'));
  });

  it('counts an array order only when asked', () => {
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson([{ a: 1 }, { b: 2 }], [{ b: 2 }, { a: 1 }], false)).toBe(true);
    expect(sameJson([1, 1, 2], [1, 2, 2], false)).toBe(false);
  });

  it('reads each array order from the spec (x-array-order), and a set without it', () => {
    for (const variant of [1, 2] as const) {
      const c = Contract.for(variant);
      expect(c.arrayOrder('PartnerTransaction', 'items')).toBe('request');
      expect(c.arrayOrder('SandboxTransactionList', 'data')).toBe('newest-first');
      expect(c.arrayOrder('SmsOutbox', 'data')).toBe('oldest-first');
      expect(c.arrayOrder('PartnerTransaction', 'status')).toBeUndefined();
    }
    const doc = structuredClone(loadBundledDocument(1)) as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    delete doc.components.schemas.PartnerTransaction!.properties.items!['x-array-order'];
    expect(new Contract(1, doc as unknown as Record<string, unknown>).arrayOrder('PartnerTransaction', 'items')).toBeUndefined();
  });
});
