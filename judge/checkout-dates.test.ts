/**
 * A checkout transaction's time rules as A2 and A3 show them (reads.ts `judgeCheckoutStatus`,
 * `judgeLocalDates`), fed exchanges directly: PENDING once the payment window has
 * certainly passed since the paid session, A2's created_at not the paying exchange's instant, A2's
 * updated_at not the last change's; each beside the right answer.
 */
import { describe, expect, it } from 'vitest';
import { ObservedJudge as StateTracker, type Observation } from './test-support/observe.ts';
import { partnerRecord } from './test-support/record.ts';

const A = 'merchant-a';
const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const WINDOW_MS = 1800 * 1000;
let seq = 0;

function ob(opId: string, over: Partial<Observation>, at: number): Observation {
  return {
    seq: ++seq,
    opId,
    merchant: A,
    params: {},
    requestJson: undefined,
    status: 200,
    json: undefined,
    sentAt: at - 5,
    receivedAt: at + 5,
    ...over,
  };
}
/** A1 then a paid session (left PENDING) at T0: the token and the transaction's id. */
function paid(s: StateTracker, id: string): string {
  const token = `st_${id.slice(0, 8)}`;
  s.observe(ob('createSession', { json: { token, expiresAt: new Date(T0 + 3_600_000).toISOString() } }, T0));
  s.observe(
    ob(
      'sandboxPaySession',
      { requestJson: { session_token: token, customerPhone: '212612345678' }, json: { transaction_id: id, status: 'PENDING' } },
      T0,
    ),
  );
  return token;
}
/** `DD/MM/YY HH:MM:SS` of `t` (UTC). */
const local = (t: number) => {
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCFullYear() % 100)} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
};
const a2 = (s: StateTracker, token: string, id: string, json: Record<string, unknown>, at: number) =>
  s
    .observe(ob('getTransactionStatusBySessionToken', { merchant: null, token, params: { transaction_id: id }, json }, at))
    .map((f) => f.kind);
const a3 = (s: StateTracker, id: string, status: string, at: number) =>
  s
    .observe(ob('verifyTransaction', { params: { transactionId: id }, json: { id, status, amount: 600, currency: 'MAD' } }, at))
    .map((f) => f.kind);

describe('checkout transactions: A2 and A3 against the paid session', () => {
  it('A3 PENDING within the window: no finding; once it has certainly passed (mutant "A3 reports a closed transaction as PENDING"): a finding', () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-000000000001';
    paid(s, id);
    expect(a3(s, id, 'PENDING', T0 + WINDOW_MS - 1000)).toEqual([]);
    expect(a3(s, id, 'PENDING', T0 + WINDOW_MS + 1000)).toEqual(['expiry-time']);
  });

  it('A2\'s created_at at the paying exchange: no finding; an hour later (mutant "A2 dates in UTC+1"): a finding', () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-000000000002';
    const token = paid(s, id);
    const rec = { status: 'PENDING', merchant_name: 'M', store_name: 'S', updated_at: null };
    expect(a2(s, token, id, { ...rec, created_at: local(T0) }, T0 + 1000)).toEqual([]);
    expect(a2(s, token, id, { ...rec, created_at: local(T0 + 3_600_000) }, T0 + 2000)).toEqual(['timestamps']);
  });

  it("A2's updated_at the last change's instant: no finding; left at created_at (mutant): a finding", () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-000000000003';
    const token = paid(s, id);
    const changed = T0 + 60_000;
    // the sandbox confirms it a minute later: its record shows the change's instant
    s.observe(
      ob(
        'sandboxConfirmTransaction',
        {
          params: { transactionId: id },
          json: {
            id,
            orderReference: 'ORD-1',
            vendorReference: null,
            status: 'APPROVED',
            totalAmount: 600,
            currency: 'MAD',
            customerPhone: '212612345678',
            merchantName: 'M',
            storeName: 'S',
            items: [],
            createdAt: new Date(T0).toISOString(),
            updatedAt: new Date(changed).toISOString(),
          },
        },
        changed,
      ),
    );
    const rec = { status: 'APPROVED', merchant_name: 'M', store_name: 'S', created_at: local(T0) };
    expect(a2(s, token, id, { ...rec, updated_at: local(changed) }, changed + 1000)).toEqual([]);
    expect(a2(s, token, id, { ...rec, updated_at: local(T0) }, changed + 2000)).toEqual(['timestamps']);
  });

  it("A2's updated_at of a transaction an expiry event showed expired: its window's end, no finding; left at created_at (mutant \"A2's updated_at stays created_at\"): a finding", () => {
    const s = new StateTracker({ webhookWindowMs: 1000 });
    const id = '01a21b00-0000-7000-8000-000000000006';
    const token = paid(s, id);
    expect(s.event('transaction.expired', id, 'msg_e', T0 + WINDOW_MS + 100, ++seq, { id, status: 'EXPIRED' })).toEqual([]);
    // A2 shows EXPIRED as CANCELED (its checkout form): the event says which it is
    const rec = { status: 'CANCELED', merchant_name: 'M', store_name: 'S', created_at: local(T0) };
    expect(a2(s, token, id, { ...rec, updated_at: local(T0 + WINDOW_MS) }, T0 + WINDOW_MS + 1000)).toEqual([]);
    expect(a2(s, token, id, { ...rec, updated_at: local(T0) }, T0 + WINDOW_MS + 2000)).toEqual(['timestamps']);
  });

  it('an event carrying the customerPhone the payment named: no finding; another (mutant "checkout events carry another customerPhone"): a finding', () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-000000000004';
    paid(s, id);
    const data = (customerPhone: string) => ({ id, status: 'CANCELED', customerPhone, merchantName: 'M', storeName: 'S' });
    const kinds = (phone: string, n: number) =>
      s.event('transaction.cancelled', id, `msg_${n}`, T0 + 1000, ++seq, data(phone)).map((f) => f.kind);
    expect(kinds('212612345678', 1).filter((k) => k === 'webhook-payload')).toEqual([]);
    expect(kinds('212612345679', 2).filter((k) => k === 'webhook-payload')).toEqual(['webhook-payload']);
  });

  it('a phone first shown by an event, then another by A2 (the paying request named none): a finding', () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-000000000005';
    const token = `st_${id.slice(0, 8)}`;
    s.observe(ob('createSession', { json: { token, expiresAt: new Date(T0 + 3_600_000).toISOString() } }, T0));
    s.observe(ob('sandboxPaySession', { requestJson: { session_token: token }, json: { transaction_id: id, status: 'APPROVED' } }, T0));
    const data = { id, status: 'APPROVED', customerPhone: '212600000001', merchantName: 'M', storeName: 'S' };
    expect(s.event('transaction.approved', id, 'msg_a', T0 + 100, ++seq, data).filter((f) => f.kind === 'webhook-payload')).toEqual([]);
    const rec = { status: 'APPROVED', merchant_name: 'M', store_name: 'S', created_at: local(T0), updated_at: local(T0) };
    expect(a2(s, token, id, { ...rec, customer_phone: '212600000001' }, T0 + 1000)).toEqual([]);
    expect(a2(s, token, id, { ...rec, customer_phone: '212600000000' }, T0 + 2000)).toEqual(['contradiction']);
  });
});

