/**
 * ADR-052: failures on demand. The `Paylater-Simulate` header and the sandbox fault rule answer
 * the declared failure shapes, store nothing, count rules exactly (on PostgreSQL across two
 * instances with PAYLATER_TEST_STORE=postgres-2), and production refuses the header.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, partnerBody, server, sessionBodyV1, type Api } from './test-support/helpers.ts';
import { startTestServer, type TestServer } from './testing.ts';

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

const svc = (k: string, sim?: string) => ({ 'X-Service-Key': k, ...(sim ? { 'Paylater-Simulate': sim } : {}) });
const key = (k: string, sim?: string) => ({ 'X-API-Key': k, ...(sim ? { 'Paylater-Simulate': sim } : {}) });

interface List {
  data: { id: string }[];
}
const txCount = async (k: string) =>
  (await api<List>('GET', '/api/v1/sandbox/transactions?limit=100', { headers: key(k) })).body.data.length;
interface Rule {
  rule: null | { id: string; failure: string; times: number; used: number; remaining: number; operations: string[] | null };
}

describe('Paylater-Simulate header (sandbox, test keys)', () => {
  it('500 answers INTERNAL_ERROR and stores nothing', async () => {
    const before = await txCount(K1);
    const r = await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1, '500'), json: partnerBody() });
    expect(r.status).toBe(500);
    expect(Object.keys(errorOf(r)).sort()).toEqual(['code', 'message']);
    expect(errorOf(r).code).toBe('INTERNAL_ERROR');
    expect(errorOf(r).message).toMatch(/^Simulated \(Paylater-Simulate 500\)/);
    expect(await txCount(K1)).toBe(before);
    // the same body without the header is created: nothing of the simulated call was kept
    const body = partnerBody();
    expect((await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1, '500'), json: body })).status).toBe(500);
    expect((await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: body })).status).toBe(201);
    expect(await txCount(K1)).toBe(before + 1);
  });

  it('503 answers STORAGE_UNAVAILABLE with the declared Retry-After', async () => {
    const created = await api<{ id: string }>('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody() });
    const r = await api('GET', `/api/v1/public/partner/transactions/${created.body.id}`, {
      headers: { 'X-Api-Key': K1, 'Paylater-Simulate': '503' },
    });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(errorOf(r)).toMatchObject({ code: 'STORAGE_UNAVAILABLE', retry_after: 5 });
  });

  it('429 on A1 answers RATE_LIMIT_EXCEEDED with one wait, and its window is not counted', async () => {
    const r = await api('POST', '/api/v1/public/sessions', { headers: key(K1, '429'), json: sessionBodyV1() });
    expect(r.status).toBe(429);
    expect(errorOf(r)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retry_after: 2 });
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.headers.get('ratelimit-reset')).toBe('2');
    expect(r.headers.get('ratelimit-remaining')).toBe('0');
    expect(r.headers.get('ratelimit-policy')).toBe('100;w=900');
    const real = await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() });
    expect(real.status).toBe(200);
    expect(real.headers.get('ratelimit-remaining')).toBe('99');
  });

  it('refuses a status the operation does not declare, a bad value and a repeated header with 400 VALIDATION_ERROR', async () => {
    const created = await api<{ id: string }>('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody() });
    const b2 = `/api/v1/public/partner/transactions/${created.body.id}`;
    for (const v of ['429', '404', 'timeout=0', 'timeout=31', 'timeout', '500 ']) {
      const r = await api('GET', b2, { headers: { 'X-Api-Key': K1, 'Paylater-Simulate': v } });
      if (v === '500 ') {
        expect(r.status, v).toBe(500); // header values are trimmed by HTTP
        continue;
      }
      expect(r.status, v).toBe(400);
      expect(errorOf(r).code).toBe('VALIDATION_ERROR');
      expect(errorOf(r).details?.[0]?.path).toBe('header.paylater-simulate');
    }
    const twice = await api('GET', b2, {
      headers: [
        ['X-Api-Key', K1],
        ['Paylater-Simulate', '500'],
        ['Paylater-Simulate', '503'],
      ],
    });
    expect(twice.status).toBe(400);
  });

  it('is looked at only once a test key is accepted: a wrong key gets 401', async () => {
    const r = await api('POST', '/api/v1/public/sessions', {
      headers: key('sk_test_nobody_0000000000000000', '500'),
      json: sessionBodyV1(),
    });
    expect(r.status).toBe(401);
  });

  it('timeout=1 answers nothing and closes the connection after about a second; nothing is stored', async () => {
    const before = await txCount(K2);
    const url = new URL('/api/v1/public/partner/transactions', s.baseUrl);
    const started = Date.now();
    const outcome = await new Promise<string>((resolve) => {
      const req = request(url, { method: 'POST', headers: { ...svc(K2, 'timeout=1'), 'content-type': 'application/json' } }, (res) =>
        resolve(`answered ${res.statusCode}`),
      );
      req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
      req.end(JSON.stringify(partnerBody({ totalAmount: '1299.50' })));
    });
    const took = Date.now() - started;
    // behind the two-instance test proxy (PAYLATER_TEST_STORE=postgres-2) the reset reaches the client as the proxy's 502
    expect(outcome).toBe(process.env.PAYLATER_TEST_STORE === 'postgres-2' ? 'answered 502' : 'error ECONNRESET');
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(5000);
    expect(await txCount(K2)).toBe(before);
  });
});

describe('PUT /api/v1/sandbox/faults (the fault rule)', () => {
  it('answers the next `times` matching calls with the failure, counts them, then lets calls run', async () => {
    const set = await api<Rule>('PUT', '/api/v1/sandbox/faults', {
      headers: key(K1),
      json: { rule: { failure: '503', operations: ['createPartnerTransaction'], times: 2 } },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.rule).toMatchObject({ failure: '503', times: 2, used: 0, remaining: 2, operations: ['createPartnerTransaction'] });
    const before = await txCount(K1);
    // another operation, and another merchant, are untouched
    expect((await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() })).status).toBe(200);
    expect((await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K2), json: partnerBody() })).status).toBe(201);
    // a header wins and is not counted
    expect((await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1, '500'), json: partnerBody() })).status).toBe(500);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody() })).status);
    expect(statuses).toEqual([503, 503, 201]);
    expect(await txCount(K1)).toBe(before + 1);
    const got = await api<Rule>('GET', '/api/v1/sandbox/faults', { headers: key(K1) });
    expect(got.body.rule).toMatchObject({ id: set.body.rule!.id, used: 2, remaining: 0 });
    expect((await api<Rule>('GET', '/api/v1/sandbox/faults', { headers: key(K2) })).body).toEqual({ rule: null });
  });

  it('counts exactly under concurrent calls (the store counts, once across instances)', async () => {
    await api('PUT', '/api/v1/sandbox/faults', { headers: key(K2), json: { rule: { failure: '500', times: 5 } } });
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () =>
        api('POST', '/api/v1/public/partner/transactions', { headers: svc(K2), json: partnerBody() }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((x) => x === 500)).toHaveLength(5);
    expect(statuses.filter((x) => x === 201)).toHaveLength(7);
    expect((await api<Rule>('GET', '/api/v1/sandbox/faults', { headers: key(K2) })).body.rule).toMatchObject({ used: 5, remaining: 0 });
  });

  it('a new rule counts from 0 and `rule: null` removes it', async () => {
    const a = await api<Rule>('PUT', '/api/v1/sandbox/faults', {
      headers: key(K1),
      json: { rule: { failure: '429', retryAfterSeconds: 3, times: 1 } },
    });
    expect(a.body.rule).toMatchObject({ failure: '429', used: 0, remaining: 1, operations: null });
    const r = await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() });
    expect(r.status).toBe(429);
    expect(errorOf(r)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retry_after: 3 });
    // 429 is declared by A1 only: B1 runs
    expect((await api('POST', '/api/v1/public/partner/transactions', { headers: svc(K1), json: partnerBody() })).status).toBe(201);
    const b = await api<Rule>('PUT', '/api/v1/sandbox/faults', { headers: key(K1), json: { rule: { failure: '429', times: 1 } } });
    expect(b.body.rule!.id).not.toBe(a.body.rule!.id);
    expect(b.body.rule).toMatchObject({ used: 0, remaining: 1 });
    const off = await api<Rule>('PUT', '/api/v1/sandbox/faults', { headers: key(K1), json: { rule: null } });
    expect(off.body).toEqual({ rule: null });
    expect((await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV1() })).status).toBe(200);
  });

  it('refuses rules the operations cannot answer', async () => {
    const bad = [
      [K2, { failure: '500', operations: ['verifyTransaction'], times: 1 }, 'body.rule.operations.0'], // no A3 in Variant 2
      [K1, { failure: '429', operations: ['getPartnerTransaction'], times: 1 }, 'body.rule.operations.0'],
      [K1, { failure: 'timeout', times: 1 }, 'body.rule.timeoutSeconds'],
      [K1, { failure: '500', timeoutSeconds: 3, times: 1 }, 'body.rule.timeoutSeconds'],
      [K1, { failure: '503', retryAfterSeconds: 3, times: 1 }, 'body.rule.retryAfterSeconds'],
    ] as const;
    for (const [k, rule, path] of bad) {
      const r = await api('PUT', '/api/v1/sandbox/faults', { headers: key(k), json: { rule } });
      expect(r.status, JSON.stringify(rule)).toBe(400);
      expect(errorOf(r).details?.[0]?.path, JSON.stringify(rule)).toBe(path);
    }
    const schema = await api('PUT', '/api/v1/sandbox/faults', { headers: key(K1), json: { rule: { failure: '418', times: 1 } } });
    expect(schema.status).toBe(400);
    expect((await api<Rule>('GET', '/api/v1/sandbox/faults', { headers: key(K1) })).body).toEqual({ rule: null });
  });
});

describe('stored with the merchant state', () => {
  it('the rule and its count survive a restart on a data file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paylater-simulate-'));
    try {
      const dataFile = join(dir, 'data.json');
      const first = await startTestServer({ dataFile, webhookDispatcherFactory: null });
      const k = first.merchants[0]!.apiKey;
      const put = await fetch(`${first.baseUrl}/api/v1/sandbox/faults`, {
        method: 'PUT',
        headers: { 'X-API-Key': k, 'content-type': 'application/json' },
        body: JSON.stringify({ rule: { failure: '500', operations: ['createSession'], times: 2 } }),
      });
      expect(put.status).toBe(200);
      const a1 = (base: string) =>
        fetch(`${base}/api/v1/public/sessions`, {
          method: 'POST',
          headers: { 'X-API-Key': k, 'content-type': 'application/json' },
          body: JSON.stringify(sessionBodyV1()),
        }).then((r) => r.status);
      expect(await a1(first.baseUrl)).toBe(500);
      await first.close();
      const second = await startTestServer({ dataFile, webhookDispatcherFactory: null });
      try {
        const got = (await (await fetch(`${second.baseUrl}/api/v1/sandbox/faults`, { headers: { 'X-API-Key': k } })).json()) as Rule;
        expect(got.rule).toMatchObject({ failure: '500', times: 2, used: 1, remaining: 1 });
        expect([await a1(second.baseUrl), await a1(second.baseUrl)]).toEqual([500, 200]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('production', () => {
  let p: TestServer;
  const live = 'sk_live_simulate_0123456789abcdef';
  beforeAll(async () => {
    p = await startTestServer({
      mode: 'production',
      merchants: [{ name: 'Live', storeName: 'Live', apiKey: live, variant: 1 }],
      webhookDispatcherFactory: null,
    });
  });
  afterAll(() => p.close());

  it('refuses the header with a clear 400 and does not serve the fault rule', async () => {
    const r = await fetch(`${p.baseUrl}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'X-Service-Key': live, 'Paylater-Simulate': '500', 'content-type': 'application/json' },
      body: JSON.stringify(partnerBody()),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.message).toMatch(/sandbox feature.*production does not accept it/);
    const faults = await fetch(`${p.baseUrl}/api/v1/sandbox/faults`, { headers: { 'X-API-Key': live } });
    expect(faults.status).toBe(404);
    // without the header the call runs
    const ok = await fetch(`${p.baseUrl}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'X-Service-Key': live, 'content-type': 'application/json' },
      body: JSON.stringify(partnerBody()),
    });
    expect(ok.status).toBe(201);
  });
});
