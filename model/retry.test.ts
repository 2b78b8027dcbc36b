/** The retry schedule as a listed delivery shows it (retry.ts), against x-webhook-delivery's facts. */
import { describe, expect, it } from 'vitest';
import { webhookDelivery } from '../generated/index.ts';
import { MAX_ATTEMPTS, deliveryProblems, retryWindow, type DeliveryView } from './retry.ts';

const RETRY = webhookDelivery.retry;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
/** A delivery whose `n` attempts each answered `status`, made at the nominal (compressed) delays, `durationMs` 5 each. */
function delivery(n: number, status: number | null, state: string, next: 'nominal' | number | null = null): DeliveryView {
  const attempts: DeliveryView['attempts'] = [];
  let t = T0;
  for (let i = 0; i < n; i++) {
    if (i > 0) t += (RETRY.delaysSeconds[i]! * 1000) / RETRY.sandboxCompression;
    attempts.push({ at: t, status, durationMs: 5 });
  }
  const due = next === 'nominal' ? t + 5 + (RETRY.delaysSeconds[n]! * 1000) / RETRY.sandboxCompression : next;
  return { state, nextAttemptAt: due, attempts };
}
const o = { earlyMs: 3, lateMs: 3000, redelivered: false };
const paths = (d: DeliveryView, redelivered = false) => deliveryProblems(d, { ...o, redelivered }).map((p) => p.path);

describe('a listed delivery against the retry schedule (ADR-005)', () => {
  it('the schedule followed: pending between attempts, failed after the last, delivered after a 2xx, disabled after a 410', () => {
    for (let n = 1; n < MAX_ATTEMPTS; n++) expect(paths(delivery(n, 500, 'pending', 'nominal'))).toEqual([]);
    expect(paths(delivery(MAX_ATTEMPTS, 500, 'failed'))).toEqual([]);
    expect(paths(delivery(3, 204, 'delivered'))).toEqual([]);
    expect(paths(delivery(1, 410, 'disabled'))).toEqual([]);
    // parked while the endpoint was removed or disabled by another delivery
    expect(paths(delivery(2, 500, 'no_endpoint'))).toEqual([]);
    expect(paths(delivery(2, 500, 'disabled'))).toEqual([]);
    // a Retry-After (429, 503) may set a later due time than the schedule's
    expect(paths(delivery(2, 429, 'pending', T0 + 3_600_000))).toEqual([]);
  });

  it('the mutants of the schedule are problems', () => {
    // retries stop after the first failed attempt; end after the sixth
    expect(paths(delivery(1, 500, 'failed'))).toEqual(['state']);
    expect(paths(delivery(6, 500, 'failed'))).toEqual(['state']);
    // sent at once
    const once = delivery(3, 500, 'pending', T0);
    once.attempts.forEach((a) => (a.at = T0));
    expect(paths(once)).toEqual(['attempts[1].at', 'attempts[2].at', 'nextAttemptAt']);
    // attempt 6 due after attempt 7's delay
    const late = delivery(5, 500, 'pending', 'nominal');
    late.nextAttemptAt = late.attempts[4]!.at + retryWindow(6)[0];
    expect(paths(late)).toEqual(['nextAttemptAt']);
    // a 410 that does not disable; a ninth attempt
    expect(paths(delivery(1, 410, 'pending', 'nominal'))).toEqual(['state']);
    expect(paths(delivery(MAX_ATTEMPTS + 1, 500, 'failed'))).toEqual(['attempts']);
  });

  it('a redelivered delivery is not judged on its schedule', () => {
    expect(paths(delivery(MAX_ATTEMPTS + 1, 500, 'failed'), true)).toEqual([]);
  });
});