describe('checkout transactions: an expiry read from the sandbox list', () => {
  /** A paid session whose exchange took 300 ms (the server made the transaction 150 ms into it), then the list read after the window. */
  function expiredIn(updatedAtAfterWindow: number): string[] {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-0000000000e1';
    const token = `st_${id.slice(0, 8)}`;
    s.observe(ob('createSession', { json: { token, expiresAt: new Date(T0 + 3_600_000).toISOString() } }, T0));
    s.observe({
      ...ob('sandboxPaySession', { requestJson: { session_token: token }, json: { transaction_id: id, status: 'PENDING' } }, T0),
      sentAt: T0,
      receivedAt: T0 + 300,
    });
    const created = T0 + 150;
    const rec = partnerRecord(created, {
      id,
      vendorReference: null,
      orderReference: null,
      status: 'EXPIRED',
      updatedAt: new Date(created + WINDOW_MS + updatedAtAfterWindow).toISOString(),
    });
    return s
      .observe(ob('sandboxListTransactions', { json: { data: [rec], nextCursor: null } }, T0 + WINDOW_MS + 5000))
      .filter((f) => f.jsonPath === '$.updatedAt' || f.kind === 'timestamps')
      .map((f) => f.message);
  }

  it("updatedAt at the window's end from the server's own createdAt (inside the paying exchange): no finding", () => {
    expect(expiredIn(0)).toEqual([]);
  });

  it('updatedAt two seconds past that end: a finding', () => {
    expect(expiredIn(2000)).toEqual([expect.stringContaining('is not the end of its payment window')]);
  });
});

