/** The browser SDK calls the `x-internal` operations from the merchant's page (another origin). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './testing.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('CORS for the SDK operations', () => {
  it('answers the preflight of an x-internal operation', async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/public/sdk/payment-intents`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://shop.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-session-token',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-session-token');
  });
  it('marks the actual answer, errors included, as readable cross-origin', async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/public/sdk/session`, {
      headers: { Origin: 'https://shop.example', 'X-Session-Token': 'st_test_unknown' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_SESSION_TOKEN');
  });
  it('does not open the merchant API (API keys are backend-only)', async () => {
    const pre = await fetch(`${server.baseUrl}/api/v1/public/sessions`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    const res = await fetch(`${server.baseUrl}/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10`, {
      headers: { Origin: 'https://shop.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
