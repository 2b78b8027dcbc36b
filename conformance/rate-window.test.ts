/**
 * A1's wait against the real start of its window (ADR-006): the model's count of a key's window
 * (`countRate`) takes the start from the answer that counts the window's first request and judges
 * every later answer's RateLimit-Reset by the seconds left from it. Plain data, no server.
 */
import { describe, expect, it } from 'vitest';
import { countRate, rateLimited, type RateAnswer } from './commands/createSession.ts';
import { newModelState } from './model-state.ts';
import { Contract } from '../judge/contract.ts';

const contract = Contract.for(1);
const { limit, windowSeconds: W } = contract.rateLimits.createSession!;

/** An A1 answer exchanged over [at, at + 20] ms with these RateLimit headers. */
function answer(at: number, remaining: number, reset: number, status = 200): RateAnswer {
  return {
    opId: 'createSession',
    status,
    sentAt: at,
    receivedAt: at + 20,
    responseHeaders: { 'ratelimit-limit': String(limit), 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) },
  };
}

/** The failed checks of a sequence of answers on a fresh model (each asked first, as `sendSession` does). */
function failures(answers: RateAnswer[]): string[] {
  const s = newModelState(contract, 'core');
  const out: string[] = [];
  for (const a of answers) {
    rateLimited(s, 'main', a.sentAt);
    countRate(s, 'main', a, (ok, _op, path, msg) => void (ok || out.push(`${path}: ${msg}`)));
  }
  return out;
}

describe('A1 rate-limit wait from the window start', () => {
  it('passes the waits of a window started by the first counted request', () => {
    expect(failures([answer(0, limit - 1, W), answer(5_000, limit - 2, W - 5), answer(20_500, limit - 3, W - 20)])).toEqual([]);
  });
  it("reports a whole window's wait given seconds after the window began (counted from the request itself)", () => {
    const f = failures([answer(0, limit - 1, W), answer(5_000, limit - 2, W)]);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatch(/^header RateLimit-Reset: RateLimit-Reset 900 s, the window began .* 895(\.\.896)? s were left$/);
  });
  it("judges a 429's wait the same way, and none before a window's first request was seen", () => {
    expect(failures([answer(0, 0, W, 429)])).toEqual([]);
    expect(failures([answer(0, limit - 1, W), answer(10_000, 0, W, 429)])).toHaveLength(1);
  });
  it('starts again at the first request of the next window', () => {
    const next = W * 1000 + 2_000;
    expect(failures([answer(0, limit - 1, W), answer(next, limit - 1, W), answer(next + 3_000, limit - 2, W - 3)])).toEqual([]);
  });
});
