/**
 * The model against the generated `x-state-machine` table: for every status,
 * every operation the table names and every time position (before, at, after the end of the
 * payment window), `decide` and `answers` give what the table says, transition by transition and
 * rejection by rejection, COMPLETED included. The expectation is computed here from the table's
 * data and the guards' own words (`guard` prose), never from the model's code.
 */
import { describe, expect, it } from 'vitest';
import { stateMachine, variants } from '../generated/contract.ts';
import { errorMessage } from '../lib/error-messages.ts';
import {
  TOKEN_LIFETIME_MS,
  answers,
  at,
  decide,
  expiryOf,
  refusedFrom,
  rejectionOf,
  statusesDuring,
  tokenAnswers,
  type Status,
} from './index.ts';

type Row = (typeof stateMachine.transitions)[number];
const STATUSES = Object.keys(stateMachine.states) as Status[];
const OPS = [...new Set([...stateMachine.transitions, ...stateMachine.rejections].map((t) => t.trigger.operationId))];
const EXPIRES = 1_000_000;
const POSITIONS = { before: EXPIRES - 1, at: EXPIRES, after: EXPIRES + 1 } as const;
const OUTCOMES = ['success', 'failed'] as const;

/** A guard as its prose states it: the time condition and the payment's outcome it names. */
function guardHolds(t: Row, now: number, outcome: string): boolean {
  const g = t.guard;
  if (/now < createdAt \+ payment window/.test(g) && !(now < EXPIRES)) return false;
  if (/now >= createdAt \+ payment window/.test(g) && !(now >= EXPIRES)) return false;
  if (/outcome is `success`/.test(g) && outcome !== 'success') return false;
  return true;
}

/** The table's answer to `op` from `from` at `now`: the first transition whose guard holds, else the rejection listed, else nothing. */
function fromTable(op: string, from: Status, now: number, outcome: string) {
  const rows = stateMachine.transitions.filter(
    (t) => t.trigger.operationId === op && t.from !== null && (t.from as readonly string[]).includes(from),
  );
  const moved = rows.find((t) => guardHolds(t, now, outcome));
  if (moved) return { kind: 'moved', transition: moved.id, to: moved.to, emits: moved.emits ?? null } as const;
  if (rows.length) return { kind: 'held', transition: rows[0]!.id } as const;
  const r = stateMachine.rejections.find((x) => x.trigger.operationId === op && (x.from as readonly string[]).includes(from));
  return r ? ({ kind: 'refused', status: r.status, code: r.code } as const) : ({ kind: 'none' } as const);
}

function successOf(op: string): number {
  const o =
    (variants.v1.operations as Record<string, { successStatus: number }>)[op] ??
    (variants.v2.operations as Record<string, { successStatus: number }>)[op];
  return o!.successStatus;
}

const expire = stateMachine.transitions.find((t) => t.trigger.kind === 'clock')!;

