/**
 * The sub-second edge probes' arithmetic (`edges.ts`): how far the clock moves to land just before
 * a limit or at it, and the side of the limit an exchange certainly fell on (a side within a second).
 */
import { describe, expect, it } from 'vitest';
import { Contract } from '../judge/contract.ts';
import { newModelState } from './model-state.ts';
import { edgeCoverage, EDGES, insideMarginMs, MIN_MARGIN_MS, msAt, msJustBefore, recordEdge, RESOLUTION_MS, sideOf } from './edges.ts';

describe('edges from inside (ADR-085)', () => {
  it('moves an age known within [lo, hi] to just before a limit, by the margin, or at it, whatever comes later', () => {
    // an age between 40 and 60 ms, a limit of 3,600 s: 3,599,840 ms leaves the margin of 100 ms
    expect(msJustBefore(3_600_000, 60, 100)).toBe(3_599_840);
    expect(msAt(3_600_000, 40)).toBe(3_599_961);
  });
  it('leaves a margin of a few round trips, never a second', () => {
    expect(insideMarginMs({ roundTripMs: 5 })).toBe(MIN_MARGIN_MS);
    expect(insideMarginMs({ roundTripMs: 60 })).toBeGreaterThan(MIN_MARGIN_MS);
    expect(insideMarginMs({ roundTripMs: 2_000 })).toBeLessThan(RESOLUTION_MS);
  });
  it('tells the side of a limit an exchange certainly fell on, within a second', () => {
    const limit = { from: 10_000, to: 10_040 };
    expect(sideOf(limit, { from: 9_800, to: 9_900 })).toBe('inside');
    expect(sideOf(limit, { from: 10_070, to: 10_100 })).toBe('at');
    // straddling the limit, or within the slack: no side
    expect(sideOf(limit, { from: 9_980, to: 10_010 })).toBeNull();
    expect(sideOf(limit, { from: 9_900, to: 9_990 })).toBeNull();
    // more than a second away: not at the edge
    expect(sideOf(limit, { from: 8_000, to: 8_900 })).toBeNull();
    expect(sideOf(limit, { from: 11_100, to: 11_200 })).toBeNull();
  });
  it("a run's coverage: each edge on both sides in the sandbox; none in the core profile, each with why", () => {
    const sandbox = newModelState(Contract.for(1), 'sandbox');
    recordEdge(sandbox, 'token-lifetime', { from: 10_000, to: 10_040 }, { from: 9_800, to: 9_900 });
    const cov = edgeCoverage(sandbox);
    expect(cov.probed).toEqual(['token-lifetime inside']);
    expect(cov.missing).toHaveLength(EDGES.length * 2 - 1);
    const core = edgeCoverage(newModelState(Contract.for(1), 'core'));
    expect(core.probed).toEqual([]);
    expect(core.notProbed).toHaveLength(EDGES.length);
  });
});
