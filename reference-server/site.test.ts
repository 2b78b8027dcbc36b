/** `paylater serve` serves the SDK, the hosted checkout page, the demo shop and the docs beside the API. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './testing.ts';
import { demoMerchantsOf, mountSite } from './site.ts';
import { DEMO_MERCHANTS } from './config.ts';

let dist: string;
let server: TestServer;
let bare: TestServer;

beforeAll(async () => {
  dist = await mkdtemp(path.join(os.tmpdir(), 'paylater-site-'));
  await mkdir(path.join(dist, 'docs'), { recursive: true });
  await mkdir(path.join(dist, 'sdk'), { recursive: true });
  await writeFile(path.join(dist, 'docs', 'index.html'), '<!doctype html><title>PayLater docs</title>');
  await writeFile(path.join(dist, 'sdk', 'paylater.js'), 'window.Service={};');
  server = await startTestServer({ mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox', distDir: dist }) });
  bare = await startTestServer({
    mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox', distDir: path.join(dist, 'missing') }),
  });
});
afterAll(async () => {
  await Promise.all([server.close(), bare.close()]);
  await rm(dist, { recursive: true, force: true });
});

describe('the site beside the API', () => {
  it('serves the docs at /docs/ (and redirects /docs)', async () => {
    const res = await fetch(`${server.baseUrl}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('PayLater docs');
    const redirect = await fetch(`${server.baseUrl}/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/docs/');
  });
  it('says clearly when the docs are not built', async () => {
    const res = await fetch(`${bare.baseUrl}/docs/`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/npm run docs/);
  });
  it('serves the SDK and the demo shop', async () => {
    const sdk = await fetch(`${server.baseUrl}/sdk/latest/paylater.js`);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toContain('window.Service');
    const demo = await fetch(`${server.baseUrl}/demo`);
    expect(demo.status).toBe(200);
    expect(demo.headers.get('content-type')).toMatch(/text\/html/);
  });
  it('answers a page route called with another method 405 with Allow, in the API error shape, as the API does', async () => {
    const cases: Array<[string, string, string]> = [
      ['POST', '/checkout/3fa85f64-5717-4562-b3fc-2c963f66afa6', 'GET, HEAD'],
      ['DELETE', '/checkout/assets/checkout.css', 'GET, HEAD'],
      ['PUT', '/sdk/latest/paylater.js', 'GET, HEAD'],
      ['POST', '/sdk/v1.0.0/paylater.js', 'GET, HEAD'],
      ['POST', '/demo', 'GET, HEAD'],
      ['DELETE', '/demo/v2', 'GET, HEAD'],
      ['GET', '/demo/v2/checkout', 'POST'],
      ['POST', '/demo/v1/orders/x/pay', 'GET, HEAD'],
      ['PATCH', '/dashboard', 'GET, HEAD'],
      ['POST', '/dashboard/assets/dashboard.js', 'GET, HEAD'],
      ['POST', '/', 'GET, HEAD'],
      ['POST', '/docs', 'GET, HEAD'],
      ['DELETE', '/docs/', 'GET, HEAD'],
      ['PUT', '/docs/index.html', 'GET, HEAD'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await fetch(`${server.baseUrl}${url}`, { method });
      expect([method, url, res.status, res.headers.get('allow')]).toEqual([method, url, 405, allow]);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(body.error.message).toBe(`${method} is not allowed on ${url}; use ${allow}`);
    }
    // The API's own answer, for comparison: the same shape and header.
    const api = await fetch(`${server.baseUrl}/api/v1/public/partner/transactions`, { method: 'DELETE' });
    expect(api.status).toBe(405);
    expect(api.headers.get('allow')).toBe('POST');
  });
  it('still answers 404 for a path no page route serves, whatever the method, and HEAD like GET', async () => {
    for (const [method, url] of [
      ['POST', '/docs/no-such-page.html'],
      ['POST', '/checkout'],
      ['DELETE', '/dashboard/nothing'],
      ['PUT', '/sdk/latest/other.js'],
    ] as const) {
      const res = await fetch(`${server.baseUrl}${url}`, { method });
      expect([method, url, res.status]).toEqual([method, url, 404]);
    }
    for (const url of ['/dashboard', '/checkout/3fa85f64-5717-4562-b3fc-2c963f66afa6', '/', '/docs/']) {
      const res = await fetch(`${server.baseUrl}${url}`, { method: 'HEAD' });
      expect([url, res.status]).toEqual([url, 200]);
    }
  });
  it('keeps the JSON 404 for anything else', async () => {
    const res = await fetch(`${server.baseUrl}/nothing-here`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });
  it('uses the first active test merchant of each variant for the demo, and none in production', () => {
    expect(demoMerchantsOf(DEMO_MERCHANTS, 'sandbox')).toEqual({
      v1: { apiKey: DEMO_MERCHANTS[0]!.apiKey },
      v2: { apiKey: DEMO_MERCHANTS[1]!.apiKey },
    });
    expect(demoMerchantsOf(DEMO_MERCHANTS, 'production')).toBeNull();
    expect(demoMerchantsOf([{ ...DEMO_MERCHANTS[0]!, active: false }], 'sandbox')).toBeNull();
  });
});
