/**
 * The verdicts the sub-second edge probes rely on (ADR-085): the end of a rate-limit window from its
 * start, a webhook attempt never before its due time, and a clock's offset as answered.
 */
import { describe, expect, it } from 'vitest';
import { variants } from '../generated/contract.ts';
import { attemptDue, clockOffsetProblem, windowEnd } from './index.ts';

describe('the end of a rate-limit window (ADR-006)', () => {
  it("is exactly windowSeconds after its first counted request's interval", () => {
    const w = variants.v1.rateLimits.createSession.windowSeconds;
    expect(windowEnd({ from: 1_000, to: 1_040 }, w)).toEqual({ from: 1_000 + w * 1000, to: 1_040 + w * 1000 });
  });
});

describe('a webhook attempt falls due at its nextAttemptAt, never before (ADR-005)', () => {
  it("is 'no' while the clock had certainly not reached it, 'yes' once it had, else 'maybe'", () => {
    expect(attemptDue({ from: 9_000, to: 9_999 }, 10_000)).toBe('no');
    expect(attemptDue({ from: 10_000, to: 10_050 }, 10_000)).toBe('yes');
    expect(attemptDue({ from: 9_990, to: 10_010 }, 10_000)).toBe('maybe');
    // the slack widens the interval: a millisecond before its due time is not certain with 25 ms of it
    expect(attemptDue({ from: 9_999, to: 9_999 }, 10_000, 25)).toBe('maybe');
  });
});

describe("a sandbox clock's offset (ADR-085)", () => {
  it('is the offset the advances made, exact in milliseconds, its whole seconds rounded down', () => {
    expect(clockOffsetProblem({ offsetSeconds: 3599, offsetMilliseconds: 3_599_750 }, 3_599_750)).toBeNull();
    expect(clockOffsetProblem({ offsetSeconds: 3600, offsetMilliseconds: 3_599_750 }, 3_599_750)).toEqual({
      path: '$.offsetSeconds',
      expected: 3599,
      actual: 3600,
    });
    // a clock that moved by whole seconds only (the milliseconds rounded up)
    expect(clockOffsetProblem({ offsetSeconds: 3600, offsetMilliseconds: 3_600_000 }, 3_599_750)).toMatchObject({
      path: '$.offsetMilliseconds',
    });
    expect(clockOffsetProblem({ offsetSeconds: 1, offsetMilliseconds: 1_500 }, undefined)).toBeNull();
  });
});
