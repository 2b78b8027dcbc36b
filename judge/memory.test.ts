/**
 * The judge's memory bound: at most `maxTransactions` transactions kept, oldest dropped first with
 * its vendorReference, and what one costs (heap growth per transaction kept, measured).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createJudge } from './index.ts';
import { createRequest, partnerRecord } from './test-support/record.ts';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');

describe('the bound', () => {
  it('24,576 transactions made through a judge of 12,288: the oldest dropped first, with their references; under 0.5 KiB each', () => {
    // three quarters of a power of two, as a Map's table fills (the figure of docs: 100,000 through 50,000)
    const max = 12_288;
    const warm = 2_000;
    const judge = createJudge({ variant: 1, maxTransactions: max });
    // the exchanges made first (their texts are not what is measured)
    const exchanges = Array.from({ length: 2 * max }, (_, i) => {
      const rec = partnerRecord(T0, { vendorReference: `ref-${i}` });
      return {
        seq: i + 1,
        method: 'POST',
        url: '/api/v1/public/partner/transactions',
        headers: { 'x-service-key': `sk_live_merchant_${i % 2 ? 'a' : 'b'}_00000000000000000000`, 'content-type': 'application/json' },
        body: JSON.stringify(createRequest(rec)),
        status: 201,
        responseHeaders: { 'content-type': 'application/json' },
        responseText: JSON.stringify(rec),
        sentAt: T0 - 5,
        receivedAt: T0 + 5,
        id: rec.id as string,
      };
    });
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const judged = (list: typeof exchanges) => {
      for (const { id: _id, ...ex } of list) {
        const f = judge.exchange(ex);
        if (f.length) throw new Error(JSON.stringify(f));
      }
    };
    // the first exchanges compile the validators and fill the answer memo: measured after them
    judged(exchanges.slice(0, warm));
    gc();
    const before = process.memoryUsage().heapUsed;
    judged(exchanges.slice(warm));
    gc();
    const { memory } = judge;
    const perTx = (process.memoryUsage().heapUsed - before) / (memory.transactions.size - warm);
    expect(memory.transactions.size).toBe(max);
    const refs = [...memory.merchants.values()].reduce((n, m) => n + m.byVendorReference.size, 0);
    expect(refs).toBe(max);
    expect(memory.dropped).toBe(max);
    for (const ex of exchanges.slice(0, 10)) expect(memory.transactions.has(ex.id)).toBe(false);
    expect(memory.transactions.has(exchanges.at(-1)!.id)).toBe(true);
    // the documented bound (judge/README.md): under 0.5 KiB per transaction kept
    expect(perTx).toBeLessThan(512);
    console.log(`judge: ${memory.transactions.size} transactions kept, ${Math.round(perTx)} bytes each (heap growth / kept)`);
  }, 120_000);
});
