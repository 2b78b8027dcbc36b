/**
 * The model's time verdicts over a request in flight: the server reads its clock at some moment
 * between sending and answering, so an expiry (payment window, token lifetime) that falls inside
 * that interval may or may not show; one that fell before the request was sent must show.
 */
import { describe, expect, it } from 'vitest';
import { tokenLifetimeSeconds } from '../generated/index.ts';
import { possibleStatuses } from './commands/advanceClock.ts';
import { tokenExpired, tokenExpiredDuring } from './commands/verifyByToken.ts';
import { World, type Session, type Tx } from './world.ts';

const WINDOW_S = 1800;

function world(): World {
  return new World({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'sk_test_a',
    otherApiKey: 'sk_test_b',
    variant: 1,
    profile: 'sandbox',
    paymentWindowSeconds: WINDOW_S,
  });
}

/** A PENDING transaction created `ageMs` ago (its creation request took 5 ms). */
function txAged(ageMs: number): Tx {
  const at = performance.now() - ageMs;
  return {
    id: 'x',
    who: 'main',
    kind: 'checkout',
    status: 'PENDING',
    vendorReference: null,
    created: {},
    sentAt: at,
    receivedAt: at + 5,
    advAtCreation: 0,
    runId: 1,
  };
}

describe('time verdicts over a request in flight', () => {
  it('a window ending while the request is in flight allows PENDING and EXPIRED (a slow answer is not a finding)', () => {
    const w = world();
    const tx = txAged(WINDOW_S * 1000 - 1000);
    const now = performance.now();
    // judged at the moment of sending only, the expiry looks excluded
    expect(possibleStatuses(w.state, tx, performance.now())).toEqual(['PENDING']);
    // the answer came 2 s later: the server may have read its clock after the window ended
    expect(possibleStatuses(w.state, tx, now, { sentAt: now, receivedAt: now + 2000 })).toEqual(['PENDING', 'EXPIRED']);
    expect(tx.status).toBe('PENDING');
  });
  it('a window that ended before the request was sent must show EXPIRED', () => {
    const w = world();
    const tx = txAged(WINDOW_S * 1000 + 1000);
    const now = performance.now();
    expect(possibleStatuses(w.state, tx, now, { sentAt: now, receivedAt: now + 10 })).toEqual(['EXPIRED']);
    expect(tx.status).toBe('EXPIRED');
  });
  it('a quick answer well inside the window allows PENDING only', () => {
    const w = world();
    const tx = txAged(60_000);
    const now = performance.now();
    expect(possibleStatuses(w.state, tx, now, { sentAt: now, receivedAt: now + 10 })).toEqual(['PENDING']);
  });
  it('a token lifetime ending in flight may or may not show; one ended before sending must', () => {
    const w = world();
    const at = performance.now() - tokenLifetimeSeconds * 1000 + 1000;
    const s: Session = { token: 't', who: 'main', total: 600, sentAt: at, receivedAt: at + 5, advAtCreation: 0 };
    const now = performance.now();
    expect(tokenExpired(w.state, s, now)).toBe('no');
    expect(tokenExpiredDuring(w.state, s, { sentAt: now, receivedAt: now + 2000 })).toBe('maybe');
    expect(tokenExpiredDuring(w.state, s, { sentAt: now + 2000, receivedAt: now + 2010 })).toBe('yes');
    expect(tokenExpiredDuring(w.state, s, { sentAt: now, receivedAt: now + 10 })).toBe('no');
  });
});
