/**
 * The conformance suite (`paylater conform`'s `runSuite`) against the PostgreSQL store: both
 * variants, both profiles, 0 findings, first on one in-process server on a database, then on
 * two `paylater serve` processes on one database behind a round-robin proxy (each request may
 * land on either instance; webhooks come from whichever claims them). Bounded runs. The two
 * instances run with --no-auth-throttle: a sandbox run's wrong-credential probes (one per probe
 * family and operation) are four windows of the failed-authentication throttle's budget, minutes of
 * pacing that test the pacer, not the store. The suite under the throttle is
 * conformance/throttle-control.test.ts; the throttle's one counter in the shared database is
 * auth-throttle.test.ts in the postgres-2 project.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantPair, type MerchantPair } from '../../../conformance/merchant-pairs.ts';
import { runSuite, type SuiteResult } from '../../../conformance/run.ts';
import type { MerchantConfigInput } from '../../config.ts';
import { startTestServer, type TestServer } from '../../testing.ts';
import { startCluster, type Cluster } from '../../test-support/pg-cluster.ts';
import { migrateUrl } from './migrate.ts';
import { roundRobinProxy, startInstance, type Instance, type Proxy } from '../../test-support/pg-instances.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const CASES = [
  [1, 'core'],
  [2, 'core'],
  [1, 'sandbox'],
  [2, 'sandbox'],
] as const;

let cluster: Cluster;
let dir: string;
let single: TestServer;
let instances: Instance[] = [];
let proxy: Proxy;
const pairs: Record<'single' | 'proxy', MerchantPair[]> = { single: [], proxy: [] };

/** A main and an other merchant per case, the main one's webhooks going to the suite's receiver port. */
async function merchantsFor(target: 'single' | 'proxy'): Promise<MerchantConfigInput[]> {
  const out: MerchantConfigInput[] = [];
  for (const [i, [variant]] of CASES.entries()) {
    const { pair, merchants } = await merchantPair(`pg_${target}`, i, variant, secret);
    pairs[target].push(pair);
    out.push(...merchants);
  }
  return out;
}

beforeAll(async () => {
  cluster = await startCluster();
  dir = mkdtempSync(path.join(tmpdir(), 'paylater-conform-pg-'));
  const [one, shared] = await Promise.all([cluster.createDatabase(), cluster.createDatabase()]);
  await migrateUrl(shared);
  const proxyMerchants = await merchantsFor('proxy');
  [single, ...instances] = await Promise.all([
    startTestServer({ merchants: await merchantsFor('single'), mode: 'sandbox', databaseUrl: one }),
    ...[0, 1].map(() => startInstance({ databaseUrl: shared, merchants: proxyMerchants, dir, args: ['--no-auth-throttle'] })),
  ]);
  proxy = await roundRobinProxy(() => instances.map((i) => i.baseUrl));
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.allSettled([single?.close(), ...instances.map((i) => i.stop())]);
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function report(r: SuiteResult): string {
  return r.findings.map((f) => `${f.phase}: ${f.message}\n${f.commands.join('\n')}\n${f.replay}`).join('\n\n');
}

describe.each([
  ['single', 'one server on PostgreSQL', 21],
  ['proxy', 'two instances on one database behind a round-robin proxy', 31],
] as const)('conformance: %s (%s)', (target, _what, seed) => {
  it.each(CASES.map(([variant, profile], i) => [variant, profile, i] as const))(
    'variant %i, %s profile: 0 findings',
    async (variant, profile, i) => {
      const p = pairs[target][i]!;
      const r = await runSuite({
        baseUrl: target === 'single' ? single.baseUrl : proxy.baseUrl,
        apiKey: p.main,
        otherApiKey: p.other,
        variant,
        profile,
        runs: 3,
        seed: seed + i,
        maxCommands: 12,
        paymentWindowSeconds: 1800,
        webhookPort: profile === 'sandbox' ? p.port : undefined,
        webhookSecret: profile === 'sandbox' ? secret : undefined,
        webhookGraceMs: target === 'proxy' ? 300 : 60,
        timeLimitMs: 60_000,
      });
      if (r.findings.length) console.log(`${target} v${variant} ${profile}:\n${report(r).slice(0, 3000)}`);
      expect(report(r)).toBe('');
      expect(r.checks).toBeGreaterThan(50);
    },
    180_000,
  );
});
