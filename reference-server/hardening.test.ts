/** Hostile request targets and the headers of every answer, on the whole server (API + site). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './testing.ts';
import { mountSite } from './site.ts';
import { DEMO_MERCHANTS } from './config.ts';
import { partnerBody } from './test-support/helpers.ts';

let dist: string;
let server: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  dist = await mkdtemp(path.join(os.tmpdir(), 'paylater-hardening-'));
  await mkdir(path.join(dist, 'docs'), { recursive: true });
  await writeFile(path.join(dist, 'docs', 'index.html'), '<!doctype html><title>PayLater docs</title>');
  server = await startTestServer({
    log: (l) => logged.push(l),
    mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox', distDir: dist }),
  });
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

describe('the docs', () => {
  it('cannot be framed by another site', async () => {
    for (const target of ['/docs/', '/docs', '/docs/missing.html']) {
      const res = await fetch(`${server.baseUrl}${target}`, { redirect: 'manual' });
      await res.arrayBuffer();
      expect(res.headers.get('content-security-policy'), target).toBe("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options'), target).toBe('DENY');
    }
  });
});

describe('methods (ADR-024)', () => {
  const key = { 'X-API-Key': DEMO_MERCHANTS[0]!.apiKey };
  it('HEAD answers like GET without a body on the GET operations and pages', async () => {
    const created = await fetch(`${server.baseUrl}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'X-Service-Key': DEMO_MERCHANTS[0]!.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(partnerBody({ vendorReference: 'HEAD-1' })),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    for (const target of [
      `/api/v1/public/partner/transactions/${id}`,
      '/api/v1/public/partner/transactions/vendor/HEAD-1',
      '/api/v1/sandbox/clock',
      '/api/v1/sandbox/sms',
      `/checkout/${id}`,
      '/docs/',
    ]) {
      const get = await fetch(`${server.baseUrl}${target}`, { headers: key });
      const head = await fetch(`${server.baseUrl}${target}`, { method: 'HEAD', headers: key });
      expect(head.status, target).toBe(get.status);
      expect(get.status, target).toBe(200);
      expect(head.headers.get('content-type'), target).toBe(get.headers.get('content-type'));
      expect(await head.text(), target).toBe('');
    }
    const missing = await fetch(`${server.baseUrl}/api/v1/public/partner/transactions/${crypto.randomUUID()}`, {
      method: 'HEAD',
      headers: key,
    });
    expect(missing.status).toBe(404);
  });
  it('a known path with another method answers 405 METHOD_NOT_ALLOWED with Allow; an unknown path stays 404', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/public/sessions', 'POST'],
      ['PUT', `/api/v1/public/partner/transactions/${crypto.randomUUID()}`, 'GET, HEAD'],
      ['POST', '/api/v1/sandbox/sms', 'GET, HEAD'],
      ['GET', '/api/v1/public/partner/transactions', 'POST'],
    ];
    for (const [method, target, allow] of cases) {
      const res = await fetch(`${server.baseUrl}${target}`, { method, headers: key });
      expect(res.status, `${method} ${target}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('METHOD_NOT_ALLOWED');
      expect(body.error.message).toContain(allow);
    }
    const unknown = await fetch(`${server.baseUrl}/api/v1/public/nowhere`, { method: 'DELETE', headers: key });
    expect(unknown.status).toBe(404);
  });
});
