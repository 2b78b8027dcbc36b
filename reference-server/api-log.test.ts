/**
 * ADR-056: while a merchant records, the sandbox appends each of its calls (test key in any key
 * header, or one of its session tokens) to its log: operation, status, the transaction the path
 * names, the browser headers, a simulated failure; nothing while it does not record; at most
 * the limit, later calls counted. On PostgreSQL with two instances (PAYLATER_TEST_STORE=postgres-2)
 * calls served by either land in one log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_LOG_LIMIT } from './http/api-log.ts';
import { partnerBody, server, sessionBodyV2, type Api } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

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

interface Entry {
  at: string;
  operationId: string | null;
  method: string;
  path: string;
  status: number | null;
  credential: string;
  transactionId: string | null;
  vendorReference: string | null;
  origin: string | null;
  referer: string | null;
  secFetchSite: string | null;
  simulated: string | null;
}
interface Log {
  recording: boolean;
  startedAt: string | null;
  limit: number;
  dropped: number;
  entries: Entry[];
}
const key = (k: string) => ({ 'X-API-Key': k });
const ORDER = [
  'createPartnerTransaction',
  'getPartnerTransactionByVendorReference',
  'createSession',
  'sdkGetSession',
  'getTransactionStatusBySessionToken',
  'getPartnerTransaction',
];
const readLog = async (k: string) => (await api<Log>('GET', '/api/v1/sandbox/api-log', { headers: key(k) })).body;
/** The log once `n` non-sandbox entries are in (an entry is written once its answer is sent). */
async function logWith(k: string, n: number): Promise<Entry[]> {
  for (let i = 0; i < 100; i++) {
    const e = (await readLog(k)).entries.filter((x) => !x.path.startsWith('/api/v1/sandbox/'));
    if (e.length >= n) return e;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the log never held ${n} entries`);
}

describe('the API log (ADR-056)', () => {
  it('records nothing until asked', async () => {
    await api('POST', '/api/v1/public/partner/transactions', { headers: { 'X-Service-Key': K1 }, json: partnerBody() });
    expect(await readLog(K1)).toEqual({ recording: false, startedAt: null, limit: API_LOG_LIMIT, dropped: 0, entries: [] });
  });

  it('records key and session-token calls with their operation, status, transaction and browser headers', async () => {
    const started = await api<Log>('PUT', '/api/v1/sandbox/api-log', { headers: key(K2), json: { recording: true } });
    expect(started.body).toMatchObject({ recording: true, entries: [], dropped: 0 });
    const vendorReference = `LOG-${Date.now()}`;
    const created = await api<{ id: string }>('POST', '/api/v1/public/partner/transactions', {
      headers: { 'X-Service-Key': K2 },
      json: partnerBody({ vendorReference }),
    });
    expect(created.status).toBe(201);
    await api('GET', `/api/v1/public/partner/transactions/vendor/${vendorReference}`, {
      headers: { 'X-Api-Key': K2, Origin: 'https://shop.example', Referer: 'https://shop.example/cart', 'Sec-Fetch-Site': 'cross-site' },
    });
    const sess = await api<{ session_token: string }>('POST', '/api/v1/public/sessions', { headers: key(K2), json: sessionBodyV2() });
    // the key sent to an SDK route (which takes a session token): recorded as a key call
    await api('GET', '/api/v1/public/sdk/session', { headers: { ...key(K2), 'X-Session-Token': sess.body.session_token } });
    await api('GET', `/api/v1/public/transactions/${created.body.id}/status`, { headers: { 'X-Session-Token': sess.body.session_token } });
    await api('GET', `/api/v1/public/partner/transactions/${created.body.id}`, {
      headers: { 'X-Api-Key': K2, 'Paylater-Simulate': '503' },
    });
    // another merchant's calls are not in this log
    await api('POST', '/api/v1/public/sessions', { headers: key(K1), json: sessionBodyV2() });

    // in the order the calls came, except that calls in one millisecond may be in either order
    const entries = (await logWith(K2, 6)).sort((x, y) => ORDER.indexOf(x.operationId ?? '') - ORDER.indexOf(y.operationId ?? ''));
    expect(entries.map((e) => [e.operationId, e.status, e.credential])).toEqual([
      ['createPartnerTransaction', 201, 'apiKey'],
      ['getPartnerTransactionByVendorReference', 200, 'apiKey'],
      ['createSession', 200, 'apiKey'],
      ['sdkGetSession', expect.any(Number), 'apiKey'],
      ['getTransactionStatusBySessionToken', 404, 'sessionToken'], // not this session's transaction: its 404 is recorded too
      ['getPartnerTransaction', 503, 'apiKey'],
    ]);
    expect(entries[1]).toMatchObject({
      vendorReference,
      transactionId: null,
      origin: 'https://shop.example',
      referer: 'https://shop.example/cart',
      secFetchSite: 'cross-site',
    });
    expect(entries[4]).toMatchObject({ transactionId: created.body.id, origin: null, referer: null });
    expect(entries[5]).toMatchObject({ transactionId: created.body.id, simulated: '503' });
    expect(entries[0]!.simulated).toBeNull();
    // oldest first by the time each call came
    const raw = await logWith(K2, 6);
    expect(raw.map((e) => e.at)).toEqual(raw.map((e) => e.at).sort());

    // stopped: kept, no longer appended
    const stopped = await api<Log>('PUT', '/api/v1/sandbox/api-log', { headers: key(K2), json: { recording: false } });
    expect(stopped.body.recording).toBe(false);
    await api('POST', '/api/v1/public/sessions', { headers: key(K2), json: sessionBodyV2() });
    await new Promise((r) => setTimeout(r, 100));
    expect((await readLog(K2)).entries.filter((e) => !e.path.startsWith('/api/v1/sandbox/'))).toHaveLength(6);
  });

  it('keeps at most the limit and counts the rest; starting again forgets the previous recording', async () => {
    await api('PUT', '/api/v1/sandbox/api-log', { headers: key(K1), json: { recording: true } });
    const calls = API_LOG_LIMIT + 5;
    for (let i = 0; i < calls; i += 25)
      await Promise.all(
        Array.from({ length: Math.min(25, calls - i) }, () =>
          api('GET', '/api/v1/public/partner/transactions/vendor/NONE-1', { headers: { 'X-Api-Key': K1 } }),
        ),
      );
    let log = await readLog(K1);
    for (let i = 0; i < 100 && log.entries.length + log.dropped < calls + 1; i++) {
      await new Promise((r) => setTimeout(r, 20));
      log = await readLog(K1);
    }
    // the PUT's own answer and every GET: the PUT first, then calls + 1 (this GET) minus what was dropped
    expect(log.entries).toHaveLength(API_LOG_LIMIT);
    expect(log.entries.length + log.dropped).toBeGreaterThanOrEqual(calls + 1);
    await api('PUT', '/api/v1/sandbox/api-log', { headers: key(K1), json: { recording: true } });
    log = await readLog(K1);
    expect(log.dropped).toBe(0);
    expect(log.entries.filter((e) => e.operationId === 'getPartnerTransactionByVendorReference')).toEqual([]);
  });

  it('records the path as the call came, when a router mounted under a path answers it (as the site mounts /docs)', async () => {
    const pages = await server({
      mount: (app) =>
        app.use('/pages', (_req, res) => {
          res.status(404).json({ error: { code: 'ROUTE_NOT_FOUND', message: 'no such page' } });
        }),
    });
    try {
      const k = pages.s.merchants[0]!.apiKey;
      await pages.api('PUT', '/api/v1/sandbox/api-log', { headers: key(k), json: { recording: true } });
      expect((await pages.api('GET', '/pages/guide/intro', { headers: key(k) })).status).toBe(404);
      let entries: Entry[] = [];
      for (let i = 0; i < 100 && entries.length === 0; i++) {
        if (i) await new Promise((r) => setTimeout(r, 20));
        const log = (await pages.api<Log>('GET', '/api/v1/sandbox/api-log', { headers: key(k) })).body;
        entries = log.entries.filter((e) => !e.path.startsWith('/api/v1/sandbox/'));
      }
      expect(entries.map((e) => [e.path, e.operationId, e.status])).toEqual([['/pages/guide/intro', null, 404]]);
    } finally {
      await pages.s.close();
    }
  });
});
