import { describe, expect, it } from 'vitest';
import { stateMachine } from '../../generated/contract.ts';
import { attempt } from './stateMachine.ts';
import { EXPIRY, at, expiredBy } from '../../model/index.ts';
import { localDateTime, parseDuration, MerchantTime, ManualClock } from './clock.ts';
import { isAllowedOrigin, isAllowedRedirect, withRedirectParams } from './redirect.ts';

describe('state machine interpreter (reads x-state-machine)', () => {
  const now = 1_000_000;
  it('follows every transition of the spec from each of its from-states', () => {
    for (const t of stateMachine.transitions) {
      const from = t.from === null ? [null] : t.from;
      for (const f of from) {
        const ctx = { now: t.id === 'expire' ? now + 10 : now, expiresAt: now + 1, outcome: 'success' as const };
        const r = attempt(t.trigger.operationId, f, ctx);
        if (t.trigger.operationId === 'sandboxPaySession' && f === null) expect(r).toMatchObject({ ok: true, to: 'PENDING' });
        else expect(r, `${t.id} from ${f}`).toMatchObject({ ok: true, to: t.to, emits: t.emits ?? null });
      }
    }
  });
  it('answers every rejection of the spec with its status and code', () => {
    for (const r of stateMachine.rejections) {
      for (const f of r.from) {
        expect(attempt(r.trigger.operationId, f, { now, expiresAt: now + 1 })).toMatchObject({
          ok: false,
          kind: 'rejected',
          status: r.status,
          code: r.code,
        });
      }
    }
  });
  it('guards the window: confirm before the edge, expire exactly at it', () => {
    expect(attempt('sandboxConfirmTransaction', 'PENDING', { now: 99, expiresAt: 100 }).ok).toBe(true);
    expect(attempt('sandboxConfirmTransaction', 'PENDING', { now: 100, expiresAt: 100 })).toMatchObject({ ok: false, kind: 'guard' });
    expect(expiredBy(at(99), at(100))).toBe('no');
    expect(expiredBy(at(100), at(100))).toBe('yes');
    expect(EXPIRY.from).toEqual(['PENDING']);
    expect(attempt('sandboxPaySession', 'PENDING', { now: 1, expiresAt: 100, outcome: 'failed' })).toMatchObject({
      ok: false,
      kind: 'guard',
    });
  });
});

describe('clock and dates', () => {
  it('DD/MM/YY HH:MM:SS in UTC (ADR-007)', () => {
    expect(localDateTime(Date.UTC(2026, 10, 20, 14, 5, 9))).toBe('20/11/26 14:05:09');
    expect(localDateTime(Date.UTC(2027, 0, 2, 3, 4, 5))).toBe('02/01/27 03:04:05');
  });
  it('durations', () => {
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('90s')).toBe(90);
    expect(parseDuration('1800')).toBe(1800);
    for (const bad of ['', '0', '0m', '-5', 'abc', '5x']) expect(parseDuration(bad)).toBeNull();
  });
  it('merchant time: base + own offset (ms, ADR-085), never backwards', () => {
    const base = new ManualClock(1000);
    const offsets: Record<string, number> = { a: 60_000, b: 0 };
    const t = new MerchantTime(base, (id) => offsets[id] ?? 0);
    expect(t.now('a')).toBe(61_000);
    expect(t.now('b')).toBe(1000);
    base.set(500); // base clock stepped back
    expect(t.now('b')).toBe(1000);
  });
});

describe('redirect policy (ADR-017)', () => {
  const allowed = ['https://shop.example', 'http://127.0.0.1:4010'];
  it('accepts exact origins only', () => {
    expect(isAllowedRedirect('https://shop.example/thanks?x=1', allowed, false)).toBe(true);
    expect(isAllowedRedirect('http://127.0.0.1:4010/r', allowed, true)).toBe(true);
    expect(isAllowedRedirect('http://127.0.0.1:4010/r', allowed, false)).toBe(false); // http only on loopback in the sandbox
    for (const bad of [
      'https://shop.example.evil.example/',
      'https://evil.example@shop.example/',
      'https://shop.example@evil.example/',
      '//shop.example/',
      'javascript://shop.example/%0aalert(1)',
      'https:\\\\shop.example',
      ' https://shop.example/',
      'https://shop.example:444/',
    ]) {
      expect(isAllowedRedirect(bad, allowed, true), bad).toBe(false);
    }
    expect(isAllowedOrigin('https://shop.example', allowed, false)).toBe(true);
    expect(isAllowedOrigin('https://shop.example/', allowed, false)).toBe(false);
  });
});

describe('withRedirectParams (ADR-014)', () => {
  it('adds status and transaction_id, replacing or removing any already in the URL', () => {
    const u = 'https://m.example/r?order=1&status=SUCCESS&transaction_id=forged';
    expect(withRedirectParams(u, 'CANCELLED', null)).toBe('https://m.example/r?order=1&status=CANCELLED');
    expect(withRedirectParams(u, 'FAILED', 'tx')).toBe('https://m.example/r?order=1&status=FAILED&transaction_id=tx');
  });
});
