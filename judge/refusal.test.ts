/**
 * A refusal by state judged with what its message names (the model's `refusedFrom`) and the model's
 * expiry guard (moves.ts `judgeRefusal`): a confirmation refused as EXPIRED before the payment window can
 * have passed is a contradiction; refused naming a status an unseen transition may have reached, or
 * as EXPIRED once the window has passed, is none.
 */
import { describe, expect, it } from 'vitest';
import { errorMessage } from '../lib/error-messages.ts';
import { ObservedJudge as StateTracker, type Observation } from './test-support/observe.ts';
import { partnerRecord } from './test-support/record.ts';

const A = 'merchant-a';
const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const WINDOW_MS = 1800 * 1000;
let seq = 0;
const ob = (opId: string, status: number, json: unknown, params: Record<string, string>, at: number): Observation => ({
  seq: ++seq,
  opId,
  merchant: A,
  params,
  requestJson: undefined,
  status,
  json,
  sentAt: at - 5,
  receivedAt: at + 5,
});

function created(s: StateTracker): string {
  const rec = partnerRecord(T0);
  const id = rec.id as string;
  expect(s.observe(ob('createPartnerTransaction', 201, rec, {}, T0))).toEqual([]);
  return id;
}
const refusedAs = (s: StateTracker, id: string, status: string, at: number) =>
  s
    .observe(
      ob(
        'sandboxConfirmTransaction',
        400,
        { error: { code: 'TRANSACTION_NOT_PENDING', message: errorMessage('TRANSACTION_NOT_PENDING', { required: 'PENDING', status }) } },
        { transactionId: id },
        at,
      ),
    )
    .map((f) => f.kind);

describe('a refusal by state against the expiry guard', () => {
  it('refused as EXPIRED before the window can have passed (mutant "confirmation refused in the last minute"): a contradiction', () => {
    const s = new StateTracker({});
    expect(refusedAs(s, created(s), 'EXPIRED', T0 + WINDOW_MS - 30_000)).toEqual(['contradiction']);
  });
  it('refused as EXPIRED once the window has passed, or naming a status an unseen move may have reached: none', () => {
    const s = new StateTracker({});
    expect(refusedAs(s, created(s), 'EXPIRED', T0 + WINDOW_MS + 1000)).toEqual([]);
    expect(refusedAs(s, created(s), 'CANCELED', T0 + 1000)).toEqual([]);
  });
});