describe("checkout transactions: a payment that may not have made its transaction, and the record's own createdAt", () => {
  const pending = { status: 'PENDING', merchant_name: 'M', store_name: 'S', updated_at: null };
  const HOUR = 3_600_000;
  /** A1 (unless `a1At` is null) and a payment at T0 of merchant A's session; `testKey` for every call of A. */
  function session(s: StateTracker, id: string, a1At: number | null, testKey = false): string {
    const token = `st_${id.slice(-8)}`;
    if (a1At !== null) s.observe(ob('createSession', { testKey, json: { token, expiresAt: new Date(a1At + HOUR).toISOString() } }, a1At));
    s.observe(
      ob('sandboxPaySession', { testKey, requestJson: { session_token: token }, json: { transaction_id: id, status: 'PENDING' } }, T0),
    );
    return token;
  }

  it("its A1 never seen: the list showing it made an hour before the payment (an earlier, failed payment made it, ADR-019) and expired at that making's window end is no finding", () => {
    const s = new StateTracker({ soleClient: true });
    const id = '01a21b00-0000-7000-8000-0000000000f1';
    session(s, id, null);
    const made = T0 - HOUR;
    const rec = partnerRecord(made, {
      id,
      vendorReference: null,
      orderReference: null,
      status: 'EXPIRED',
      updatedAt: new Date(made + WINDOW_MS).toISOString(),
    });
    const at = made + WINDOW_MS + 5000;
    expect(s.observe(ob('sandboxListTransactions', { json: { data: [rec], nextCursor: null } }, at)).map((f) => f.message)).toEqual([]);
  });

  it("its A1 seen by a sole client's judge: the payment made it, and A2's created_at an hour before is a finding", () => {
    const s = new StateTracker({ soleClient: true });
    const id = '01a21b00-0000-7000-8000-0000000000f2';
    const token = session(s, id, T0);
    expect(a2(s, token, id, { ...pending, created_at: local(T0 - HOUR) }, T0 + 1000)).toEqual(['timestamps']);
  });

  it("a live key's judge that may not assume it sees every call: made between the session's A1 and the payment; before the A1, a finding", () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-0000000000f3';
    const token = session(s, id, T0 - HOUR / 2);
    expect(a2(s, token, id, { ...pending, created_at: local(T0 - HOUR / 4) }, T0 + 1000)).toEqual([]);
    expect(a2(s, token, id, { ...pending, created_at: local(T0 - 2 * HOUR) }, T0 + 2000)).toEqual(['timestamps']);
  });

  it("a test key's clock the judge does not follow: the sandbox list's createdAt is the creation's instant, and A2's created_at is judged against it", () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-0000000000f4';
    const token = session(s, id, T0, true);
    const created = T0 + 5 * HOUR; // the clock an unseen client advanced
    const rec = partnerRecord(created, { id, vendorReference: null, orderReference: null });
    expect(
      s.observe(ob('sandboxListTransactions', { testKey: true, json: { data: [rec], nextCursor: null } }, T0 + 1000)).map((f) => f.kind),
    ).toEqual([]);
    expect(a2(s, token, id, { ...pending, created_at: local(created) }, T0 + 2000)).toEqual([]);
    expect(a2(s, token, id, { ...pending, created_at: local(created + HOUR) }, T0 + 3000)).toEqual(['timestamps']);
  });

  it("the list's createdAt outside the exchange that paid the session (its A1 seen, the clock known): a finding", () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-0000000000f5';
    session(s, id, T0);
    const rec = (createdAt: number) => partnerRecord(createdAt, { id, vendorReference: null, orderReference: null });
    const listed = (createdAt: number) =>
      s.observe(ob('sandboxListTransactions', { json: { data: [rec(createdAt)], nextCursor: null } }, T0 + 1000)).map((f) => f.jsonPath);
    expect(listed(T0 + 60_000)).toContain('$.createdAt');
  });

  it("a creation the list answered is the server's own instant: A3's PENDING is judged against its window with the clock's tolerance, not the ear's slack", () => {
    // a window of a minute: the ear's slack over it (the drift of its clock) is 31 ms, under the 100 ms tolerance
    const s = new StateTracker({ paymentWindowSeconds: 60 });
    const id = '01a21b00-0000-7000-8000-0000000000f6';
    session(s, id, T0);
    // the server's clock 90 ms behind the ear's (within the tolerance): it made the transaction at T0 - 90 by its clock
    const rec = partnerRecord(T0 - 90, { id, vendorReference: null, orderReference: null });
    expect(s.observe(ob('sandboxListTransactions', { json: { data: [rec], nextCursor: null } }, T0 + 1000)).map((f) => f.kind)).toEqual([]);
    expect(a3(s, id, 'PENDING', T0 + 60_000 - 30)).toEqual([]);
    expect(a3(s, id, 'PENDING', T0 + 60_000 + 200)).toEqual(['expiry-time']);
  });

  it("a checkout transaction's events carry the createdAt its listed record answered: another, a finding", () => {
    const s = new StateTracker({});
    const id = '01a21b00-0000-7000-8000-0000000000f7';
    session(s, id, T0, true);
    const created = T0 + 5 * HOUR;
    const rec = partnerRecord(created, { id, vendorReference: null, orderReference: null });
    s.observe(ob('sandboxListTransactions', { testKey: true, json: { data: [rec], nextCursor: null } }, T0 + 1000));
    const data = (createdAt: number) => ({
      id,
      status: 'CANCELED',
      merchantName: 'M',
      storeName: 'S',
      createdAt: new Date(createdAt).toISOString(),
    });
    const payload = (createdAt: number, n: number) =>
      s.event('transaction.cancelled', id, `msg_c${n}`, T0 + 2000, ++seq, data(createdAt)).filter((f) => f.kind === 'webhook-payload');
    expect(payload(created, 1)).toEqual([]);
    expect(payload(created + HOUR, 2).map((f) => f.jsonPath)).toEqual(['$.data.createdAt']);
  });
});
