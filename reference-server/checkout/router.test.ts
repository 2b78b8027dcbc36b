import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, packageVersion, SDK_DIST_DIR } from '../../scripts/build.ts';
import { createCheckoutRouter } from './router.ts';
import { STRICT_CSP } from './html.ts';

async function serve(router: express.Router): Promise<{ base: string; close(): Promise<void> }> {
  const app = express();
  app.use(router);
  const server = await new Promise<import('node:http').Server>((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

let built: { base: string; close(): Promise<void> };
let empty: { base: string; close(): Promise<void> };
let version: string;

beforeAll(async () => {
  await build();
  version = await packageVersion();
  built = await serve(createCheckoutRouter());
  empty = await serve(createCheckoutRouter({ distDir: await mkdtemp(path.join(tmpdir(), 'paylater-dist-')) }));
});
afterAll(async () => {
  await built?.close();
  await empty?.close();
});

describe('SDK serving', () => {
  it('serves the same bundle at /sdk/latest and /sdk/v<version>, as JavaScript, with cache headers', async () => {
    const latest = await fetch(`${built.base}/sdk/latest/paylater.js`);
    const pinned = await fetch(`${built.base}/sdk/v${version}/paylater.js`);
    expect(latest.status).toBe(200);
    expect(pinned.status).toBe(200);
    expect(latest.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(latest.headers.get('cache-control')).toBe('public, max-age=300');
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const text = await latest.text();
    expect(await pinned.text()).toBe(text);
    expect(text).toBe(await readFile(path.join(SDK_DIST_DIR, 'paylater.js'), 'utf8'));
    expect(text).toMatch(/^\/\* PayLater browser SDK v\d+\.\d+\.\d+ \*\/\n"use strict";var Service=\(\(\)=>/);
    // No eval-like constructs in the bundle (it must run under a CSP without 'unsafe-eval').
    expect(text).not.toMatch(/\beval\(|new Function\(/);
  });
  it('answers a clear JSON 404 for an unknown version and when the bundle is not built', async () => {
    const unknown = await fetch(`${built.base}/sdk/v9.9.9/paylater.js`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: 'ROUTE_NOT_FOUND', message: 'SDK version v9.9.9 is not available on this server' },
    });
    const bad = await fetch(`${built.base}/sdk/..%2F..%2Fpackage.json/paylater.js`);
    expect(bad.status).toBe(404);
    for (const p of ['/sdk/latest/paylater.js', `/sdk/v${version}/paylater.js`]) {
      const res = await fetch(empty.base + p);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { code: 'ROUTE_NOT_FOUND', message: 'The SDK is not built: run `npm run build`.' } });
    }
  });
});

describe('hosted page and demo', () => {
  it('serves the hosted page shell with the strict CSP and no inline script or style', async () => {
    const res = await fetch(`${built.base}/checkout/0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(STRICT_CSP);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    expect(html).toContain('data-payment-intent-id="0b6a1b7e-52a4-4d2e-9d7f-1c0f5b2d8e61"');
    expect(STRICT_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
  it('answers 404 for a checkout id that is not a UUID, and for /demo when the demo is off', async () => {
    expect((await fetch(`${built.base}/checkout/%3Cscript%3E`)).status).toBe(404);
    const demo = await fetch(`${built.base}/demo/v2`);
    expect(demo.status).toBe(404);
    expect(((await demo.json()) as { error: { code: string } }).error.code).toBe('ROUTE_NOT_FOUND');
  });
});
