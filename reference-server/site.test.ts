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
