/** ADR-040: the landing page at `/`, the liveness and readiness probes (declared operations without a key). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_MERCHANTS } from './config.ts';
import { mountSite } from './site.ts';
import { startTestServer, type TestServer } from './testing.ts';

let server: TestServer;
let production: TestServer;
beforeAll(async () => {
  server = await startTestServer({ mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox' }) });
  production = await startTestServer({
    mode: 'production',
    merchants: [{ name: 'Live', storeName: 'Live shop', apiKey: 'sk_live_landing_page_test_0001', variant: 1 }],
    mount: (app) => mountSite(app, { merchants: [], mode: 'production' }),
  });
});
afterAll(async () => {
  await Promise.all([server.close(), production.close()]);
});

describe('GET /: the landing page', () => {
  it('is HTML under the strict CSP, linking the docs, the demo shop, the dashboard and the probes', async () => {
    const res = await fetch(`${server.baseUrl}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    for (const href of ['/docs/', '/demo', '/dashboard', '/healthz', '/readyz']) expect(html).toContain(`href="${href}"`);
    expect(html).not.toMatch(/<script|style=/);
  });
  it('in production, links neither the demo shop nor the dashboard (they take test keys)', async () => {
    const html = await (await fetch(`${production.baseUrl}/`)).text();
    expect(html).toContain('href="/docs/"');
    expect(html).not.toContain('href="/demo"');
    expect(html).not.toContain('href="/dashboard"');
  });
});

describe('GET /healthz and GET /readyz', () => {
  it('answer 200 without a key, in both modes, with no rate-limit headers', async () => {
    for (const s of [server, production]) {
      const h = await fetch(`${s.baseUrl}/healthz`);
      expect(h.status).toBe(200);
      expect(await h.json()).toEqual({ status: 'ok' });
      expect(h.headers.get('ratelimit-limit')).toBeNull();
      const r = await fetch(`${s.baseUrl}/readyz`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ status: 'ready' });
    }
  });
  it('are validated like every operation: an undeclared query parameter is a 400 (ADR-022)', async () => {
    const r = await fetch(`${server.baseUrl}/healthz?verbose=1`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
  });
  it('readiness answers 503 NOT_READY once the store failed, while liveness stays 200', async () => {
    const s = await startTestServer();
    // As a failed write leaves the store (ADR-026): refusing writes for a while.
    const refusing = vi.spyOn(s.handle.core.repo, 'unavailableFor').mockReturnValue(5);
    try {
      const r = await fetch(`${s.baseUrl}/readyz`);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ error: { code: 'NOT_READY', message: 'The store is not reachable' } });
      expect((await fetch(`${s.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      refusing.mockRestore();
      await s.close();
    }
  });
});
