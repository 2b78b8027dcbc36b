/**
 * Control: the reference server with its failed-authentication throttle on (ADR-027, as `paylater
 * serve` runs by default: no --no-auth-throttle) gets 0 findings, both variants, both profiles. The
 * suite's wrong-credential probes (each credential probe family on each operation with a security
 * scheme: 75 to 78 in a sandbox run) are four windows of the budget, so a full run meets the throttle; it
 * waits Retry-After, resends, then paces (auth-pacer.ts). A sandbox run takes four to five minutes,
 * nearly all of it waiting. The four runs go at once, each against its own server (one counter each).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { stateMachine } from '../generated/index.ts';
import { startTestServer } from '../reference-server/testing.ts';
import { authFailureLimit } from './auth-pacer.ts';
import { DEFAULT_RUNS } from './index.ts';
import { runSuite, type SuiteResult } from './run.ts';
import { Contract } from '../judge/contract.ts';

async function throttledRun(variant: 1 | 2, profile: 'core' | 'sandbox', seed: number): Promise<{ r: SuiteResult; failed: number }> {
  const key = (w: string) => `sk_test_thr_${w}_${randomBytes(6).toString('hex')}`;
  const keys = { main: key('m'), other: key('o') };
  const server = await startTestServer({
    mode: 'sandbox',
    throttleFailedAuth: true,
    merchants: [
      { name: 'Throttled A', storeName: 'A', apiKey: keys.main, variant },
      { name: 'Throttled B', storeName: 'B', apiKey: keys.other, variant },
    ],
  });
  let failed = 0;
  try {
    const r = await runSuite({
      baseUrl: server.baseUrl,
      apiKey: keys.main,
      otherApiKey: keys.other,
      variant,
      profile,
      runs: DEFAULT_RUNS,
      seed,
      paymentWindowSeconds: stateMachine.paymentWindow.defaultSeconds,
      onExchange: (ex) => {
        if (ex.status === 401) failed++;
      },
    });
    return { r, failed };
  } finally {
    await server.close();
  }
}

describe('control: the throttle on', () => {
  it('0 findings, both variants and profiles; the runs met the throttle and waited it out', async () => {
    const limit = authFailureLimit(Contract.for(1))!.limit;
    const runs = await Promise.all([
      throttledRun(1, 'sandbox', 21),
      throttledRun(2, 'sandbox', 22),
      throttledRun(1, 'core', 23),
      throttledRun(2, 'core', 24),
    ]);
    const found = runs.flatMap(({ r }, i) => r.findings.map((f) => `run ${i + 1}: ${f.phase}: ${f.message}`));
    expect(found.join('\n\n')).toBe('');
    for (const { r, failed } of runs) {
      // more wrong-credential answers than one window allows: the throttle was reached
      if (failed > limit) {
        expect(r.authThrottle.throttled).toBeGreaterThanOrEqual(1);
        expect(r.authThrottle.waitedMs).toBeGreaterThan(0);
      }
      // the throttle's waits are among the run's pauses (the time no request's, which the throughput figure takes out)
      expect(r.pausedMs).toBeGreaterThanOrEqual(r.authThrottle.waitedMs);
      // once throttled, the pacing keeps the suite under the limit: never a second 429 in a run
      expect(r.authThrottle.throttled).toBeLessThanOrEqual(1);
    }
    // the sandbox runs are full runs: each needs more than one window's budget
    expect(runs.filter(({ failed }) => failed > limit).length).toBeGreaterThanOrEqual(2);
    // 321 s in a full `npm test`: the limit catches a hang
  }, 480_000);
});
