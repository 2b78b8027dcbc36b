/** Hostile request targets and the headers of every answer, on the whole server (API + site). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './testing.ts';
import { mountSite } from './site.ts';
import { DEMO_MERCHANTS } from './config.ts';

let dist: string;
let server: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  dist = await mkdtemp(path.join(os.tmpdir(), 'paylater-hardening-'));
  await mkdir(path.join(dist, 'docs'), { recursive: true });
  await writeFile(path.join(dist, 'docs', 'index.html'), '<!doctype html><title>PayLater docs</title>');
  server = await startTestServer({ log: (l) => logged.push(l), mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox', distDir: dist }) });
});
afterAll(async () => {
  await server.close();
  await rm(dist, { recursive: true, force: true });
});

describe('malformed percent-encoding', () => {
  it('answers 400 VALIDATION_ERROR in the declared shape on page, demo, SDK and API routes, and logs no crash', async () => {
    const targets = [
      '/checkout/%ZZ',
      '/sdk/%ZZ/paylater.js',
      '/demo/v2/orders/%ZZ/pay',
      '/api/v1/public/transactions/%ZZ',
      '/api/v1/no-such-operation/%ZZ',
      '/demo?lang=%E0%A4%A',
      '/docs/%C0%AF',
    ];
    for (const target of targets) {
      const method = target.startsWith('/demo') ? 'POST' : 'GET';
      const res = await fetch(`${server.baseUrl}${target}`, { method, headers: { 'X-API-Key': DEMO_MERCHANTS[0]!.apiKey } });
      expect(res.status, target).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code, target).toBe('VALIDATION_ERROR');
      expect(body.error.message).toMatch(/percent-encoding/);
    }
    expect(logged.filter((l) => /INTERNAL_ERROR|URIError|stack/i.test(l))).toEqual([]);
  });
});

describe('headers of every answer', () => {
  it('sends X-Content-Type-Options: nosniff on API answers, errors and pages', async () => {
    for (const target of ['/api/v1/public/transactions/x', '/nothing-here', '/docs/', '/checkout/%ZZ']) {
      const res = await fetch(`${server.baseUrl}${target}`);
      await res.arrayBuffer();
      expect(res.headers.get('x-content-type-options'), target).toBe('nosniff');
    }
  });
});
