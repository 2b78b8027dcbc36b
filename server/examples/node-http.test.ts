/**
 * The example of docs/implementers.md ("Without express"), run as written: the route table and
 * the compiled validators in front of a plain `node:http` handler.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TX } from '../test-support/transaction.ts';
import { contractServer } from './node-http.ts';

const server = contractServer((id, params) =>
  id === 'getPartnerTransaction' && params.transactionId === TX.id
    ? { status: 200, body: TX }
    : id === 'getPartnerTransactionByVendorReference'
      ? { status: 200, body: { ...TX, totalAmount: 'six hundred' } }
      : { status: 404, body: { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } } },
);
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = async (path: string, init?: RequestInit) => {
  const r = await fetch(`${base}${path}`, init);
  return {
    status: r.status,
    body: (await r.json()) as { error?: { code: string; details?: Array<{ path: string }> } },
    allow: r.headers.get('allow'),
  };
};

describe('the node:http example of docs/implementers.md', () => {
  const path = `/api/v1/public/partner/transactions/${TX.id}`;
  it('answers a valid request with the handler', async () => {
    expect(await get(path)).toMatchObject({ status: 200, body: TX });
  });
  it("refuses with the contract's codes: a bad path parameter, an undeclared query parameter, a body member", async () => {
    const bad = await get('/api/v1/public/partner/transactions/nope');
    expect([bad.status, bad.body.error?.code, bad.body.error?.details?.[0]?.path]).toEqual([400, 'VALIDATION_ERROR', 'path.transactionId']);
    const query = await get(`${path}?debug=1`);
    expect([query.status, query.body.error?.details?.[0]?.path]).toEqual([400, 'query.debug']);
    const currency = await get('/api/v1/public/sessions', {
      method: 'POST',
      body: JSON.stringify({ total: 600, currency: 'EUR', items: [{ id: 'a', name: 'A', price: 600, quantity: 1 }] }),
    });
    expect([currency.status, currency.body.error?.code]).toEqual([400, 'INVALID_CURRENCY']);
  });
  it('answers 405 with Allow, 404 for an unknown path, 500 for a response that breaks the contract', async () => {
    const del = await get(path, { method: 'DELETE' });
    expect([del.status, del.body.error?.code, del.allow]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET, HEAD']);
    expect((await get('/nope')).status).toBe(404);
    const broken = await get('/api/v1/public/partner/transactions/vendor/ORDER-1');
    expect([broken.status, broken.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
  });
});

describe('docs/implementers.md', () => {
  it('shows this example as written (its import from the package)', async () => {
    const { readFileSync } = await import('node:fs');
    const example = readFileSync(new URL('./node-http.ts', import.meta.url), 'utf8');
    const code = example
      .slice(example.indexOf('import { createServer'))
      .trimEnd()
      .replace("from '../index.ts'", "from 'paylater-contract/server'");
    expect(readFileSync(new URL('../../docs/implementers.md', import.meta.url), 'utf8')).toContain(code);
  });
});
