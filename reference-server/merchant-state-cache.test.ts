/**
 * The merchant state a request reads (core.ts `refreshMerchant`): on the embedded store, the only
 * writer of its database, it is read again only after a change of it was told; a change written
 * through the repository (not through this core) is still seen by the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantStateRecord } from './domain/types.ts';
import { call, partnerBody } from './test-support/helpers.ts';
import { startTestServer, type TestServer } from './testing.ts';

let s: TestServer;
let reads = 0;
let txId = '';

beforeAll(async () => {
  s = await startTestServer({ webhookDispatcherFactory: null });
  const repo = s.handle.core.repo;
  const get = repo.get.bind(repo);
  repo.get = (c, k) => {
    if (c === 'merchantState') reads++;
    return get(c, k);
  };
  const created = await call<{ id: string }>(s.baseUrl, 'POST', '/api/v1/public/partner/transactions', {
    headers: { 'X-Service-Key': s.merchants[0]!.apiKey },
    json: partnerBody(),
  });
  expect(created.status).toBe(201);
  txId = created.body.id;
});
afterAll(() => s.close());

const b2 = () =>
  call(s.baseUrl, 'GET', `/api/v1/public/partner/transactions/${txId}`, { headers: { 'X-Api-Key': s.merchants[0]!.apiKey } });

describe('merchant state on the embedded store', () => {
  it('is not read again by requests while nothing changed it', async () => {
    await b2(); // a first read may follow the create's notices
    const before = reads;
    for (let i = 0; i < 5; i++) expect((await b2()).status).toBe(200);
    expect(reads - before).toBe(0);
  });

  it('a change written through the repository, not this core, is seen by the next request', async () => {
    const id = s.merchants[0]!.id;
    const repo = s.handle.core.repo;
    const next = await repo.transaction(async (tx) => {
      const st = (await tx.lock('merchantState', id)) ?? { id, clockOffsetMs: 0, endpointEnabled: true };
      const v: MerchantStateRecord = { ...st, clockOffsetMs: 7200 };
      tx.write([{ c: 'merchantState', k: id, v }]);
      return v;
    });
    const before = reads;
    expect((await b2()).status).toBe(200);
    expect(s.handle.core.merchantState(id)).toEqual(next);
    expect(reads - before).toBeLessThanOrEqual(1);
  });
});
