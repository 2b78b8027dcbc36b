/** Absolute links and the demo backend's API calls never follow the Host header (`--public-url`). */
import { request, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEMO_MERCHANTS } from './config.ts';
import { mountSite } from './site.ts';
import { sessionBodyV1 } from './test-support/helpers.ts';
import { startTestServer, type TestServer } from './testing.ts';

/** A request with a Host header of our choosing (fetch does not allow one). */
function raw(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path: target, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function paymentIntent(base: string, host: string): Promise<string> {
  const key = DEMO_MERCHANTS[0]!.apiKey;
  const session = await raw(
    base,
    'POST',
    '/api/v1/public/sessions',
    { Host: host, 'X-API-Key': key, 'Content-Type': 'application/json' },
    JSON.stringify(sessionBodyV1()),
  );
  expect(session.status, session.text).toBe(200);
  const token = (JSON.parse(session.text) as { token: string }).token;
  const pi = await raw(
    base,
    'POST',
    '/api/v1/public/sdk/payment-intents',
    { Host: host, 'X-Session-Token': token, 'Content-Type': 'application/json' },
    JSON.stringify({ redirect_url: 'http://127.0.0.1:4010/shop/return' }),
  );
  expect(pi.status, pi.text).toBe(201);
  return (JSON.parse(pi.text) as { checkout_url: string }).checkout_url;
}

let dist: string;
let trap: Server;
let trapHits: string[];
let trapBase: string;
beforeAll(async () => {
  dist = await mkdtemp(path.join(os.tmpdir(), 'paylater-public-url-'));
  trapHits = [];
  trap = createServer((req, res) => {
    trapHits.push(`${req.method} ${req.url} key=${String(req.headers['x-api-key'])}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => trap.listen(0, '127.0.0.1', () => r()));
  trapBase = `127.0.0.1:${(trap.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => trap.close(r));
  await rm(dist, { recursive: true, force: true });
});

// @checks ADR-025
describe('absolute links', () => {
  it('come from the listen address by default, whatever the Host header says', async () => {
    const s = await startTestServer({ webhookDispatcherFactory: null });
    try {
      const url = await paymentIntent(s.baseUrl, 'evil.example');
      expect(url.startsWith(`${s.baseUrl}/checkout/`), url).toBe(true);
    } finally {
      await s.close();
    }
  });
  it('come from --public-url when it is configured', async () => {
    const s = await startTestServer({ webhookDispatcherFactory: null, publicUrl: 'https://sandbox.paylater.test/' });
    try {
      const url = await paymentIntent(s.baseUrl, 'evil.example');
      expect(url).toMatch(/^https:\/\/sandbox\.paylater\.test\/checkout\/[0-9a-f-]{36}$/);
    } finally {
      await s.close();
    }
  });
});

describe('the demo backend', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      webhookDispatcherFactory: null,
      mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox', distDir: dist }),
    });
  });
  afterAll(() => s.close());
  it('calls the server itself with the merchant key, never the host a Host header names', async () => {
    for (const host of [trapBase, 'evil.example', `${trapBase}.evil.example`]) {
      const r = await raw(
        s.baseUrl,
        'POST',
        '/demo/v2/checkout',
        { Host: host, 'Content-Type': 'application/x-www-form-urlencoded' },
        'qty_hdp-200=1',
      );
      expect(r.status, r.text).toBe(303);
      expect(String(r.headers.location)).toMatch(/^\/demo\/v2\/orders\/[0-9a-f-]{36}\/pay$/);
    }
    expect(trapHits).toEqual([]);
  });
  it('builds the return URL from the listen address, not the Host header', async () => {
    const r = await raw(
      s.baseUrl,
      'POST',
      '/demo/v2/checkout',
      { Host: 'evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      'qty_hdp-200=1',
    );
    const page = await raw(s.baseUrl, 'GET', String(r.headers.location), { Host: 'evil.example' });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-redirect-url="${s.baseUrl}/demo/v2/return?order=`);
    expect(page.text).not.toContain('evil.example');
  });
});
