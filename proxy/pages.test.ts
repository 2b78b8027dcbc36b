/** A list read page by page (pages.ts): a repeated item and an item out of the list's order are findings; a correct walk none. */
import { describe, expect, it } from 'vitest';
import { PageJudge } from './pages.ts';
import type { Observation } from './finding.ts';

const page = (seq: number, data: unknown[], nextCursor: string | null, search = ''): Observation => ({
  seq,
  opId: 'sandboxListSms',
  merchant: 'm',
  params: {},
  requestJson: undefined,
  status: 200,
  json: { data, nextCursor },
  sentAt: 0,
  receivedAt: 0,
  search,
});
const sms = (id: string, t: number, transactionId = 'tx') => ({ id, transactionId, sentAt: new Date(t).toISOString() });
const ours = () => true;
const kinds = (j: PageJudge, ob: Observation) => j.page(ob, 'm', 1, ob.search ?? '', { ours }).map((f) => f.kind);

describe('paged lists (the SMS outbox: oldest first)', () => {
  it('a walk through the cursors in order, each item once: no finding', () => {
    const j = new PageJudge(10);
    expect(kinds(j, page(1, [sms('a', 1), sms('b', 2)], 'c1', 'limit=2'))).toEqual([]);
    expect(kinds(j, page(2, [sms('c', 3)], null, 'limit=2&cursor=c1'))).toEqual([]);
  });
  it("a page repeating the previous page's last item (an inclusive cursor) is a finding", () => {
    const j = new PageJudge(10);
    kinds(j, page(1, [sms('a', 1), sms('b', 2)], 'c1', 'limit=2'));
    expect(kinds(j, page(2, [sms('b', 2), sms('c', 3)], null, 'limit=2&cursor=c1'))).toEqual(['list']);
  });
  it('a page in the opposite order is a finding, within a page and across pages', () => {
    const j = new PageJudge(10);
    expect(kinds(j, page(1, [sms('b', 2), sms('a', 1)], 'c1', 'limit=2'))).toEqual(['list']);
    expect(kinds(j, page(2, [sms('z', 0)], null, 'limit=2&cursor=c1'))).toEqual(['list']);
  });
  it('a page with a next cursor holding fewer than `limit` items is a finding (mutant "every page after the first skips its first item"); the last page may be shorter', () => {
    const j = new PageJudge(10);
    expect(kinds(j, page(1, [sms('a', 1), sms('b', 2)], 'c1', 'limit=2'))).toEqual([]);
    expect(kinds(j, page(2, [sms('d', 4)], 'c2', 'limit=2&cursor=c1'))).toEqual(['list']);
    expect(kinds(j, page(3, [sms('f', 6)], null, 'limit=2&cursor=c2'))).toEqual([]);
    // without `limit`: the contract's default page size (50)
    expect(kinds(j, page(4, [sms('a', 1)], 'c4'))).toEqual(['list']);
  });
  it('a filtered list listing another transaction\'s item is a finding (mutant "SMS outbox filter by transactionId ignored")', () => {
    const j = new PageJudge(10);
    expect(kinds(j, page(1, [sms('a', 1, 'tx')], null, 'transactionId=tx'))).toEqual([]);
    expect(kinds(j, page(2, [sms('a', 1, 'tx'), sms('b', 2, 'ty')], null, 'transactionId=tx'))).toEqual(['list']);
  });
  it('a list read to its end must hold what the caller expected when the read began; the whole walk is handed to the caller', () => {
    const j = new PageJudge(10);
    const walks: string[][] = [];
    const know = {
      ours,
      expected: () => ({ member: 'id', ids: ['a', 'b', 'c'] }),
      complete: (w: { items: { id?: unknown }[] }) => (walks.push(w.items.map((x) => String(x.id))), []),
    };
    const run = (ob: Observation) => j.page(ob, 'm', 1, ob.search ?? '', know).map((f) => f.kind);
    expect(run(page(1, [sms('a', 1), sms('b', 2)], 'c1', 'limit=2'))).toEqual([]);
    expect(run(page(2, [sms('c', 3)], null, 'limit=2&cursor=c1'))).toEqual([]);
    expect(walks).toEqual([['a', 'b', 'c']]);
    // the second page skipped c: the walk does not hold it
    expect(run(page(3, [sms('a', 1), sms('b', 2)], 'c3', 'limit=2'))).toEqual([]);
    expect(run(page(4, [], null, 'limit=2&cursor=c3'))).toEqual(['list']);
  });
});
