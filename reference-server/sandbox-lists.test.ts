/** The sandbox lists answer one page at a time (ADR-028): `limit` (default, maximum), `cursor`, `nextCursor`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_LIMIT } from './handlers/page.ts';
import { partnerBody, server } from './test-helpers.ts';
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