describe('the model agrees with the generated x-state-machine table', () => {
  it('decide: one status, one instant, every (status, operation, time position, outcome)', () => {
    const used = new Set<string>();
    for (const op of OPS)
      for (const from of STATUSES)
        for (const [pos, now] of Object.entries(POSITIONS))
          for (const outcome of OUTCOMES) {
            const want = fromTable(op, from, now, outcome);
            if (want.kind === 'moved') used.add(want.transition);
            if (want.kind === 'refused') used.add(`${op} ${from}`);
            expect(decide(op, from, now, { expiresAt: at(EXPIRES), outcome }), `${op} from ${from} ${pos} expiry, ${outcome}`).toEqual(
              want,
            );
          }
    // every move from a status and every rejection of the table was met, COMPLETED included
    for (const t of stateMachine.transitions) if (t.from !== null) expect(used, t.id).toContain(t.id);
    for (const r of stateMachine.rejections)
      for (const f of r.from) expect(used, `${r.trigger.operationId} ${f}`).toContain(`${r.trigger.operationId} ${f}`);
  });

  it('decide: creations come from the transitions with no from', () => {
    for (const t of stateMachine.transitions.filter((x) => x.from === null))
      expect(decide(t.trigger.operationId, null, 0)).toMatchObject({ kind: 'moved', transition: t.id, to: t.to });
  });

  it('answers: time acts first (PENDING is EXPIRED at and after the window), then the table; statuses after each answer', () => {
    for (const op of OPS)
      for (const from of STATUSES)
        for (const [pos, now] of Object.entries(POSITIONS))
          for (const outcome of OUTCOMES) {
            const s = (expire.from as readonly string[]).includes(from) && now >= EXPIRES ? expire.to : from;
            const want = fromTable(op, s, now, outcome);
            const expected =
              want.kind === 'moved'
                ? { status: successOf(op), code: null, after: [want.to], transition: want.transition, emits: want.emits }
                : want.kind === 'refused'
                  ? { status: want.status, code: want.code, after: [s], transition: null, emits: null }
                  : { status: successOf(op), code: null, after: [s], transition: null, emits: null };
            expect(
              answers(op, [from], at(now), { expiresAt: at(EXPIRES), outcome }),
              `${op} from ${from} ${pos} expiry, ${outcome}`,
            ).toEqual([expected]);
          }
  });

  it('answers: an interval straddling the window end allows both sides, and a set of statuses the union', () => {
    const during = { from: EXPIRES - 5, to: EXPIRES + 5 };
    expect(statusesDuring(['PENDING'], during, at(EXPIRES)).sort()).toEqual(['EXPIRED', 'PENDING']);
    const b4 = answers('cancelPartnerTransactionByVendorReference', ['PENDING'], during, { expiresAt: at(EXPIRES) });
    expect(b4).toEqual([
      { status: 200, code: null, after: ['CANCELED'], transition: 'merchant-cancel', emits: 'transaction.cancelled' },
      { status: 400, code: 'TRANSACTION_NOT_PENDING', after: ['EXPIRED'], transition: null, emits: null },
    ]);
    // slack widens the interval: 10 ms before the end is 'maybe' with 25 ms of slack
    expect(statusesDuring(['PENDING'], at(EXPIRES - 10), at(EXPIRES), 25).sort()).toEqual(['EXPIRED', 'PENDING']);
    expect(statusesDuring(['PENDING'], at(EXPIRES - 10), at(EXPIRES), 0)).toEqual(['PENDING']);
    // an unknown payment outcome: both the approval and the unchanged PENDING
    const pay = answers('sandboxPaySession', ['PENDING', 'APPROVED'], at(0), { expiresAt: expiryOf(at(0), 1800) });
    expect(pay.map((a) => [a.status, a.code, a.after])).toEqual([
      [200, null, ['APPROVED']],
      [200, null, ['PENDING']],
      [400, 'TRANSACTION_NOT_PENDING', ['APPROVED']],
    ]);
  });

  it('refusedFrom: a refusal seen says the statuses the table refuses it from, narrowed to the one its message names', () => {
    const B4 = 'cancelPartnerTransactionByVendorReference';
    const all = Object.keys(stateMachine.states) as Status[];
    const fromTable = all.filter((s) => rejectionOf(B4, s)?.code === 'TRANSACTION_NOT_PENDING');
    expect(fromTable.length).toBeGreaterThan(1);
    expect(refusedFrom(B4, 400, 'TRANSACTION_NOT_PENDING')).toEqual(fromTable);
    expect(refusedFrom(B4, 400, 'TRANSACTION_NOT_PENDING').includes('PENDING')).toBe(false);
    const naming = (status: string) => errorMessage('TRANSACTION_NOT_PENDING', { required: 'PENDING', status });
    expect(refusedFrom(B4, 400, 'TRANSACTION_NOT_PENDING', naming('EXPIRED'))).toEqual(['EXPIRED']);
    // a message naming a status the table does not refuse from narrows nothing
    expect(refusedFrom(B4, 400, 'TRANSACTION_NOT_PENDING', naming('PENDING'))).toEqual(fromTable);
    // another status or code, or an operation with no rejection: from no status
    expect(refusedFrom(B4, 409, 'TRANSACTION_NOT_PENDING')).toEqual([]);
    expect(refusedFrom(B4, 400, 'VALIDATION_ERROR')).toEqual([]);
    expect(refusedFrom('getPartnerTransactionById', 400, 'TRANSACTION_NOT_PENDING')).toEqual([]);
  });

  it('tokenAnswers: accepted strictly before issue + lifetime, refused from it on, either when the use straddles it', () => {
    const issued = at(1000);
    expect(tokenAnswers(issued, at(1000 + TOKEN_LIFETIME_MS - 1))).toEqual({ accepted: true, refused: false });
    expect(tokenAnswers(issued, at(1000 + TOKEN_LIFETIME_MS))).toEqual({ accepted: false, refused: true });
    expect(tokenAnswers(issued, { from: 1000 + TOKEN_LIFETIME_MS - 5, to: 1000 + TOKEN_LIFETIME_MS + 5 })).toEqual({
      accepted: true,
      refused: true,
    });
    // the slack widens the use: 10 ms before the end is either with 25 ms of slack
    expect(tokenAnswers(issued, at(1000 + TOKEN_LIFETIME_MS - 10), 25)).toEqual({ accepted: true, refused: true });
  });
});
