/**
 * The judge's session rules (sessions.ts, reads.ts), fed exchanges directly: a
 * token's lifetime and its own transaction, the rate limit's window as the key's answers show it,
 * and one 404 body per operation; each rule flags its fault (the catalogue mutant it finds) and
 * stays quiet on the legal sequence beside it (what the plain server answers).
 */
import { describe, expect, it } from 'vitest';
import { rateLimitOf, TOKEN_LIFETIME_MS } from '../model/index.ts';
import { ObservedJudge as StateTracker, type Observation } from './test-support/observe.ts';

const A = 'merchant-a';
const T0 = Date.now();
let seq = 0;
const ob = (o: Partial<Observation> & Pick<Observation, 'opId' | 'status'>, at = T0): Observation => ({
  seq: ++seq,
  merchant: A,
  params: {},
  requestJson: undefined,
  json: undefined,
  sentAt: at - 2,
  receivedAt: at + 2,
  ...o,
});
const kinds = (fs: { kind: string }[]) => fs.map((f) => f.kind);
const TX = '01a21ac0-cdf3-45c7-a114-da7ea11d793a';

/** A session whose token paid transaction TX: A1 at T0, the sandbox payment just after. */
function paidSession(s: StateTracker, token = 'st_test_one'): void {
  expect(
    s.observe(ob({ opId: 'createSession', status: 200, json: { token, expiresAt: new Date(T0 + TOKEN_LIFETIME_MS).toISOString() } })),
  ).toEqual([]);
  s.observe(
    ob({
      opId: 'sandboxPaySession',
      status: 200,
      requestJson: { session_token: token, outcome: 'success' },
      json: { transaction_id: TX, status: 'APPROVED' },
    }),
  );
}
const a2 = (s: StateTracker, token: string, status: number, at: number) =>
  kinds(
    s.observe(
      ob(
        {
          opId: 'getTransactionStatusBySessionToken',
          merchant: null,
          token,
          params: { transaction_id: TX },
          status,
          json: status === 200 ? { transaction_id: TX } : { error: { code: 'INVALID_SESSION_TOKEN', message: 'x' } },
        },
        at,
      ),
    ),
  );

