/** ADR-041: the sandbox reset puts the clock back, forgets the rate-limit windows and, on request, deletes the caller's data only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, partnerBody, server, sessionBodyV1, sessionBodyV2, T0 } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];
let s: TestServer;
let api: Api;
let K1: string;
let K2: string;
beforeAll(async () => {
  ({ s, api } = await server());
  K1 = s.merchants[0]!.apiKey;
  K2 = s.merchants[1]!.apiKey;
});
afterAll(() => s.close());

const key = (k: string) => ({ 'X-API-Key': k });

interface Token {
  token?: string;
  session_token?: string;
}
interface Clock {
  now: string;
  offsetSeconds: number;
  offsetMilliseconds: number;
}
interface Reset extends Clock {
  deleted: { transactions: number; sessions: number; sms: number; deliveries: number };
}
interface List {
  data: unknown[];
}

async function fill(k: string, session: () => Record<string, unknown>) {
  expect((await api('POST', '/api/v1/public/partner/transactions', { headers: { 'X-Service-Key': k }, json: partnerBody() })).status).toBe(
    201,
  );
  const sess = await api<Token>('POST', '/api/v1/public/sessions', { headers: key(k), json: session() });
  expect(sess.status).toBe(200);
  const token = (sess.body.token ?? sess.body.session_token)!;
  expect(
    (await api('POST', '/api/v1/sandbox/sessions/pay', { headers: key(k), json: { session_token: token, outcome: 'success' } })).status,
  ).toBe(200);
}

describe('POST /api/v1/sandbox/reset', () => {
  it('puts the clock back to real time and clears the A1 window, keeping the data', async () => {
    await fill(K1, sessionBodyV1);
    await fill(K2, sessionBodyV2);
    expect(
      (await api<Clock>('POST', '/api/v1/sandbox/clock/advance', { headers: key(K1), json: { seconds: 38_880 } })).body.offsetSeconds,
    ).toBe(38_880);
    for (let i = 0; i < 100; i++) await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() });
    expect((await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() })).status).toBe(429);

    const r = await api<Reset>('POST', '/api/v1/sandbox/reset', { headers: key(K1), json: {} });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      now: new Date(T0).toISOString(),
      offsetSeconds: 0,
      offsetMilliseconds: 0,
      deleted: { transactions: 0, sessions: 0, sms: 0, deliveries: 0 },
    });
    expect((await api<Clock>('GET', '/api/v1/sandbox/clock', { headers: key(K1) })).body).toEqual({
      now: new Date(T0).toISOString(),
      offsetSeconds: 0,
      offsetMilliseconds: 0,
    });
    const after = await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() });
    expect(after.status).toBe(200);
    expect(after.headers.get('ratelimit-remaining')).toBe('99');
    expect((await api<List>('GET', '/api/v1/sandbox/sms', { headers: key(K1) })).body.data.length).toBeGreaterThan(0);
  });

  it("with deleteData, deletes the caller's transactions, sessions, SMS and deliveries, and nothing of another merchant", async () => {
    const before2 = {
      sms: (await api<List>('GET', '/api/v1/sandbox/sms', { headers: key(K2) })).body.data.length,
      deliveries: (await api<List>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: key(K2) })).body.data.length,
    };
    const txOf = (id: string) => s.handle.core.repo.count('transactions', id);
    const m1 = s.handle.core.config.merchants[0]!.id;
    const m2 = s.handle.core.config.merchants[1]!.id;
    const tx1 = await txOf(m1);
    const tx2 = await txOf(m2);
    expect(tx1).toBeGreaterThan(0);
    const r = await api<Reset>('POST', '/api/v1/sandbox/reset', { headers: key(K1), json: { deleteData: true } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.deleted.transactions).toBe(tx1);
    expect(r.body.deleted.sessions).toBeGreaterThan(0);
    expect(r.body.deleted.sms).toBeGreaterThan(0);
    expect(r.body.deleted.deliveries).toBeGreaterThan(0);
    expect(await txOf(m1)).toBe(0);
    expect((await api<List>('GET', '/api/v1/sandbox/sms', { headers: key(K1) })).body.data).toEqual([]);
    expect((await api<List>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: key(K1) })).body.data).toEqual([]);
    expect(await txOf(m2)).toBe(tx2);
    expect((await api<List>('GET', '/api/v1/sandbox/sms', { headers: key(K2) })).body.data.length).toBe(before2.sms);
    expect((await api<List>('GET', '/api/v1/sandbox/webhook-deliveries', { headers: key(K2) })).body.data.length).toBe(before2.deliveries);
  });

  it('takes a test key and a declared body only', async () => {
    expect((await api('POST', '/api/v1/sandbox/reset', { json: {} })).status).toBe(401);
    const bad = await api('POST', '/api/v1/sandbox/reset', { headers: key(K1), json: { deleteData: 'yes' } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('VALIDATION_ERROR');
  });
});
