/** The bench function: the suite against one fresh server, the same requests replayed against another (ids substituted). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { mapStrings, measureConformanceThroughput, median } from './bench.ts';

const merchants = [
  { name: 'A', storeName: 'A', apiKey: 'sk_test_conf_bench_test_main', variant: 1 as const },
  { name: 'B', storeName: 'B', apiKey: 'sk_test_conf_bench_test_other', variant: 1 as const },
];
let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  a = await startTestServer({ merchants, webhookDispatcherFactory: null });
  b = await startTestServer({ merchants, webhookDispatcherFactory: null });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

it('maps the strings of one response to those at the same JSON path of another', () => {
  const m = new Map<string, string>();
  mapStrings(
    { id: 'aaaaaaaa', items: [{ id: 'bbbbbbbb' }], createdAt: '2026-01-01T00:00:00Z', same: 'cccccccc' },
    { id: 'xxxxxxxx', items: [{ id: 'yyyyyyyy' }], createdAt: '2026-01-02T00:00:00Z', same: 'cccccccc' },
    m,
  );
  expect([...m]).toEqual([
    ['aaaaaaaa', 'xxxxxxxx'],
    ['bbbbbbbb', 'yyyyyyyy'],
  ]);
  expect(median([3, 1, 2])).toBe(2);
});

it("replays the suite's requests against a second fresh server doing the same work", async () => {
  const k = (s: TestServer) => ({ baseUrl: s.baseUrl, apiKey: merchants[0]!.apiKey, otherApiKey: merchants[1]!.apiKey });
  const t0 = performance.now();
  const r = await measureConformanceThroughput(k(a), k(b), { runs: 10, seed: 3 });
  const wallMs = performance.now() - t0;
  console.log(
    `conformance throughput: suite ${r.suiteRequestsPerSecond.toFixed(0)} req/s, ${r.commandsPerSecond.toFixed(0)} commands/s; loop ${r.loopRequestsPerSecond.toFixed(0)} req/s; ratio ${r.ratio.toFixed(2)}; ${r.sameStatus}/${r.suiteRequests} same status; contract load ${r.contractLoadMs.toFixed(0)} ms`,
  );
  expect(r.findings).toBe(0);
  expect(r.suiteRequests).toBeGreaterThan(50);
  // the replay did the same work: the same statuses (a create came back 201 again, a read 200 …)
  expect(r.sameStatus).toBe(r.suiteRequests);
  expect(Number.isFinite(r.ratio) && r.ratio > 0).toBe(true);
  // the suite's time is its wall time without the loop's steps and its own pauses: the three add up to at most the whole
  expect(r.suitePausedMs).toBeGreaterThanOrEqual(0);
  expect(r.suiteMs).toBeGreaterThan(0);
  expect(r.suiteMs + r.suitePausedMs + r.loopMs).toBeLessThanOrEqual(wallMs);
  expect(r.ratio).toBeCloseTo(r.loopMs / r.suiteMs, 6);
}, 60_000);