describe('session tokens', () => {
  it('accepted within its lifetime, refused past it: no finding; accepted past it, or refused before it once accepted: a finding', () => {
    const s = new StateTracker({});
    paidSession(s);
    expect(a2(s, 'st_test_one', 200, T0 + 1000)).toEqual([]);
    expect(a2(s, 'st_test_one', 401, T0 + TOKEN_LIFETIME_MS + 1000)).toEqual([]);
    // mutant "expired session token accepted"
    expect(a2(s, 'st_test_one', 200, T0 + TOKEN_LIFETIME_MS + 1000)).toEqual(['token']);
    // mutant "session token lifetime a minute shorter"
    expect(a2(s, 'st_test_one', 401, T0 + TOKEN_LIFETIME_MS - 30_000)).toEqual(['token']);
  });

  it('an A2 read showing PENDING after an expiry event came (mutant "A2 reports a closed transaction as PENDING"): a finding; one sent before it came, none', () => {
    const s = new StateTracker({ webhookWindowMs: 1000 });
    expect(
      s.observe(
        ob({ opId: 'createSession', status: 200, json: { token: 'st_test_p', expiresAt: new Date(T0 + TOKEN_LIFETIME_MS).toISOString() } }),
      ),
    ).toEqual([]);
    s.observe(
      ob({
        opId: 'sandboxPaySession',
        status: 200,
        requestJson: { session_token: 'st_test_p', outcome: 'failed' },
        json: { transaction_id: TX, status: 'PENDING' },
      }),
    );
    const pending = (at: number, sentAt = at - 2) =>
      kinds(
        s.observe({
          ...ob(
            {
              opId: 'getTransactionStatusBySessionToken',
              merchant: null,
              token: 'st_test_p',
              params: { transaction_id: TX },
              status: 200,
              json: { transaction_id: TX, status: 'PENDING' },
            },
            at,
          ),
          sentAt,
        }),
      ).filter((k) => k.startsWith('webhook'));
    expect(s.event('transaction.expired', TX, 'msg_x', T0 + 2000, ++seq)).toEqual([]);
    // sent before the event came: it may show the status before the expiry
    expect(pending(T0 + 2050, T0 + 1990)).toEqual([]);
    expect(pending(T0 + 3000)).toEqual(['webhook-no-transition']);
  });

  /** A token used 10 ms either side of its lifetime's end on a sandbox clock advanced meanwhile; `soleClient`: the judge's setting. */
  function aroundLifetimeEnd(soleClient: boolean): { past: string[]; before: string[]; atEnd: string[][] } {
    const s = new StateTracker({ soleClient });
    const clock = (opId: string, offsetMs: number, at: number, requestJson?: unknown) =>
      s.observe(
        ob(
          {
            opId,
            status: 200,
            testKey: true,
            requestJson,
            json: { now: new Date(at + offsetMs).toISOString(), offsetSeconds: Math.floor(offsetMs / 1000), offsetMilliseconds: offsetMs },
          },
          at,
        ),
      );
    expect(clock('sandboxGetClock', 0, T0 - 100)).toEqual([]);
    const token = 'st_test_clock';
    s.observe(
      ob({ opId: 'createSession', status: 200, testKey: true, json: { token, expiresAt: new Date(T0 + TOKEN_LIFETIME_MS).toISOString() } }),
    );
    s.observe(
      ob({
        opId: 'sandboxPaySession',
        status: 200,
        testKey: true,
        requestJson: { session_token: token, outcome: 'success' },
        json: { transaction_id: TX, status: 'APPROVED' },
      }),
    );
    expect(a2(s, token, 200, T0 + 100)).toEqual([]);
    // the clock moved on by the lifetime less 1 s: ear time T0 + 1000 reads T0 + lifetime on the server
    clock('sandboxAdvanceClock', TOKEN_LIFETIME_MS - 1000, T0 + 200, { milliseconds: TOKEN_LIFETIME_MS - 1000 });
    return {
      past: a2(s, token, 200, T0 + 1000 + 10),
      before: a2(s, token, 401, T0 + 1000 - 10),
      // at the end itself, either answer
      atEnd: [a2(s, token, 200, T0 + 1000), a2(s, token, 401, T0 + 1000)],
    };
  }

  it("accepted 10 ms past its lifetime on an advanced sandbox clock: a finding for the key's sole client (issue and use read off one clock, seconds of real time apart: no tolerance between them); refused 10 ms before it: a finding", () => {
    expect(aroundLifetimeEnd(true)).toEqual({ past: ['token'], before: ['token'], atEnd: [[], []] });
  });

  it('the same, to a judge that may not assume it sees every call: no finding (another client of the key may have reset or advanced the clock meanwhile)', () => {
    expect(aroundLifetimeEnd(false)).toEqual({ past: [], before: [], atEnd: [[], []] });
  });

  it("another session's token answered 200 for the transaction is a finding; refused, none", () => {
    const s = new StateTracker({});
    paidSession(s);
    s.observe(
      ob({ opId: 'createSession', status: 200, json: { token: 'st_test_two', expiresAt: new Date(T0 + TOKEN_LIFETIME_MS).toISOString() } }),
    );
    expect(a2(s, 'st_test_two', 401, T0 + 1000)).toEqual([]);
    expect(a2(s, 'st_test_two', 200, T0 + 1000)).toEqual(['token']);
  });

  it("A1's expiresAt is the issue instant plus the lifetime (mutant: a second late)", () => {
    const s = new StateTracker({});
    const late = { token: 'st_test_late', expiresAt: new Date(T0 + TOKEN_LIFETIME_MS + 1000).toISOString() };
    expect(kinds(s.observe(ob({ opId: 'createSession', status: 200, json: late })))).toEqual(['token']);
  });
});

