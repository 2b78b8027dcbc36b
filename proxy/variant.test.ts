/**
 * The proxy follows each key's variant (ADR-070), against a fake upstream whose A1 answers the
 * test chooses: without --variant, a key is pinned by its first answer only one variant accepts,
 * and a later answer in the other variant's shape is a `variant` finding; an answer both accept
 * (an error) pins nothing; with --variant, every key is held to it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveProxy, type LiveProxy } from './server.ts';

const RATE = { 'RateLimit-Limit': '100', 'RateLimit-Remaining': '99', 'RateLimit-Reset': '900', 'RateLimit-Policy': '100;w=900' };
const V1 = (): unknown => ({ token: `st_test_${randomUUID().replace(/-/g, '')}`, expiresAt: new Date(Date.now() + 3600e3).toISOString() });
const V2 = (): unknown => ({ session_token: `st_test_${randomUUID().replace(/-/g, '')}`, expires_in: 3600, session_id: randomUUID() });
/** A1's request in a variant: `total` a number in Variant 1, a decimal string in Variant 2. */
const A1_BODY = (v: 1 | 2): string =>
  JSON.stringify({ total: v === 1 ? 600 : '600.00', currency: 'MAD', items: [{ id: 'case-s', name: 'Case', price: 600, quantity: 1 }] });

/** What the fake upstream answers next, per key: 'v1', 'v2' or '401'. */
const next = new Map<string, string>();
let upstream: Server;
let upstreamUrl: string;
const proxies: LiveProxy[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const shape = next.get(String(req.headers['x-api-key'])) ?? 'v1';
      if (shape === '401')
        return res
          .writeHead(401, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ error: { code: 'INVALID_API_KEY', message: 'Invalid API key' } }));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...RATE }).end(JSON.stringify(shape === 'v1' ? V1() : V2()));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const p of proxies) await p.close();
  upstream?.closeAllConnections();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

async function a1(proxy: LiveProxy, key: string, shape: string, speaks: 1 | 2 = shape === 'v2' ? 2 : 1): Promise<void> {
  next.set(key, shape);
  const r = await fetch(`${proxy.url}/api/v1/public/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-API-Key': key },
    body: A1_BODY(speaks),
  });
  await r.arrayBuffer();
}

describe('each key speaks one variant', () => {
  it('without --variant: v1 and v2 keys each accepted, a 401 pins nothing, a pinned key answering the other shape is a finding', async () => {
    const proxy = await startLiveProxy({ upstream: upstreamUrl });
    proxies.push(proxy);
    const k1 = `sk_test_vk1_${randomUUID()}`;
    const k2 = `sk_test_vk2_${randomUUID()}`;
    const k3 = `sk_test_vk3_${randomUUID()}`;
    await a1(proxy, k1, 'v1');
    await a1(proxy, k1, 'v1');
    await a1(proxy, k2, '401', 2);
    await a1(proxy, k2, 'v2');
    await a1(proxy, k2, 'v2');
    await a1(proxy, k3, '401', 2);
    expect(proxy.recorder.findings.map((f) => f.message)).toEqual([]);
    expect(proxy.recorder.report().keysPinned).toEqual({ 1: 1, 2: 1 });
    // k3's 401 pinned nothing: either shape is still its first
    await a1(proxy, k3, 'v2');
    expect(proxy.recorder.findings).toEqual([]);
    await a1(proxy, k1, 'v2', 1);
    expect(proxy.recorder.findings.map((f) => f.kind)).toEqual(['variant']);
    expect(proxy.recorder.findings[0]!.message).toMatch(/in Variant 2's shape; this key speaks Variant 1 \(exchange 1 showed it\)/);
    await a1(proxy, k2, 'v1', 2);
    expect(proxy.recorder.findings.map((f) => f.kind)).toEqual(['variant', 'variant']);
  });

  it('with --variant 2: a v1-shaped answer is an answer finding from the first exchange', async () => {
    const proxy = await startLiveProxy({ upstream: upstreamUrl, variant: 2 });
    proxies.push(proxy);
    const k = `sk_test_vk4_${randomUUID()}`;
    await a1(proxy, k, 'v2');
    expect(proxy.recorder.findings).toEqual([]);
    await a1(proxy, k, 'v1', 2);
    expect(proxy.recorder.findings.map((f) => f.kind)).toEqual(['answer']);
    expect(proxy.recorder.findings[0]!.message).toMatch(/session_token/);
  });
});
