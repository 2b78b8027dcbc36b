/** ADR-043: the sandbox's magic customer phones and totals, through the state machine, sandbox only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, partnerBody, server, item, type S1 } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];
let s: TestServer;
let api: Api;
let K: string;
let clock: Awaited<ReturnType<typeof server>>['clock'];
beforeAll(async () => {
  ({ s, api, clock } = await server({ sweepIntervalMs: 3_600_000 }));
  K = s.merchants[0]!.apiKey;
});
afterAll(() => s.close());

const svc = () => ({ 'X-Service-Key': K });
const key = () => ({ 'X-API-Key': K });
const create = (over: Record<string, unknown>) =>
  api<S1['PartnerTransaction']>('POST', '/api/v1/public/partner/transactions', { headers: svc(), json: partnerBody(over) });
const read = async (id: string) =>
  (await api<S1['PartnerTransaction']>('GET', `/api/v1/public/partner/transactions/${id}`, { headers: key() })).body;
const events = async (id: string) =>
  (
    await api<{ data: Array<{ transactionId: string; event: string }> }>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: key() })
  ).body.data
    .filter((d) => d.transactionId === id)
    .map((d) => d.event);

describe('magic customer phones', () => {
  it('212600000101: confirmed by the customer 60 s of sandbox time after creation (on read), with its event', async () => {
    const r = await create({ customerPhone: '212600000101' });
    expect(r.status).toBe(201);
    expect(r.body.status).toBe('PENDING');
    clock.advance(59_000);
    expect((await read(r.body.id)).status).toBe('PENDING');
    clock.advance(1_000);
    const tx = await read(r.body.id);
    expect(tx.status).toBe('APPROVED');
    expect(Date.parse(tx.updatedAt!) - Date.parse(r.body.createdAt)).toBe(60_000);
    expect(await events(r.body.id)).toEqual(['transaction.approved']);
  });
  it('212600000102: cancelled by the customer, applied by a clock advance', async () => {
    const r = await create({ customerPhone: '212600000102' });
    expect((await api('POST', '/api/v1/sandbox/clock/advance', { headers: key(), json: { seconds: 3600 } })).status).toBe(200);
    expect((await s.handle.core.repo.get('transactions', r.body.id))!.status).toBe('CANCELED');
    expect((await read(r.body.id)).status).toBe('CANCELED');
    expect(await events(r.body.id)).toEqual(['transaction.cancelled']);
  });
  it('212600000103: left to expire at the end of the payment window', async () => {
    const r = await create({ customerPhone: '212600000103' });
    clock.advance(60_000);
    expect((await read(r.body.id)).status).toBe('PENDING');
    clock.advance(1800_000);
    expect((await read(r.body.id)).status).toBe('EXPIRED');
    expect(await events(r.body.id)).toEqual(['transaction.expired']);
  });
  it('an action the state machine no longer allows does nothing (cancelled by the merchant first)', async () => {
    const r = await create({ customerPhone: '212600000101', vendorReference: 'SCENARIO-CANCEL-FIRST' });
    expect((await api('PUT', '/api/v1/public/partner/transactions/vendor/SCENARIO-CANCEL-FIRST/cancel', { headers: key() })).status).toBe(
      200,
    );
    clock.advance(120_000);
    expect((await read(r.body.id)).status).toBe('CANCELED');
    expect(await events(r.body.id)).toEqual(['transaction.cancelled']); // the merchant's cancel only, no approval
  });
});

describe('magic totals', () => {
  it.each([
    [501.01, 'MERCHANT_INACTIVE', 'Merchant account is not active'],
    [501.02, 'CREDIT_LIMIT_EXCEEDED', 'Credit limit exceeded: open transactions 0.00 + 501.02 > limit 0.00 MAD'],
    [15000.01, 'AMOUNT_OUT_OF_RANGE', 'total must be between 500.00 and 15000.00 MAD'],
  ])('%s → 422 %s, nothing created', async (total, code, message) => {
    const before = await s.handle.core.repo.count('transactions');
    const r = await create({ total, items: [item(total)] });
    expect(r.status).toBe(422);
    expect(errorOf(r)).toEqual({ code, message });
    expect(await s.handle.core.repo.count('transactions')).toBe(before);
  });
});

describe('production', () => {
  it('treats the magic values as ordinary', async () => {
    const {
      s: p,
      api: papi,
      clock: pclock,
    } = await server({
      mode: 'production',
      merchants: [{ name: 'Live', storeName: 'Live', apiKey: 'sk_live_scenarios_0001', variant: 1 }],
    });
    try {
      const h = { 'X-Service-Key': 'sk_live_scenarios_0001' };
      expect(
        (
          await papi('POST', '/api/v1/public/partner/transactions', {
            headers: h,
            json: partnerBody({ total: 501.01, items: [item(501.01)] }),
          })
        ).status,
      ).toBe(201);
      const r = await papi<S1['PartnerTransaction']>('POST', '/api/v1/public/partner/transactions', {
        headers: h,
        json: partnerBody({ customerPhone: '212600000101' }),
      });
      pclock.advance(120_000);
      expect(
        (
          await papi<S1['PartnerTransaction']>('GET', `/api/v1/public/partner/transactions/${r.body.id}`, {
            headers: { 'X-Api-Key': 'sk_live_scenarios_0001' },
          })
        ).body.status,
      ).toBe('PENDING');
    } finally {
      await p.close();
    }
  });
});
