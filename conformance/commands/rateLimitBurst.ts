/** A1 until the window's limit is passed: exactly the (limit+1)-th request gets 429 with retry_after. */
import type { Cmd, Model, Real } from '../model.ts';
import { sendSession } from './createSession.ts';

type Json = Record<string, unknown>;

/** @checks a1-rate-limit, ADR-006 */
export class RateLimitBurst implements Cmd {
  constructor(readonly body: Json) {}
  check(m: Readonly<Model>): boolean {
    // Each burst costs a window's worth of requests: at most two per suite run in the random search;
    // the tour's own burst always runs (its window edges are checked after it).
    return m.state.inTour || m.state.bursts < 2;
  }
  async run(m: Model, w: Real): Promise<void> {
    w.state.bursts++;
    const limit = w.rateLimit().limit;
    for (let i = 0; i <= limit + 1; i++) {
      if ((await sendSession(m, w, this.body)) === 'limited') {
        w.check(w.rateLimited('main') === 'yes', 'createSession', '$', 'a 429 came although the model has not counted the limit');
        return;
      }
    }
    w.check(false, 'createSession', '$', `no 429 after ${limit + 2} requests in one window`, 429, 200);
  }
  toString(): string {
    return 'rateLimitBurst()';
  }
}

/**
 * After the main merchant's window is spent, one A1 request with the other merchant's key: the
 * limit is per key (`x-rate-limit` keyedOn), so it is answered as usual, never 429 for the main
 * merchant's spending. The suite sends the other key's A1 requests only here (one per run), so its
 * window is not spent unless another client of that test key spends it.
 * @checks a1-rate-limit
 */
export class OtherKeySession implements Cmd {
  constructor(readonly body: Json) {}
  check(m: Readonly<Model>): boolean {
    return m.state.inTour;
  }
  async run(m: Model, w: Real): Promise<void> {
    const spent = w.rateLimited('main') === 'yes';
    const r = await sendSession(m, w, this.body, 'other');
    if (spent)
      w.check(
        r !== 'limited',
        'createSession',
        '$',
        "the other merchant's A1 request got 429 while only the main merchant's window was spent (the limit is per key)",
        'not 429',
        429,
      );
  }
  toString(): string {
    return "createSession(other merchant's key, the main key's window spent)";
  }
}
