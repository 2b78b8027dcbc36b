/**
 * The state bound over real HTTP: 3,000 transactions created through the proxy (a fake upstream
 * answering each B1 with a valid record) with a cap of 1,000: the judge holds 1,000, the oldest
 * dropped first, every create judged, no finding, the proxy still answering. The bytes per
 * transaction are measured on the judge directly (judge/memory.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fabricate } from '../conformance/mutants/match.ts';
import { startLiveProxy, type LiveProxy } from './server.ts';

const KEY = `sk_test_bound_${randomUUID().replace(/-/g, '')}`;
let upstream: Server;
let proxy: LiveProxy;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = fabricate(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(rec));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  proxy = await startLiveProxy({
    upstream: `http://127.0.0.1:${(upstream.address() as { port: number }).port}`,
    variant: 1,
    maxTransactions: 1000,
  });
});
afterAll(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

it('3,000 creates through the proxy with a cap of 1,000: 1,000 kept, the oldest dropped, no finding', async () => {
  const ids: string[] = [];
  for (let batch = 0; batch < 30; batch++) {
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const r = await fetch(`${proxy.url}/api/v1/public/partner/transactions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-Service-Key': KEY },
          body: JSON.stringify({
            customerPhone: '212612345678',
            total: 600,
            currency: 'MAD',
            vendorReference: `bound-${batch}-${i}`,
            items: [{ name: 'Lamp', quantity: 1, unitPrice: 600 }],
          }),
        });
        expect(r.status).toBe(201);
        return ((await r.json()) as { id: string }).id;
      }),
    );
    ids.push(...answers);
  }
  const { memory } = proxy.judge;
  expect(proxy.recorder.judgedCount).toBe(3000);
  expect(memory.transactions.size).toBe(1000);
  expect([...memory.merchants.values()].reduce((n, m) => n + m.byVendorReference.size, 0)).toBe(1000);
  expect(memory.dropped).toBe(2000);
  expect(memory.transactions.has(ids[0]!)).toBe(false);
  expect(memory.transactions.has(ids.at(-1)!)).toBe(true);
  expect(proxy.recorder.findings.map((f) => f.message)).toEqual([]);
  expect((await fetch(`${proxy.url}/_paylater/report`)).status).toBe(200);
}, 60_000);
