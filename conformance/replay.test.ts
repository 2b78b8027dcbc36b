/**
 * Seed and path replay the same command sequence: the commands' preconditions
 * read the model alone (plain data: time as the intervals the observed clock gave, the A1 requests
 * sent), never the real clock or the client. Each of 20 seeds is run twice with its path against
 * the reference server, each time on fresh merchants, and the two runs execute the same commands in
 * the same order. Both variants; the sandbox profile (its clock moves, tokens lapse, rate windows
 * end) and the core profile (the A1 budget the search leaves the tour).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { merchantPair, type MerchantPair } from './merchant-pairs.ts';
import type { MerchantSpec } from './mutants/selftest.ts';
import { runSuite } from './run.ts';

const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
/** Seeds run side by side (each its two runs in turn). */
const PARALLEL = 4;
const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: TestServer;
/** Two merchant pairs per seed: one for each run. */
const pairs: MerchantPair[] = [];

beforeAll(async () => {
  const merchants: MerchantSpec[] = [];
  for (let i = 0; i < 2 * SEEDS.length; i++) {
    const { pair, merchants: both } = await merchantPair('replay', i, Math.floor(i / 2) % 2 === 0 ? 1 : 2, secret);
    pairs.push(pair);
    merchants.push(...both);
  }
  server = await startTestServer({ merchants, mode: 'sandbox' });
});
afterAll(async () => {
  await server?.close();
});

/** The commands each run of the search executed (in order), for `seed` replayed at its path, with the merchants of `pair`. */
async function sequence(seed: number, pair: MerchantPair): Promise<string[][]> {
  const runs: string[][] = [];
  const profile = seed <= 14 ? 'sandbox' : 'core';
  const r = await runSuite({
    baseUrl: server.baseUrl,
    apiKey: pair.main,
    otherApiKey: pair.other,
    variant: pair.variant,
    profile,
    runs: 1,
    seed,
    path: String(seed % 3),
    maxCommands: 25,
    paymentWindowSeconds: 1800,
    webhookPort: profile === 'sandbox' ? pair.port : undefined,
    webhookSecret: profile === 'sandbox' ? secret : undefined,
    webhookGraceMs: 60,
    onRun: (commands) => runs.push([...commands]),
  });
  expect(r.findings.map((f) => `seed ${seed}: ${f.message}`)).toEqual([]);
  return runs;
}

describe('replay', () => {
  it(`${SEEDS.length} seeds, each replayed twice at its path: the same command sequence`, async () => {
    const results: { seed: number; a: string[][]; b: string[][] }[] = [];
    for (let k = 0; k < SEEDS.length; k += PARALLEL)
      results.push(
        ...(await Promise.all(
          SEEDS.slice(k, k + PARALLEL).map(async (seed) => {
            const a = await sequence(seed, pairs[2 * (seed - 1)]!);
            const b = await sequence(seed, pairs[2 * (seed - 1) + 1]!);
            return { seed, a, b };
          }),
        )),
      );
    for (const { seed, a, b } of results) {
      expect(a.flat().length, `seed ${seed} ran no command`).toBeGreaterThan(0);
      expect(b, `seed ${seed}: the replay took another path`).toEqual(a);
    }
    // the seeds give different sequences: the comparison is not of one fixed list
    expect(new Set(results.map((r) => JSON.stringify(r.a))).size).toBeGreaterThan(SEEDS.length / 2);
  }, 300_000);
});
