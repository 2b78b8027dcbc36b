/** The suite against the reference server: both variants, both profiles, two seeds each, 0 findings. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { merchantPair, type MerchantPair } from './merchant-pairs.ts';
import { freePort } from '../lib/free-port.ts';
import type { MerchantSpec } from './mutants/selftest.ts';
import { runSuite, type SuiteResult } from './run.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: TestServer;
let n = 0;
const pairs: MerchantPair[] = [];
/** Merchant pairs whose webhooks go to one receiver: the other merchant with the same secret, or its own. */
const shared: { main: string; other: string; port: number; otherSecret: string }[] = [];

beforeAll(async () => {
  const merchants: MerchantSpec[] = [];
  for (let i = 0; i < 16; i++) {
    const { pair, merchants: both } = await merchantPair('conf', i, i % 2 === 0 ? 1 : 2, secret);
    pairs.push(pair);
    merchants.push(...both);
  }
  for (let i = 0; i < 4; i++) {
    const port = await freePort();
    const otherSecret = i % 2 === 0 ? secret : `whsec_${randomBytes(24).toString('base64')}`;
    shared.push({
      main: `sk_test_conf_sh_${i}_${randomBytes(6).toString('hex')}`,
      other: `sk_test_conf_sho_${i}_${randomBytes(6).toString('hex')}`,
      port,
      otherSecret,
    });
    const p = shared[i]!;
    merchants.push({
      name: `Shared ${i}`,
      storeName: `Shared store ${i}`,
      apiKey: p.main,
      variant: 1 as const,
      webhookUrl: `http://127.0.0.1:${port}/hooks`,
      webhookSecret: secret,
    });
    merchants.push({
      name: `Shared other ${i}`,
      storeName: `Shared other store ${i}`,
      apiKey: p.other,
      variant: 1 as const,
      webhookUrl: `http://127.0.0.1:${port}/hooks`,
      webhookSecret: otherSecret,
    });
  }
  server = await startTestServer({ merchants, mode: 'sandbox' });
});
afterAll(async () => {
  await server?.close();
});

function report(r: SuiteResult): string {
  return r.findings.map((f) => `${f.phase}: ${f.message}\n${f.commands.join('\n')}\n${f.replay}`).join('\n\n');
}

async function run(variant: 1 | 2, profile: 'core' | 'sandbox', seeds: number[], runs: number): Promise<void> {
  for (const seed of seeds) {
    const p = pairs.find((x, i) => x.variant === variant && i >= n)!;
    n = pairs.indexOf(p) + 1;
    const r = await runSuite({
      baseUrl: server.baseUrl,
      apiKey: p.main,
      otherApiKey: p.other,
      variant,
      profile,
      runs,
      seed,
      maxCommands: 15,
      paymentWindowSeconds: 1800,
      webhookPort: profile === 'sandbox' ? p.port : undefined,
      webhookSecret: profile === 'sandbox' ? secret : undefined,
      webhookGraceMs: 60,
    });
    if (r.findings.length) console.log(`v${variant} ${profile} seed ${seed}:\n` + report(r).slice(0, 3000));
    expect(report(r)).toBe('');
    expect(r.checks).toBeGreaterThan(100);
    if (profile === 'sandbox') expect(r.coverage.transitions.missing).toEqual([]);
  }
}

// Two seeds per variant and profile: the same runs, five seeds each, behind a proxy that reorders
// every object's members (mutants/controls-order.test.ts), and ten seeds with webhooks delayed and
// reordered (mutants/controls.test.ts) hold the suite to 0 findings on a correct server too.
describe('conformance suite against the reference server', () => {
  it('variant 1, sandbox profile', async () => run(1, 'sandbox', [1, 13], 4), 120_000);
  it('variant 2, sandbox profile', async () => run(2, 'sandbox', [4, 15], 4), 120_000);
  it('variant 1, core profile', async () => run(1, 'core', [7, 17], 4), 120_000);
  it('variant 2, core profile', async () => run(2, 'core', [10, 19], 4), 120_000);
  it("one webhook receiver for both merchants (same secret or each its own): the other merchant's events are attributed to it", async () => {
    for (const [i, p] of shared.entries()) {
      const profile = i < 2 ? 'core' : 'sandbox';
      const r = await runSuite({
        baseUrl: server.baseUrl,
        apiKey: p.main,
        otherApiKey: p.other,
        variant: 1,
        profile,
        runs: 4,
        seed: 30 + i,
        maxCommands: 15,
        paymentWindowSeconds: 1800,
        webhookPort: p.port,
        webhookSecret: secret,
        webhookGraceMs: 60,
      });
      expect(report(r), `${profile}, ${p.otherSecret === secret ? 'same' : 'own'} secret`).toBe('');
      // the other merchant's deliveries reached this receiver and were set aside, not judged
      expect(r.webhooks!.ignored).toBeGreaterThan(0);
    }
  }, 120_000);
});
