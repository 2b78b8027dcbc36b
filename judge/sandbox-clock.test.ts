/**
 * The sandbox clock's answers judged as one offset (sandbox.ts `judgeClock`, ADR-085): the whole
 * seconds shown are the milliseconds' (what the dashboard shows beside what the judge times by), and
 * an advance shows at least what it asked for. Each fault beside the correct answer, and beside an
 * advance that met another one of the same key on the server (a larger offset: no finding).
 */
import { describe, expect, it } from 'vitest';
import { dateAnswered, earSlack } from './clock.ts';
import { newMemory } from './memory.ts';
import { observation, ObservedJudge } from './test-support/observe.ts';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const iso = (t: number) => new Date(t).toISOString();
const clockOf = (ms: number, seconds = Math.floor(ms / 1000)) => ({ now: iso(T0 + ms), offsetSeconds: seconds, offsetMilliseconds: ms });
const read = (j: ObservedJudge, answer: unknown) => j.observe(observation('sandboxGetClock', 200, answer, T0)).map((f) => f.jsonPath);
const advance = (j: ObservedJudge, body: unknown, answer: unknown) =>
  j.observe(observation('sandboxAdvanceClock', 200, answer, T0, { requestJson: body })).map((f) => f.jsonPath);

describe('the sandbox clock as one offset (ADR-085)', () => {
  it('a read: offsetSeconds the whole seconds of offsetMilliseconds, no finding; a second off either way, a finding', () => {
    const j = new ObservedJudge();
    expect(read(j, clockOf(0))).toEqual([]);
    expect(read(j, clockOf(61_999))).toEqual([]);
    expect(read(j, clockOf(61_000, 60))).toEqual(['$.offsetSeconds']);
    expect(read(j, clockOf(1_000, 0))).toEqual(['$.offsetSeconds']);
  });

  it('an advance shows at least the milliseconds it asked for; more (another advance met it) is no finding', () => {
    const j = new ObservedJudge();
    expect(advance(j, { seconds: 60 }, clockOf(60_000))).toEqual([]);
    expect(advance(j, { milliseconds: 1_500 }, clockOf(121_500))).toEqual([]);
    expect(advance(j, { seconds: 60 }, clockOf(59_000))).toEqual(['$.offsetMilliseconds']);
    expect(advance(j, { milliseconds: 1_500 }, clockOf(1_499))).toEqual(['$.offsetMilliseconds']);
  });
});

describe('two instants read off the ear clock (earSlack)', () => {
  it("their difference's slack: a millisecond and the drift over the real time between them; the tolerance over long spans, or across the Date headers' first showing the server's clock shifted", () => {
    const memory = newMemory();
    expect(earSlack(memory, T0, T0 + 2000, 100)).toBe(2);
    expect(earSlack(memory, T0, T0 + 3_600_000, 100)).toBe(100);
    // a Date header of a server 5 s ahead, answered at T0 + 5000: before it, the judge took the server's clock as the ear's
    dateAnswered(memory, new Date(T0 + 10_000).toUTCString(), T0 + 4990, T0 + 5000, 100);
    expect(earSlack(memory, T0, T0 + 6000, 100)).toBe(100);
    expect(earSlack(memory, T0 + 5500, T0 + 6500, 100)).toBe(1.5);
  });
});
