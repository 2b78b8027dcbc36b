/** A2's created_at (DD/MM/YY HH:MM:SS, UTC) is compared with the creation time, so a day/month swap on days 1–12 is found. */
import { describe, expect, it } from 'vitest';
import { parseLocalDateTime } from '../model/local-date.ts';
import { checkLocalCreatedAt } from './status-record.ts';
import { ConformanceError } from '../judge/answer.ts';
import { World, type Tx } from './world.ts';

function worldAt(iso: string): { w: World; tx: Tx } {
  const w = new World({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'sk_test_a',
    otherApiKey: 'sk_test_b',
    variant: 1,
    profile: 'sandbox',
    paymentWindowSeconds: 1800,
  });
  const perf = performance.now();
  w.state.clockAnchor = { serverMs: Date.parse(iso), perf, halfWidthMs: 0 };
  const tx = {
    id: 'x',
    who: 'main',
    kind: 'checkout',
    status: 'PENDING',
    vendorReference: null,
    created: {},
    sentAt: perf,
    receivedAt: perf + 5,
    advAtCreation: 0,
    runId: 1,
  } as Tx;
  return { w, tx };
}

describe('A2 created_at', () => {
  it('reads day first, in UTC', () => {
    expect(new Date(parseLocalDateTime('05/11/26 14:05:09')!).toISOString()).toBe('2026-11-05T14:05:09.000Z');
    expect(parseLocalDateTime('2026-11-05T14:05:09Z')).toBeNull();
    expect(parseLocalDateTime('31/02/26 10:00:00')).toBeNull();
  });
  it('passes the creation time written day first, and finds it written month first', () => {
    const { w, tx } = worldAt('2026-11-05T14:05:09.400Z');
    expect(() => checkLocalCreatedAt(w, '05/11/26 14:05:09', tx)).not.toThrow();
    expect(() => checkLocalCreatedAt(w, '11/05/26 14:05:09', tx)).toThrow(ConformanceError);
    expect(() => checkLocalCreatedAt(w, '05/11/26 15:05:09', tx)).toThrow(/created_at/);
  });
});
