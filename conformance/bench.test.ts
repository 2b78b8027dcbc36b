/** The bench function measures a ratio against the reference server (the >= 0.7 target is reported, asserted loosely here). */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { measureConformanceThroughput, median } from './bench.ts';

let server: TestServer;
const k = { apiKey: `sk_test_bench_${randomBytes(6).toString('hex')}`, otherApiKey: `sk_test_bench_o_${randomBytes(6).toString('hex')}` };
beforeAll(async () => {
  server = await startTestServer({ merchants: [{ name: 'A', storeName: 'A', apiKey: k.apiKey, variant: 1 }, { name: 'B', storeName: 'B', apiKey: k.otherApiKey, variant: 1 }] });
});
afterAll(async () => server?.close());

it('measures the suite throughput against a plain loop', async () => {
  const r = await measureConformanceThroughput(server.baseUrl, k, 10, 3);
  console.log(`conformance throughput: ${r.commandsPerSecond.toFixed(0)} commands/s, ${r.suiteRequests} requests, ratio ${r.ratio.toFixed(2)}`);
  expect(r.suiteRequests).toBeGreaterThan(50);
  expect(Number.isFinite(r.ratio) && r.ratio > 0).toBe(true);
  expect(median([3, 1, 2])).toBe(2);
}, 60_000);
