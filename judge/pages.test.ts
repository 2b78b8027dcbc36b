/**
 * A list read page by page (pages.ts): the rules once (size, filter, order by what the list's
 * `x-array-order-by` names), then the judge's reading of a walk through the cursors: a repeated
 * item, a short page with a next cursor, a filter ignored, an item out of the order the ear saw the
 * items made, a list read to its end missing what it must hold.
 */
import { describe, expect, it } from 'vitest';
import { filterProblem, orderKey, orderProblem, pageSizeProblem } from './pages.ts';
import { listed, madeThroughEar, ObservedJudge, smsOf } from './test-support/observe.ts';

describe('the rules, once (the suite and the judge call them)', () => {
  it('a page holds at most `limit` items, exactly `limit` when it gives a next cursor', () => {
    expect(pageSizeProblem(2, 2, true)).toBe(null);
    expect(pageSizeProblem(1, 2, false)).toBe(null);
    expect(pageSizeProblem(1, 2, true)).toBe('short');
    expect(pageSizeProblem(3, 2, false)).toBe('over');
  });

  it('a filter lists only what it names', () => {
    const q = new URLSearchParams({ transactionId: 'tx' });
    expect(filterProblem([{ transactionId: 'tx' }], q, ['transactionId'])).toBe(undefined);
    expect(filterProblem([{ transactionId: 'tx' }, { transactionId: 'ty' }], q, ['transactionId'])).toEqual({
      index: 1,
      member: 'transactionId',
      want: 'tx',
      got: 'ty',
    });
  });

  it('insertion order: by when each item was made, never by its instant; items whose making is not known are not judged', () => {
    const made = new Map([
      ['a', { from: 0, to: 10 }],
      ['b', { from: 20, to: 30 }],
      ['c', { from: 5, to: 25 }],
    ]);
    const key = orderKey('insertion', (item) => made.get(String(item.id)));
    // a reset put the clock back between a and b: b carries the earlier instant, the order is still right
    const items = [
      { id: 'a', sentAt: '2026-11-29T13:00:00.000Z' },
      { id: 'x', sentAt: '2026-11-29T01:00:00.000Z' },
      { id: 'b', sentAt: '2026-11-29T05:00:00.000Z' },
    ];
    expect(orderProblem(items, 1, key).problem).toBe(undefined);
    expect(orderProblem([{ id: 'b' }, { id: 'a' }], 1, key).problem).toEqual({ index: 1, after: 'b' });
    // made while the other was being made: either order
    expect(orderProblem([{ id: 'c' }, { id: 'a' }], 1, key).problem).toBe(undefined);
    expect(orderProblem([{ id: 'a' }, { id: 'c' }], 1, key).problem).toBe(undefined);
    // newest first: the mirror, and across pages through the state a page leaves
    const first = orderProblem([{ id: 'b' }], -1, key);
    expect(orderProblem([{ id: 'a' }], -1, key, first.state).problem).toBe(undefined);
    expect(orderProblem([{ id: 'b' }], -1, key, orderProblem([{ id: 'a' }], -1, key).state).problem).toEqual({ index: 0, after: 'a' });
  });

  it("a member's order (the transactions list, by createdAt): every item judged, ties in any order", () => {
    const key = orderKey('createdAt', () => undefined);
    const at = (id: string, t: string) => ({ id, createdAt: t });
    expect(
      orderProblem([at('b', '2026-11-29T02:00:00Z'), at('a', '2026-11-29T01:00:00Z'), at('c', '2026-11-29T01:00:00Z')], -1, key).problem,
    ).toBe(undefined);
    expect(orderProblem([at('a', '2026-11-29T01:00:00Z'), at('b', '2026-11-29T02:00:00Z')], -1, key).problem).toEqual({
      index: 1,
      after: 'a',
    });
  });
});

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const made = madeThroughEar;
const sms = smsOf;
const outbox = (j: ObservedJudge, data: unknown[], nextCursor: string | null, search: string) =>
  listed(j, 'sandboxListSms', data, T0 + 10_000, { search, ...(nextCursor === null ? {} : { nextCursor }) });
/** Three transactions made through the ear, their outbox read through its cursors in order: no finding. */
type Rec = Record<string, unknown>;
function walked(j: ObservedJudge): [Rec, Rec, Rec] {
  const [a, b, c] = [made(j, T0), made(j, T0 + 100), made(j, T0 + 200)];
  expect(outbox(j, [sms(a, T0), sms(b, T0)], 'c1', 'limit=2')).toEqual([]);
  expect(outbox(j, [sms(c, T0)], null, 'limit=2&cursor=c1')).toEqual([]);
  return [a, b, c];
}

describe('the judge reads a list through its cursors (the SMS outbox: oldest first, in insertion order)', () => {
  it('the messages in the order their transactions were made, whatever their instants (a reset between): no finding; the other order: a finding', () => {
    const j = new ObservedJudge();
    const a = made(j, T0);
    const b = made(j, T0 + 1000);
    // b's message carries an instant hours before a's: the clock was set back between them
    expect(outbox(j, [sms(a, T0 + 36_000_000), sms(b, T0 + 1000)], null, '')).toEqual([]);
    expect(outbox(j, [sms(b, T0 + 1000), sms(a, T0 + 36_000_000)], null, '')).toEqual(['list']);
  });

  it('a walk through the cursors in order, each item once: no finding; a page repeating an item, or short with a next cursor: findings', () => {
    const j = new ObservedJudge();
    const [a, b, c] = walked(j);
    // an inclusive cursor repeats the previous page's last item (the outbox read whole then counts b's message twice)
    expect(outbox(j, [sms(a, T0), sms(b, T0)], 'c2', 'limit=2')).toEqual([]);
    expect(outbox(j, [sms(b, T0), sms(c, T0)], null, 'limit=2&cursor=c2')).toEqual(['list', 'sms']);
    // a page with a next cursor holding fewer than `limit` (an item skipped); without `limit`, the contract's default
    expect(outbox(j, [sms(a, T0)], 'c3', 'limit=2')).toEqual(['list']);
    expect(outbox(j, [sms(a, T0)], 'c4', '')).toEqual(['list']);
  });

  it('a filter listing another transaction\'s item is a finding (mutant "SMS outbox filter by transactionId ignored")', () => {
    const j = new ObservedJudge();
    const [a, b] = [made(j, T0), made(j, T0 + 100)];
    expect(outbox(j, [sms(a, T0)], null, `transactionId=${String(a.id)}`)).toEqual([]);
    expect(outbox(j, [sms(a, T0), sms(b, T0)], null, `transactionId=${String(a.id)}`)).toEqual(['list']);
  });

  it("a list read to its end holds every message of a transaction made before the read began (for the key's sole client: another client may have deleted the data meanwhile)", () => {
    const j = new ObservedJudge({ soleClient: true });
    const [a, b] = walked(j);
    // the second page skipped c: the outbox read whole lacks its confirmation
    expect(outbox(j, [sms(a, T0), sms(b, T0)], 'c3', 'limit=2')).toEqual([]);
    expect(outbox(j, [], null, 'limit=2&cursor=c3')).toEqual(['sms']);
  });
});
