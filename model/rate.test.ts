/** The rate-limit wait (ADR-006) as the model computes it: seconds left in the window from its first counted request. */
import { describe, expect, it } from 'vitest';
import { variants } from '../generated/contract.ts';
import { rateLimitOf, waitRange } from './index.ts';

/** The wait at one known start and one known instant: the range's two ends are one. */
const waitSeconds = (start: number, now: number, windowSeconds: number): number => {
  const r = waitRange({ from: start, to: start }, { from: now, to: now }, windowSeconds);
  expect(r.min).toBe(r.max);
  return r.min;
};

const W = 900;

describe('rate-limit wait', () => {
  it('is the seconds left from the window start, rounded up, at least 1', () => {
    expect(waitSeconds(0, 0, W)).toBe(900);
    expect(waitSeconds(0, 1, W)).toBe(900);
    expect(waitSeconds(0, 1000, W)).toBe(899);
    expect(waitSeconds(0, 4_500, W)).toBe(896);
    expect(waitSeconds(0, 899_999, W)).toBe(1);
    expect(waitSeconds(0, 950_000, W)).toBe(1);
  });
  it('over intervals: from the latest start and latest use to the earliest of both', () => {
    expect(waitRange({ from: 0, to: 40 }, { from: 5_000, to: 5_030 }, W)).toEqual({ min: 895, max: 896 });
    // a whole window from the request itself is outside the range once a second has passed
    const r = waitRange({ from: 0, to: 40 }, { from: 3_000, to: 3_030 }, W, 25);
    expect(W).toBeGreaterThan(r.max);
    expect(r.min).toBe(897);
  });
});

describe('rateLimitOf', () => {
  const tables = { 1: variants.v1.rateLimits, 2: variants.v2.rateLimits } as Record<
    1 | 2,
    Record<string, { limit: number; windowSeconds: number }>
  >;
  const ops = new Set([...Object.keys(tables[1]), ...Object.keys(tables[2])]);
  it("with a variant, is that variant's x-rate-limit; without one, the limit both state alike", () => {
    expect(ops.size).toBeGreaterThan(0);
    for (const op of ops) {
      expect(rateLimitOf(op, 1)).toEqual(tables[1][op]);
      expect(rateLimitOf(op, 2)).toEqual(tables[2][op]);
      const same = JSON.stringify(tables[1][op]) === JSON.stringify(tables[2][op]);
      expect(rateLimitOf(op)).toEqual(same ? tables[1][op] : undefined);
    }
    expect(rateLimitOf('getPartnerTransaction')).toBeUndefined();
  });
});