describe('the rate limit window', () => {
  const { limit, windowSeconds } = rateLimitOf('createSession')!;
  const a1 = (s: StateTracker, at: number, status: number, remaining: number, reset: number) =>
    kinds(
      s.observe(
        ob(
          {
            opId: 'createSession',
            status,
            json:
              status === 200 ? { token: `st_test_${++seq}` } : { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'x', retry_after: reset } },
            responseHeaders: { 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) },
          },
          at,
        ),
      ),
    );

  it('a full window answers 429 until it ends, then counts afresh: no finding', () => {
    const s = new StateTracker({});
    expect(a1(s, T0, 200, 0, 100)).toEqual([]);
    expect(a1(s, T0 + 1000, 429, 0, 99)).toEqual([]);
    expect(a1(s, T0 + 101_000, 200, limit - 1, windowSeconds)).toEqual([]);
  });

  it('a request within the slack of the end that names a new window forgets the full one: no finding after it', () => {
    const s = new StateTracker({});
    expect(a1(s, T0, 200, 0, 100)).toEqual([]);
    // 50 ms after the window's end, within the judge's slack: it may still be the old window, and it names a new one
    expect(a1(s, T0 + 100_050, 200, limit - 1, windowSeconds)).toEqual([]);
    expect(a1(s, T0 + 101_000, 200, limit - 2, windowSeconds - 1)).toEqual([]);
  });

  it('a success in a window an answer showed full is a finding (mutants "rate limit off", "window a minute shorter")', () => {
    const s = new StateTracker({});
    expect(a1(s, T0, 200, 0, 100)).toEqual([]);
    expect(a1(s, T0 + 1000, 200, 0, 99)).toEqual(['rate-limit']);
  });

  it('a wait that names another end of the same window is a finding (mutant "A1\'s wait counted from the request itself")', () => {
    const s = new StateTracker({});
    expect(a1(s, T0, 200, 5, 100)).toEqual([]);
    expect(a1(s, T0 + 3000, 200, 4, 97)).toEqual([]);
    // a whole window again, three seconds later: its end moved
    expect(a1(s, T0 + 6000, 200, 3, 100)).toEqual(['rate-limit']);
  });

  it('a 429 for the first request of a new window is a finding for the key\'s sole client (mutant "window a minute longer")', () => {
    const s = new StateTracker({ soleClient: true });
    expect(a1(s, T0, 429, 0, 10)).toEqual([]);
    expect(a1(s, T0 + 20_000, 429, 0, 50)).toEqual(['rate-limit']);
  });

  it('the same to a judge that may not assume it sees every call: no finding (another client of the key may have filled the new window)', () => {
    const s = new StateTracker({});
    expect(a1(s, T0, 429, 0, 10)).toEqual([]);
    expect(a1(s, T0 + 20_000, 429, 0, 50)).toEqual([]);
  });
});

describe('404 bodies', () => {
  const b2 = (s: StateTracker, id: string, message: string) =>
    kinds(
      s.observe(
        ob({
          opId: 'getPartnerTransaction',
          status: 404,
          params: { transactionId: id },
          json: { error: { message, code: 'TRANSACTION_NOT_FOUND' } },
        }),
      ),
    );
  it("another merchant's transaction reads as a missing one: the same body (member order aside), or a finding", () => {
    const s = new StateTracker({});
    expect(b2(s, TX, 'Transaction not found')).toEqual([]);
    expect(b2(s, '01a21ac0-0000-4000-8000-da7ea11d793a', 'Transaction not found')).toEqual([]);
    expect(b2(s, '01a21ac0-0000-4000-8000-da7ea11d7999', 'Transaction belongs to another merchant')).toEqual(['other-merchant']);
  });
});
