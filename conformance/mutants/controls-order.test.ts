/**
 * No false finding from JSON member order (RFC 8259: objects are unordered): the reference server
 * behind a proxy that writes every object's members in reverse order, in its answers and in its
 * webhook payloads (signed again with the endpoint's secret), 5 seeds of 4 random sequences
 * each, both variants, both profiles: 0 findings. The probe and coverage tours run whole once per
 * seed (they cost most of a run: 20 seeds of 1 sequence took 2.6 times the CPU for the same 20
 * sequences), and the seeds run 8 at a time against one server per variant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../reference-server/testing.ts';
import { membersReordered } from './controls.ts';
import { prepareMutantSelfTest } from './selftest.ts';

const SEEDS = Array.from({ length: 5 }, (_, i) => 100 + i);
const PROFILES = ['core', 'sandbox'] as const;
const RUNS = 4;
const AT_ONCE = 8;
const list = PROFILES.flatMap((profile) => SEEDS.map(() => ({ ...membersReordered, profile })));
const st: Partial<Record<1 | 2, Awaited<ReturnType<typeof prepareMutantSelfTest>>>> = {};

beforeAll(async () => {
  for (const variant of [1, 2] as const)
    st[variant] = await prepareMutantSelfTest((merchants) => startTestServer({ merchants, mode: 'sandbox' }), list, { variant });
});
afterAll(async () => {
  await Promise.all(Object.values(st).map((s) => s.close()));
});

describe('control: members in another order', () => {
  for (const variant of [1, 2] as const)
    it(`variant ${variant}: 0 findings over ${SEEDS.length} seeds, core and sandbox profiles`, async () => {
      const found: string[] = [];
      let received = 0;
      for (let start = 0; start < list.length; start += AT_ONCE) {
        const batch = list.slice(start, start + AT_ONCE).map((m, j) => {
          const i = start + j;
          return st[variant]!.run(i, RUNS, { seed: SEEDS[i % SEEDS.length]!, webhookTimeoutMs: 3000 }).then((r) => {
            received += r.result.webhooks?.received ?? 0;
            for (const f of r.result.findings)
              found.push(`${m.profile} seed ${SEEDS[i % SEEDS.length]}: ${f.phase}: ${f.message}\n  ${f.commands.slice(-8).join(' → ')}`);
          });
        });
        await Promise.all(batch);
      }
      expect(found.join('\n\n')).toBe('');
      // the webhooks went through the reordering proxy
      expect(received).toBeGreaterThan(0);
    }, 480_000);
});
