/** The sandbox lists answer one page at a time (ADR-028): `limit` (default, maximum), `cursor`, `nextCursor`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_LIMIT } from './handlers/page.ts';
import { partnerBody, server } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];
interface SmsPage {
  data: Array<{ id: string; transactionId: string }>;
  nextCursor: string | null;
}

let s: TestServer;
let api: Api;
let key: string;
const created: string[] = [];
beforeAll(async () => {
  ({ s, api } = await server());
  key = s.merchants[0]!.apiKey;
  const total = PAGE_LIMIT.default * 2 + 7;
  for (let i = 0; i < total; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, total - i) }, (_, j) =>
        api('POST', '/api/v1/public/partner/transactions', {
          headers: { 'X-Service-Key': key },
          json: partnerBody({ vendorReference: `PAGE-${i + j}` }),
        }),
      ),
    );
    for (const r of batch) created.push((r.body as { id: string }).id);
  }
});
afterAll(() => s.close());

// @checks ADR-028
describe('the SMS outbox in pages', () => {
  it('answers the default page size, then follows nextCursor to the end, every message once, oldest first', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const r = await api('GET', `/api/v1/sandbox/sms${cursor ? `?cursor=${cursor}` : ''}`, { headers: { 'X-API-Key': key } });
      expect(r.status, r.text).toBe(200);
      const page = r.body as SmsPage;
      sizes.push(page.data.length);
      seen.push(...page.data.map((m) => m.transactionId));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(sizes).toEqual([PAGE_LIMIT.default, PAGE_LIMIT.default, 7]);
    expect(new Set(seen).size).toBe(created.length);
    expect([...seen].sort()).toEqual([...created].sort());
  });
  it('takes limit up to the maximum, and refuses more, zero and unknown cursors with 400', async () => {
    const max = await api('GET', `/api/v1/sandbox/sms?limit=${PAGE_LIMIT.maximum}`, { headers: { 'X-API-Key': key } });
    expect(max.status).toBe(200);
    expect((max.body as SmsPage).data.length).toBe(PAGE_LIMIT.maximum);
    for (const q of [`limit=${PAGE_LIMIT.maximum + 1}`, 'limit=0', 'limit=x', 'cursor=bm90LWFuLWlk']) {
      const r = await api('GET', `/api/v1/sandbox/sms?${q}`, { headers: { 'X-API-Key': key } });
      expect(r.status, q).toBe(400);
      expect((r.body as { error: { code: string; details: Array<{ path: string }> } }).error.details[0]!.path, q).toMatch(
        /^query\.(limit|cursor)$/,
      );
    }
  });
});

describe('the SMS outbox filtered by transaction', () => {
  it("answers only the transaction's message (on a page of its own), nothing for another merchant's, and refuses a malformed id", async () => {
    const target = created[PAGE_LIMIT.default + 3]!;
    const one = await api('GET', `/api/v1/sandbox/sms?transactionId=${target}&limit=1`, { headers: { 'X-API-Key': key } });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ data: [{ transactionId: target }], nextCursor: null });
    expect((one.body as SmsPage).data).toHaveLength(1);
    const other = await api('GET', `/api/v1/sandbox/sms?transactionId=${target}`, { headers: { 'X-API-Key': s.merchants[1]!.apiKey } });
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ data: [], nextCursor: null });
    // a cursor of the unfiltered list that names another transaction's message is not a cursor of this one
    const first = (await api('GET', '/api/v1/sandbox/sms?limit=1', { headers: { 'X-API-Key': key } })).body as SmsPage;
    const foreign = await api('GET', `/api/v1/sandbox/sms?transactionId=${target}&cursor=${first.nextCursor}`, {
      headers: { 'X-API-Key': key },
    });
    expect(foreign.status).toBe(400);
    const bad = await api('GET', '/api/v1/sandbox/sms?transactionId=not-a-uuid', { headers: { 'X-API-Key': key } });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { details: Array<{ path: string }> } }).error.details[0]!.path).toBe('query.transactionId');
  });
});

describe('the webhook deliveries in pages', () => {
  it('answers data and nextCursor, and refuses a limit over the maximum', async () => {
    const r = await api('GET', '/api/v1/sandbox/webhook-deliveries?limit=1', { headers: { 'X-API-Key': key } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toHaveProperty('nextCursor');
    expect((r.body as { data: unknown[] }).data.length).toBeLessThanOrEqual(1);
    const over = await api('GET', `/api/v1/sandbox/webhook-deliveries?limit=${PAGE_LIMIT.maximum + 1}`, { headers: { 'X-API-Key': key } });
    expect(over.status).toBe(400);
  });
});

describe('the webhook deliveries filtered by transaction', () => {
  it("answers only the transaction's events, however many newer ones there are, nothing for another merchant's, and refuses a malformed id", async () => {
    // the second demo merchant, so the lists of the first stay as the other tests count them
    const other = s.merchants[1]!.apiKey;
    const ids: string[] = [];
    for (const ref of ['DELIV-A', 'DELIV-B', 'DELIV-C']) {
      const c = await api('POST', '/api/v1/public/partner/transactions', {
        headers: { 'X-Service-Key': other },
        json: partnerBody({ vendorReference: ref }),
      });
      expect(c.status, c.text).toBe(201);
      const id = (c.body as { id: string }).id;
      ids.push(id);
      const cancel = await api('POST', `/api/v1/sandbox/transactions/${id}/cancel`, { headers: { 'X-API-Key': other } });
      expect(cancel.status, cancel.text).toBe(200);
    }
    type Deliveries = { data: Array<{ id: string; transactionId: string; event: string }>; nextCursor: string | null };
    const list = async (q: string, k = other) => {
      const r = await api('GET', `/api/v1/sandbox/webhook-deliveries?${q}`, { headers: { 'X-API-Key': k } });
      expect(r.status, `${q}: ${r.text}`).toBe(200);
      return r.body as Deliveries;
    };
    // newest first: the oldest transaction's event is behind the newer ones unfiltered
    expect((await list('limit=1')).data.map((d) => d.transactionId)).toEqual([ids[2]]);
    const oldest = await list(`transactionId=${ids[0]}&limit=1`);
    expect(oldest.data.map((d) => [d.transactionId, d.event])).toEqual([[ids[0], 'transaction.cancelled']]);
    expect(oldest.nextCursor).toBeNull();
    expect(await list(`transactionId=${ids[0]}`, key)).toEqual({ data: [], nextCursor: null });
    // a cursor of the unfiltered list that names another transaction's event is not a cursor of this one
    const first = await list('limit=1');
    const foreign = await api('GET', `/api/v1/sandbox/webhook-deliveries?transactionId=${ids[0]}&cursor=${first.nextCursor}`, {
      headers: { 'X-API-Key': other },
    });
    expect(foreign.status).toBe(400);
    const bad = await api('GET', '/api/v1/sandbox/webhook-deliveries?transactionId=not-a-uuid', { headers: { 'X-API-Key': other } });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { details: Array<{ path: string }> } }).error.details[0]!.path).toBe('query.transactionId');
  });
});

describe('the transactions in pages', () => {
  interface TxPage {
    data: Array<{ id: string; status: string; createdAt: string; vendorReference: string | null }>;
    nextCursor: string | null;
  }
  const list = async (q: string): Promise<TxPage> => {
    const r = await api('GET', `/api/v1/sandbox/transactions${q ? `?${q}` : ''}`, { headers: { 'X-API-Key': key } });
    expect(r.status, r.text).toBe(200);
    return r.body as TxPage;
  };
  const all = async (q: string): Promise<{ ids: string[]; sizes: number[]; rows: TxPage['data'] }> => {
    const rows: TxPage['data'] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await list([q, cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&'));
      sizes.push(page.data.length);
      rows.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return { ids: rows.map((t) => t.id), sizes, rows };
  };

  it('answers the default page size, newest first, every transaction once', async () => {
    const { ids, sizes, rows } = await all('');
    expect(sizes).toEqual([PAGE_LIMIT.default, PAGE_LIMIT.default, 7]);
    expect([...ids].sort()).toEqual([...created].sort());
    const order = rows.map((t) => [Date.parse(t.createdAt), t.id] as const);
    const sorted = [...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1));
    expect(order).toEqual(sorted);
    // a transaction created after a listing is in the next one (createdAt has whole seconds: not necessarily first)
    const late = await api('POST', '/api/v1/public/partner/transactions', {
      headers: { 'X-Service-Key': key },
      json: partnerBody({ vendorReference: 'PAGE-LATE' }),
    });
    expect(late.status, late.text).toBe(201);
    created.push((late.body as { id: string }).id);
    expect([...(await all('')).ids].sort()).toEqual([...created].sort());
  });

  it('filters before it pages: each page holds `limit` matching transactions', async () => {
    const cancelled = ['PAGE-3', 'PAGE-40', 'PAGE-77', 'PAGE-101', 'PAGE-106'];
    for (const ref of cancelled) {
      const r = await api('PUT', `/api/v1/public/partner/transactions/vendor/${ref}/cancel`, { headers: { 'X-Api-Key': key } });
      expect(r.status, r.text).toBe(200);
    }
    const { rows, sizes } = await all('status=CANCELED&limit=2');
    expect(rows.map((t) => t.vendorReference).sort()).toEqual([...cancelled].sort());
    expect(sizes.slice(0, 2)).toEqual([2, 2]);
    expect((await all('status=PENDING')).rows).toHaveLength(created.length - cancelled.length);
    const one = await list('vendorReference=PAGE-40');
    expect(one.data.map((t) => t.vendorReference)).toEqual(['PAGE-40']);
    expect(one.nextCursor).toBeNull();
    expect((await list('vendorReference=PAGE-40&status=PENDING')).data).toEqual([]);
  });

  it("refuses a limit over the maximum and a cursor that is not one of the caller's transactions", async () => {
    const other = s.merchants.find((m) => m.id !== s.merchants[0]!.id)!;
    const theirs = await api('POST', '/api/v1/public/partner/transactions', {
      headers: { 'X-Service-Key': other.apiKey },
      json: partnerBody({ vendorReference: 'PAGE-OTHER' }),
    });
    expect(theirs.status, theirs.text).toBe(201);
    const foreign = Buffer.from((theirs.body as { id: string }).id, 'utf8').toString('base64url');
    for (const q of [`limit=${PAGE_LIMIT.maximum + 1}`, `cursor=${foreign}`, 'cursor=bm90LWFuLWlk']) {
      const r = await api('GET', `/api/v1/sandbox/transactions?${q}`, { headers: { 'X-API-Key': key } });
      expect(r.status, q).toBe(400);
    }
  });
});
