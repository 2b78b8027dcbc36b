/** Split maps: a Map's content and answers, and no table of the store as large as a collection. */
import { describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../domain/types.ts';
import { ShardedMap } from './sharded-map.ts';
import { Store } from './store.ts';

describe('ShardedMap', () => {
  it('answers as a Map does: get, has, set, delete, size, keys, values, entries', () => {
    const m = new ShardedMap<number>();
    const ref = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const k = `k-${(i * 7919) % 3001}`;
      if (i % 5 === 4) expect(m.delete(k)).toBe(ref.delete(k));
      else {
        m.set(k, i);
        ref.set(k, i);
      }
      expect(m.size).toBe(ref.size);
    }
    expect(m.get('k-12')).toBe(ref.get('k-12'));
    expect(m.has('nope')).toBe(false);
    expect(new Map(m)).toEqual(ref);
    expect([...m.keys()].sort()).toEqual([...ref.keys()].sort());
    expect([...m.values()].sort()).toEqual([...ref.values()].sort());
    // Spread evenly: each part holds about a 64th.
    expect(m.largestPart).toBeLessThan((ref.size / 64) * 2);
  });
});

describe('the store at 100,000 transactions', () => {
  it('keeps no table over all records larger than a small part of them, so no insertion rehashes a collection at once', async () => {
    const store = Store.memory();
    const n = 100_000;
    for (let i = 0; i < n; i += 1000) {
      const batch = Array.from({ length: 1000 }, (_, j) => {
        const id = `00000000-0000-4000-8000-${String(i + j).padStart(12, '0')}`;
        const v = {
          id,
          kind: 'partner',
          merchantId: 'mer_a',
          orderReference: `ORD-${i + j}`,
          vendorReference: `V-${i + j}`,
          status: 'COMPLETED',
          items: [],
          createdAt: '2026-11-20T14:05:09.000Z',
          expiresAt: '2026-11-20T14:35:09.000Z',
        } as unknown as TransactionRecord;
        return { c: 'transactions' as const, k: id, v };
      });
      await store.commit(batch);
    }
    expect(store.count('transactions')).toBe(n);
    expect(store.transactionByVendorReference('mer_a', 'V-77777')?.id).toBe('00000000-0000-4000-8000-000000077777');
    expect(store.merchantTransactionCount('mer_a')).toBe(n);
    // One Map per collection and per index would be 100,000 here (a ~20 ms rehash when it grows).
    expect(store.largestTable()).toBeLessThan(n / 16);
  });
});
