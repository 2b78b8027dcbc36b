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
    // the judge held by this box only: emptied, what it held is garbage
    const box: { judge?: ReturnType<typeof createJudge> } = { judge: createJudge({ variant: 1, maxTransactions: max }) };
    // the exchanges made first (their texts are not what is measured: they stay alive throughout)
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
    const gcOnce = runInNewContext('gc') as () => void;
    // a few full collections: what one collection's weak callbacks release, the next one frees
    const gc = () => {
      for (let i = 0; i < 4; i++) gcOnce();
    };
    for (const { id: _id, ...ex } of exchanges) {
      const f = box.judge!.exchange(ex);
      if (f.length) throw new Error(JSON.stringify(f));
    }
    // what the judge holds, measured as what its release frees: the code compiled while judging and
    // the validators stay on both sides of the difference
    const { kept, refs, dropped, oldestGone, newestKept } = (({ memory }) => ({
      kept: memory.transactions.size,
      refs: [...memory.merchants.values()].reduce((n, m) => n + m.byVendorReference.size, 0),
      dropped: memory.dropped,
      oldestGone: exchanges.slice(0, 10).every((ex) => !memory.transactions.has(ex.id)),
      newestKept: memory.transactions.has(exchanges.at(-1)!.id),
    }))(box.judge!);
    gc();
    const held = process.memoryUsage().heapUsed;
    delete box.judge;
    gc();
    const perTx = (held - process.memoryUsage().heapUsed) / kept;
    expect(kept).toBe(max);
    expect(refs).toBe(max);
    expect(dropped).toBe(max);
    expect(oldestGone).toBe(true);
    expect(newestKept).toBe(true);
    // the documented bound (docs/traffic.md): under 0.5 KiB per transaction kept
    expect(perTx).toBeLessThan(512);
    console.log(`judge: ${kept} transactions kept, ${Math.round(perTx)} bytes each (heap freed on its release / kept)`);
  }, 120_000);
});
