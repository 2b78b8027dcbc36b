/**
 * ADR-052 in the sandbox profile: the suite passes the reference server's failures on demand
 * (a proxy that changes nothing), and finds each fault of `catalog-simulate.ts` with its coverage
 * tour (the random search sends no `Paylater-Simulate` header). One run of the search each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../reference-server/testing.ts';
import { simulateMutants } from './catalog-simulate.ts';
import type { Mutant } from './proxy.ts';
import { prepareMutantSelfTest } from './selftest.ts';

const unchanged: Mutant = { name: 'no fault (the proxy forwards everything)', profile: 'sandbox' };
const list = [unchanged, ...simulateMutants];
let st: Awaited<ReturnType<typeof prepareMutantSelfTest>>;
beforeAll(async () => {
  st = await prepareMutantSelfTest((merchants) => startTestServer({ merchants, mode: 'sandbox' }), list);
}, 60_000);
afterAll(() => st?.close());

describe('conformance: failures on demand (sandbox profile)', () => {
  it('the reference server passes', async () => {
    const r = await st.run(0, 1);
    expect(r.result.findings.map((f) => f.message)).toEqual([]);
  }, 90_000);

  simulateMutants.forEach((m, i) => {
    it(`finds: ${m.name}`, async () => {
      const r = await st.run(i + 1, 1);
      expect(r.findings, r.message).toBeGreaterThan(0);
      expect(r.phase).toBe('tour');
      expect(r.commands.at(-1)).toMatch(/^(simulateFailure|apiLog)\(/);
    }, 90_000);
  });
});
