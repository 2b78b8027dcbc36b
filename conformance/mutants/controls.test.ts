/**
 * No false findings: the reference server with its webhooks through a relay that delays each
 * delivery 0–1.5 s at random (so they arrive late and out of order), 10 seeds in parallel (one
 * merchant pair each), sandbox profile: 0 findings on every seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../reference-server/testing.ts';
import { latencyRelay } from './controls.ts';
import { prepareMutantSelfTest } from './selftest.ts';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
let st: Awaited<ReturnType<typeof prepareMutantSelfTest>>;

beforeAll(async () => {
  st = await prepareMutantSelfTest(
    (merchants) => startTestServer({ merchants, mode: 'sandbox' }),
    SEEDS.map(() => latencyRelay),
  );
});
afterAll(async () => st?.close());

describe('controls', () => {
  it(`${latencyRelay.name}: 0 findings over ${SEEDS.length} seeds`, async () => {
    // the default webhook timeout (3 s) is above the relay's longest delay
    const results = await Promise.all(SEEDS.map((seed, i) => st.run(i, 3, { seed, webhookTimeoutMs: 3000 })));
    const found = results.flatMap((r, i) =>
      r.result.findings.map((f) => `seed ${SEEDS[i]}: ${f.phase}: ${f.message}\n  ${f.commands.slice(-8).join(' → ')}`),
    );
    expect(found.join('\n\n')).toBe('');
    // the relay did deliver: every seed received webhooks
    for (const r of results) expect(r.result.webhooks!.received).toBeGreaterThan(0);
    // 44–112 s in full `npm test` runs; each seed's first look adds a sequence that waits for its
    // delayed webhooks (cancel, approval, expiry)
  }, 240_000);
});
