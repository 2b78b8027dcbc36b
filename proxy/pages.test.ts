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
const sms = (id: string, t: number) => ({ id, transactionId: 'tx', sentAt: new Date(t).toISOString() });
const ours = () => true;
const kinds = (j: PageJudge, ob: Observation) => j.page(ob, 'm', 1, ob.search ?? '', ours).map((f) => f.kind);

describe('paged lists (the SMS outbox: oldest first)', () => {
  it('a walk through the cursors in order, each item once: no finding', () => {
    const j = new PageJudge(10);
    expect(kinds(j, page(1, [sms('a', 1), sms('b', 2)], 'c1'))).toEqual([]);
    expect(kinds(j, page(2, [sms('c', 3)], null, 'limit=2&cursor=c1'))).toEqual([]);
  });
  it("a page repeating the previous page's last item (an inclusive cursor) is a finding", () => {
    const j = new PageJudge(10);
    kinds(j, page(1, [sms('a', 1), sms('b', 2)], 'c1'));
    expect(kinds(j, page(2, [sms('b', 2), sms('c', 3)], null, 'limit=2&cursor=c1'))).toEqual(['list']);
  });
  it('a page in the opposite order is a finding, within a page and across pages', () => {
    const j = new PageJudge(10);
    expect(kinds(j, page(1, [sms('b', 2), sms('a', 1)], 'c1'))).toEqual(['list']);
    expect(kinds(j, page(2, [sms('z', 0)], null, 'cursor=c1'))).toEqual(['list']);
  });
});
