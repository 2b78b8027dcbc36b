/** A replayed answer compared with its recorded one by meaning (`paylater judge --replay`). */
import { describe, expect, it } from 'vitest';
import { difference } from './replayed.ts';

describe('the replay compares answers by meaning', () => {
  const sent = new Set(['212612345678', 'cf-3f1a9c2e7b']);
  it('member order never counts; instants and values the server made are not compared; what a request sent is', () => {
    const recorded = {
      id: '01a225c9-8124-7588',
      orderReference: 'ORD-WQWCDQMEVB',
      status: 'PENDING',
      createdAt: '2026-01-01T00:00:00.000Z',
      customerPhone: '212612345678',
      vendorReference: 'cf-3f1a9c2e7b',
      items: [{ quantity: 2 }],
    };
    const now = {
      items: [{ quantity: 2 }],
      vendorReference: 'cf-3f1a9c2e7b',
      customerPhone: '212612345678',
      createdAt: '2026-03-04T05:06:07.891Z',
      status: 'PENDING',
      orderReference: 'ORD-TG555V50FN',
      id: '01a225d2-aa99-7602',
    };
    expect(difference(recorded, now, sent)).toBeUndefined();
    expect(difference(recorded, { ...now, status: 'APPROVED' }, sent)).toEqual({ at: '$.status', recorded: 'PENDING', now: 'APPROVED' });
    expect(difference(recorded, { ...now, customerPhone: '212600000000' }, sent)).toMatchObject({ at: '$.customerPhone' });
    expect(difference(recorded, { ...now, items: [{ quantity: 3 }] }, sent)).toMatchObject({ at: '$.items[0].quantity' });
    expect(difference(recorded, { ...now, updatedAt: null }, sent)).toMatchObject({ at: '$.updatedAt' });
    expect(
      difference(
        { error: { code: 'RATE_LIMIT_EXCEEDED', retry_after: 12 } },
        { error: { retry_after: 9, code: 'RATE_LIMIT_EXCEEDED' } },
        sent,
      ),
    ).toBeUndefined();
  });

  it('a token the server made is not a word of a vocabulary, even without a digit', () => {
    // a random session token of letters alone (a few in a hundred): two of them are not compared
    expect(difference({ token: 'st_test_QxKpWbLmRtZcVnHy' }, { token: 'st_test_AbCdEfGhIjKlMnOp' }, sent)).toBeUndefined();
    expect(difference({ event: 'transaction.approved' }, { event: 'transaction.cancelled' }, sent)).toMatchObject({ at: '$.event' });
    expect(difference({ outcome: 'success' }, { outcome: 'failed' }, sent)).toMatchObject({ at: '$.outcome' });
  });
});
