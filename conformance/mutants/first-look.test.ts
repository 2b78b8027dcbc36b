/**
 * The coverage tour's first look (`firstLook` in tour.ts) finds the faults most implementations
 * have before anything else runs: each of these catalogue mutants is reported by it, so the run
 * ends (with `--bail`) within its first dozen commands instead of after the probes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../reference-server/testing.ts';
import { mutants } from './catalog.ts';
import { prepareMutantSelfTest } from './selftest.ts';

const NAMES = [
  "other merchant's transaction readable",
  "404 body differs for another merchant's transaction",
  "B3 404 body differs for another merchant's transaction",
  'B3 read: customerPhone differs from the one created',
  'duplicate vendorReference accepted',
  "B4's answer keeps the creation time as updatedAt (updatedAt not set on cancel)",
  'missing webhook (transaction.cancelled dropped)',
  'webhook signed with a wrong secret',
  'extra webhook (approved sent on create)',
  "SMS outbox: a page repeats the previous page's last item (an inclusive cursor)",
  'sandbox transactions list: each page oldest first',
  'A2 created_at month first (MM/DD/YY)',
  "A2's store_name is the merchant's name (repeated value in the session-token record)",
  "checkout transactions' webhooks name another store (storeName)",
  'A2 dates in UTC+1, not UTC',
  'updatedAt left at creation on expiry (expiredAt too)',
  'B2/B3 show PENDING after the payment window',
  'expiry instant written as the time of the read that noticed it (updatedAt, expiredAt)',
  'missing webhook (transaction.expired dropped)',
];
const list = NAMES.map((n) => {
  const m = mutants.find((x) => x.name === n);
  if (!m) throw new Error(`no mutant named ${n} in the catalogue`);
  return m;
});
let st: Awaited<ReturnType<typeof prepareMutantSelfTest>>;
beforeAll(async () => {
  st = await prepareMutantSelfTest((merchants) => startTestServer({ merchants, mode: 'sandbox' }), list);
}, 60_000);
afterAll(() => st?.close());

describe("conformance: the coverage tour's first look", () => {
  list.forEach((m, i) => {
    it(`finds: ${m.name}`, async () => {
      const lines: string[] = [];
      const r = await st.run(i, 1, { log: (l) => lines.push(l) });
      expect(r.findings, r.message).toBeGreaterThan(0);
      expect(r.phase).toBe('tour');
      expect(lines).toContain('coverage tour, first look: finding');
      expect(lines.some((l) => l.startsWith('coverage tour probes'))).toBe(false);
    }, 60_000);
  });
});
