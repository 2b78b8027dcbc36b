/** The rate-limit wait (ADR-006) as the model computes it: seconds left in the window from its first counted request. */
import { describe, expect, it } from 'vitest';
import { waitRange, waitSeconds } from './index.ts';

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
