/**
 * The judge's state rules (records.ts, moves.ts, events.ts), fed exchanges directly (no HTTP):
 * each rule flags its fault and stays quiet on the legal sequence beside it (the bound:
 * memory.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ObservedJudge as StateTracker, type Observation } from './test-support/observe.ts';
import { partnerRecord } from './test-support/record.ts';

const A = 'merchant-a';
const B = 'merchant-b';
let seq = 0;
const T0 = Date.parse('2026-11-24T10:00:00.000Z');

const record = (over: Record<string, unknown> = {}) => partnerRecord(T0, { customerPhone: '0612345678', ...over });

function ob(
  opId: string,
  merchant: string | null,
  status: number,
  json: unknown,
  params: Record<string, string> = {},
  at = T0,
): Observation {
  return { seq: ++seq, opId, merchant, params, requestJson: undefined, status, json, sentAt: at - 5, receivedAt: at + 5 };
}
const create = (s: StateTracker, rec: Record<string, unknown>, m = A, at = T0) =>
  s.observe(ob('createPartnerTransaction', m, 201, rec, {}, at));
const read = (s: StateTracker, rec: Record<string, unknown>, m = A, at = T0 + 1000) =>
  s.observe(ob('getPartnerTransaction', m, 200, rec, { transactionId: rec.id as string }, at));
const kinds = (fs: { kind: string }[]) => fs.map((f) => f.kind);

describe('state rules', () => {
  it('a legal life (create, read, cancel, read) has no finding and records its transitions', () => {
    const s = new StateTracker({});
    const r = record();
    expect(create(s, r)).toEqual([]);
    expect(read(s, r)).toEqual([]);
    const canceled = { ...r, status: 'CANCELED', updatedAt: new Date(T0 + 2000).toISOString() };
    expect(
      s.observe(
        ob('cancelPartnerTransactionByVendorReference', A, 200, canceled, { vendorReference: r.vendorReference as string }, T0 + 2000),
      ),
    ).toEqual([]);
    expect(read(s, canceled, A, T0 + 3000)).toEqual([]);
    expect([...s.transitions].sort()).toEqual(['create', 'merchant-cancel']);
  });

  it('a status reached by no transition (CANCELED, then PENDING again)', () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    const canceled = { ...r, status: 'CANCELED', updatedAt: new Date(T0 + 2000).toISOString() };
    s.observe(
      ob('cancelPartnerTransactionByVendorReference', A, 200, canceled, { vendorReference: r.vendorReference as string }, T0 + 2000),
    );
    expect(kinds(read(s, r, A, T0 + 3000))).toEqual(['no-transition']);
  });

  /**
   * A transaction made at `base`, then canceled by a request sent at `base + sent` and answered at
   * `base + answered`; returns `read(at, takes)`: a B2 read of it showing PENDING, sent at `base + at`, taking `takes` ms.
   */
  function canceledThenRead(s: StateTracker, sent: number, answered: number) {
    const r = record();
    const base = Date.now();
    const createdAt = new Date(base).toISOString();
    s.observe({ ...ob('createPartnerTransaction', A, 201, { ...r, createdAt }), sentAt: base - 5, receivedAt: base + 5 });
    const canceled = { ...r, createdAt, status: 'CANCELED', updatedAt: new Date(base + 100).toISOString() };
    const cancel = {
      ...ob('cancelPartnerTransactionByVendorReference', A, 200, canceled, { vendorReference: r.vendorReference as string }),
      sentAt: base + sent,
      receivedAt: base + answered,
    };
    expect(s.observe(cancel)).toEqual([]);
    return (at: number, takes: number) =>
      s.observe({
        ...ob('getPartnerTransaction', A, 200, { ...r, createdAt }, { transactionId: r.id as string }),
        sentAt: base + at,
        receivedAt: base + at + takes,
      });
  }

  it('concurrent requests: a read sent before the cancel was answered may still show PENDING; one sent after may not', () => {
    // the cancel: sent at +50, answered at +200
    const read = canceledThenRead(new StateTracker({}), 50, 200);
    // sent at +60, while the cancel was in flight, answered after it: the server read it first
    expect(read(60, 300)).toEqual([]);
    // sent at +250, after the cancel's answer: PENDING again is no transition
    expect(kinds(read(250, 300))).toEqual(['no-transition']);
  });

  it('a read sent a fraction of a millisecond after the cancel was answered may not show PENDING', () => {
    const read = canceledThenRead(new StateTracker({}), 50.1, 200.2);
    // sent 0.1 ms before the cancel's answer ended: they overlapped, the server may have read first
    expect(read(200.1, 0.4)).toEqual([]);
    // sent 0.3 ms after it ended (a fast client's next request), in the same millisecond: no overlap
    expect(kinds(read(200.5, 0.4))).toEqual(['no-transition']);
  });

  it('a cancel answered 200 from APPROVED: the operation has no transition from there', () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    const approved = { ...r, status: 'APPROVED', updatedAt: new Date(T0 + 1000).toISOString() };
    expect(read(s, approved)).toEqual([]);
    const canceled = { ...r, status: 'CANCELED', updatedAt: new Date(T0 + 2000).toISOString() };
    const f = s.observe(
      ob('cancelPartnerTransactionByVendorReference', A, 200, canceled, { vendorReference: r.vendorReference as string }, T0 + 2000),
    );
    expect(kinds(f)).toEqual(['no-transition']);
  });

  it('control: the same record with every member in another order (the items too) is no contradiction; an item changed is', () => {
    const s = new StateTracker({});
    const r = record({
      items: [
        { name: 'x', quantity: 1, unitPrice: 300 },
        { name: 'y', quantity: 2, unitPrice: 150 },
      ],
    });
    create(s, r);
    const reversed = Object.fromEntries(
      Object.entries(r)
        .reverse()
        .map(([k, v]) => [k, k === 'items' ? (v as object[]).map((i) => Object.fromEntries(Object.entries(i).reverse())) : v]),
    );
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(r));
    expect(read(s, reversed)).toEqual([]);
    const changed = {
      ...r,
      items: [
        { name: 'x', quantity: 1, unitPrice: 300 },
        { name: 'y', quantity: 1, unitPrice: 300 },
      ],
    };
    expect(kinds(read(s, changed))).toEqual(['contradiction']);
  });

  it('a read contradicting an earlier answer (a field changed; a refusal no transition explains)', () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    expect(kinds(read(s, { ...r, totalAmount: 600.01 }))).toEqual(['contradiction']);
    const t = record();
    create(s, t);
    const canceled = { ...t, status: 'CANCELED', updatedAt: new Date(T0 + 500).toISOString() };
    read(s, canceled);
    // a cancel refused with TRANSACTION_NOT_PENDING is consistent with CANCELED...
    const refused = { error: { code: 'TRANSACTION_NOT_PENDING', message: 'x' } };
    expect(
      s.observe(ob('cancelPartnerTransactionByVendorReference', A, 400, refused, { vendorReference: t.vendorReference as string })),
    ).toEqual([]);
    // ...but a confirm answered 200 from CANCELED is not
    const approved = { ...t, status: 'APPROVED', updatedAt: new Date(T0 + 2000).toISOString() };
    expect(kinds(s.observe(ob('sandboxConfirmTransaction', A, 200, approved, { transactionId: t.id as string }, T0 + 2000)))).toEqual([
      'no-transition',
    ]);
  });

  it('createdAt/updatedAt: updatedAt set at creation, missing after a change, before createdAt, moved without a change; createdAt outside the exchange', () => {
    const s = new StateTracker({});
    expect(kinds(create(s, record({ updatedAt: new Date(T0).toISOString() })))).toEqual(['timestamps']);
    const r = record();
    create(s, r);
    expect(kinds(read(s, { ...r, status: 'APPROVED', updatedAt: null }))).toEqual(['timestamps']);
    const t = record();
    create(s, t);
    expect(kinds(read(s, { ...t, status: 'APPROVED', updatedAt: new Date(T0 - 60_000).toISOString() }))).toEqual(['timestamps']);
    const u = record();
    create(s, u);
    read(s, { ...u, status: 'APPROVED', updatedAt: new Date(T0 + 500).toISOString() });
    expect(kinds(read(s, { ...u, status: 'APPROVED', updatedAt: new Date(T0 + 700).toISOString() }, A, T0 + 2000))).toEqual(['timestamps']);
    // created an hour before the request was sent (the proxy's clock, 100 ms tolerance)
    expect(kinds(create(s, record({ createdAt: new Date(T0 - 3_600_000).toISOString() })))).toEqual(['timestamps']);
  });

  it("a test key's sandbox clock is unknown until answered: a later createdAt is not judged before, and is after by the key's sole client", () => {
    const s = new StateTracker({ soleClient: true });
    const test = (o: Observation): Observation => ({ ...o, testKey: true });
    // an hour ahead: the merchant's clock may have been advanced before the proxy started
    const ahead = record({ createdAt: new Date(T0 + 3_600_000).toISOString() });
    expect(s.observe(test(ob('createPartnerTransaction', A, 201, ahead)))).toEqual([]);
    // but not behind: a sandbox clock only moves forward
    expect(
      kinds(s.observe(test(ob('createPartnerTransaction', A, 201, record({ createdAt: new Date(T0 - 3_600_000).toISOString() }))))),
    ).toEqual(['timestamps']);
    // once the clock is answered (offset 0), an hour ahead is outside the exchange
    s.observe(test(ob('sandboxGetClock', A, 200, { now: new Date(T0).toISOString(), offsetSeconds: 0 }, {}, T0 - 100)));
    expect(
      kinds(s.observe(test(ob('createPartnerTransaction', A, 201, record({ createdAt: new Date(T0 + 3_600_000).toISOString() }))))),
    ).toEqual(['timestamps']);
  });

  it("a test key's sandbox clock answered to a judge that may not assume it sees every call: a later createdAt is not judged (another client may have advanced it), an earlier one is", () => {
    const s = new StateTracker({});
    const test = (o: Observation): Observation => ({ ...o, testKey: true });
    s.observe(test(ob('sandboxGetClock', A, 200, { now: new Date(T0).toISOString(), offsetSeconds: 0 }, {}, T0 - 100)));
    const ahead = record({ createdAt: new Date(T0 + 3_600_000).toISOString() });
    expect(s.observe(test(ob('createPartnerTransaction', A, 201, ahead)))).toEqual([]);
    const behind = record({ createdAt: new Date(T0 - 3_600_000).toISOString() });
    expect(kinds(s.observe(test(ob('createPartnerTransaction', A, 201, behind))))).toEqual(['timestamps']);
  });

  it('timestamps that are not dates (a schema fault the response judge reports) do not break the state', () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    expect(() => read(s, { ...r, status: 'APPROVED', updatedAt: 'yesterday' })).not.toThrow();
    expect(() => read(s, { ...r, status: 'APPROVED', updatedAt: 'today', createdAt: 'never' }, A, T0 + 2000)).not.toThrow();
    expect(() => create(s, record({ createdAt: 'soon', updatedAt: 17 }))).not.toThrow();
  });

  it('a vendorReference reused and answered 201 (same merchant only)', () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    expect(create(s, record({ vendorReference: r.vendorReference }), B)).toEqual([]);
    expect(kinds(create(s, record({ vendorReference: r.vendorReference })))).toEqual(['duplicate-reference']);
  });

  it("a 404 for a transaction the same merchant created (B2, B3 and the sandbox's moves, which serve either kind, ADR-019), not for another merchant's", () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    const nf = { error: { code: 'TRANSACTION_NOT_FOUND', message: 'x' } };
    expect(s.observe(ob('getPartnerTransaction', B, 404, nf, { transactionId: r.id as string }))).toEqual([]);
    expect(kinds(s.observe(ob('getPartnerTransaction', A, 404, nf, { transactionId: r.id as string })))).toEqual(['own-404']);
    expect(
      kinds(s.observe(ob('getPartnerTransactionByVendorReference', A, 404, nf, { vendorReference: r.vendorReference as string }))),
    ).toEqual(['own-404']);
    expect(s.observe(ob('sandboxConfirmTransaction', B, 404, nf, { transactionId: r.id as string }))).toEqual([]);
    expect(kinds(s.observe(ob('sandboxConfirmTransaction', A, 404, nf, { transactionId: r.id as string })))).toEqual(['own-404']);
  });

  it('B2 and B3 disagreeing: the reference answers another transaction', () => {
    const s = new StateTracker({});
    const r = record();
    const t = record();
    create(s, r);
    create(s, t);
    const f = s.observe(
      ob(
        'getPartnerTransactionByVendorReference',
        A,
        200,
        { ...t, vendorReference: r.vendorReference },
        { vendorReference: r.vendorReference as string },
      ),
    );
    expect(kinds(f)).toContain('b2-b3');
  });

  it("a 200 showing another merchant's transaction", () => {
    const s = new StateTracker({});
    const r = record();
    create(s, r);
    expect(kinds(read(s, r, B))).toEqual(['other-merchant']);
  });

  it('expiry judged on the observed clock: EXPIRED before the window, PENDING after it; a clock advance answered moves the clock', () => {
    const s = new StateTracker({ paymentWindowSeconds: 60 });
    const r = record();
    create(s, r);
    const expired = (at: number) => ({ ...r, status: 'EXPIRED', updatedAt: new Date(at).toISOString() });
    // dated 10 s after creation too, not the window's end (ADR-010)
    expect(kinds(read(s, expired(T0 + 10_000), A, T0 + 10_000))).toEqual(['timestamps', 'expiry-time']);
    const t = record();
    create(s, t);
    expect(kinds(read(s, t, A, T0 + 120_000))).toEqual(['expiry-time']);
    expect(read(s, { ...t, status: 'EXPIRED', updatedAt: new Date(T0 + 60_000).toISOString() }, A, T0 + 121_000)).toEqual([]);
    expect(s.transitions.has('expire')).toBe(true);
    // merchant B advanced its sandbox clock by an hour: an expiry 10 s after creation is in time
    const b = record();
    create(s, b, B);
    s.observe(ob('sandboxAdvanceClock', B, 200, { now: new Date(T0 + 3_600_000).toISOString(), offsetSeconds: 3600 }, {}, T0 + 5000));
    expect(read(s, { ...b, status: 'EXPIRED', updatedAt: new Date(T0 + 60_000).toISOString() }, B, T0 + 10_000)).toEqual([]);
  });

  it('webhooks: an event matched to its transition, an event no transition explains, a transition whose event never came', () => {
    const s = new StateTracker({ webhookWindowMs: 1000 });
    const r = record();
    create(s, r);
    const canceled = { ...r, status: 'CANCELED', updatedAt: new Date(T0 + 2000).toISOString() };
    s.observe(
      ob('cancelPartnerTransactionByVendorReference', A, 200, canceled, { vendorReference: r.vendorReference as string }, T0 + 2000),
    );
    expect(s.event('transaction.cancelled', r.id as string, 'msg_1', T0 + 2100, ++seq)).toEqual([]);
    expect(s.event('transaction.cancelled', r.id as string, 'msg_1', T0 + 2200, ++seq)).toEqual([]); // a retry
    expect(s.events.has('transaction.cancelled')).toBe(true);
    // a second event for the one transition, under a new webhook-id; an approval of a cancelled one
    expect(kinds(s.event('transaction.cancelled', r.id as string, 'msg_2', T0 + 2300, ++seq))).toEqual(['webhook-no-transition']);
    expect(kinds(s.event('transaction.approved', r.id as string, 'msg_3', T0 + 2300, ++seq))).toEqual(['webhook-no-transition']);
    // an approval event for a PENDING transaction is held; a later read showing it PENDING rules it out
    const t = record();
    create(s, t);
    expect(s.event('transaction.approved', t.id as string, 'msg_4', T0 + 3000, ++seq)).toEqual([]);
    expect(kinds(read(s, t, A, T0 + 4000))).toEqual(['webhook-no-transition']);
    // a transition seen, no event within the window
    const u = record();
    create(s, u);
    s.observe(
      ob(
        'cancelPartnerTransactionByVendorReference',
        A,
        200,
        { ...u, status: 'CANCELED', updatedAt: new Date(T0 + 5000).toISOString() },
        { vendorReference: u.vendorReference as string },
        T0 + 5000,
      ),
    );
    expect(s.sweep(T0 + 5500)).toEqual([]);
    expect(kinds(s.sweep(T0 + 7000))).toEqual(['webhook-missing']);
  });
});
