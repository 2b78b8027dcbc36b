/** Failed authentications per client address (ADR-027): 429 AUTH_THROTTLED past the spec's limit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthThrottle, specAuthFailureLimit } from './http/auth-throttle.ts';
import { openSqliteRepository } from './store/sqlite/sqlite-repository.ts';
import { partnerBody, server } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';
import type { ManualClock } from './domain/clock.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

let s: TestServer;
let clock: ManualClock;
let api: Api;
beforeAll(async () => {
  ({ s, clock, api } = await server({ throttleFailedAuth: true }));
});
afterAll(() => s.close());

// @checks ADR-027
describe('failed-authentication throttle', () => {
  it('answers 429 AUTH_THROTTLED with Retry-After past the limit, to any credential, until the window ends', async () => {
    const { limit, windowSeconds } = specAuthFailureLimit;
    const good = s.merchants[0]!.apiKey;
    for (let i = 0; i < limit; i++) {
      const headers: Record<string, string> =
        i % 2 === 0 ? { 'X-API-Key': `sk_test_guess_${i}` } : { 'X-Session-Token': `st_test_guess_${i}` };
      const path = i % 2 === 0 ? '/api/v1/sandbox/clock' : '/api/v1/public/sdk/session';
      const r = await api('GET', path, { headers });
      expect(r.status, `attempt ${i}`).toBe(401);
    }
    const blocked = await api('GET', '/api/v1/sandbox/clock', { headers: { 'X-API-Key': 'sk_test_guess_last' } });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe(String(windowSeconds));
    expect(blocked.body).toEqual({
      error: {
        code: 'AUTH_THROTTLED',
        message: `Too many failed authentications from this address, retry after ${windowSeconds} seconds`,
        retry_after: windowSeconds,
      },
    });
    // A right key is not confirmed while blocked, on any operation (A1's 429 declares both codes).
    const right = await api('GET', '/api/v1/sandbox/clock', { headers: { 'X-API-Key': good } });
    expect(right.status).toBe(429);
    const a1 = await api('POST', '/api/v1/public/sessions', {
      headers: { 'X-API-Key': good },
      json: { total: 1299.5, currency: 'MAD', items: [{ id: 'A', name: 'A', price: 1299.5, quantity: 1 }] },
    });
    expect(a1.status, a1.text).toBe(429);
    expect((a1.body as { error: { code: string } }).error.code).toBe('AUTH_THROTTLED');
    const b1 = await api('POST', '/api/v1/public/partner/transactions', { headers: { 'X-Service-Key': good }, json: partnerBody() });
    expect(b1.status, b1.text).toBe(429);

    clock.advance(10_000);
    const later = await api('GET', '/api/v1/sandbox/clock', { headers: { 'X-API-Key': good } });
    expect(later.headers.get('retry-after')).toBe(String(windowSeconds - 10));
    clock.advance((windowSeconds - 10) * 1000);
    const after = await api('GET', '/api/v1/sandbox/clock', { headers: { 'X-API-Key': good } });
    expect(after.status, after.text).toBe(200);
  });
});

describe('failed-authentication throttle on a shared repository', () => {
  it('blocks an address on every throttle sharing the counter, wherever its failures were made', async () => {
    const repo = await openSqliteRepository();
    const limit = { limit: 3, windowSeconds: 60 };
    let t = 1_000_000;
    const [a, b] = [createAuthThrottle(repo, limit, () => t), createAuthThrottle(repo, limit, () => t)];
    await a.fail('10.0.0.1');
    await a.fail('10.0.0.1');
    await b.check('10.0.0.1'); // 2 of 3: not blocked
    await a.fail('10.0.0.1');
    // b never saw a failure of this address itself.
    await expect(b.check('10.0.0.1')).rejects.toMatchObject({ code: 'AUTH_THROTTLED', status: 429 });
    await b.check('10.0.0.2');
    t += 60_000;
    await b.check('10.0.0.1');
    await repo.close();
  });
});
