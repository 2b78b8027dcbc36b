/** Sandbox: the SMS outbox holds one confirmation per partner transaction created, to its customer's phone. */
import type { Exchange } from '../http.ts';
import { judgeSms, type ListedSms, type SmsKnowledge } from '../../judge/sms.ts';
import type { Cmd, Model, Real } from '../model.ts';
import type { Tx, World } from '../world.ts';

const OP = 'sandboxListSms';

/** Names a page may give its next cursor under (a list is read whole, paginated or not). */
const NEXT_CURSOR_FIELDS = ['nextCursor', 'next_cursor'];
/** Pages read at most per list (a server whose cursor never ends is a finding, not a hang). */
const MAX_PAGES = 100;

/**
 * Every item of a sandbox list endpoint (`{ data: [...] }`), following a next cursor when a page
 * gives one (sent back as `cursor`, with the same `query`), read with `key` (the main merchant's by
 * default). Each page is checked against the contract like any answer.
 */
export async function readAllPages(
  w: World,
  opId: string,
  query: Record<string, string> = {},
  key: string = w.cfg.apiKey,
): Promise<{ items: Record<string, unknown>[]; pages: Exchange[] }> {
  const items: Record<string, unknown>[] = [];
  const pages: Exchange[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const ex = await w.client.call(opId, { headers: w.auth(opId, key), query: { ...query, ...(cursor ? { cursor } : {}) } });
    w.expectOutcome(ex, [w.success(opId)]);
    pages.push(ex);
    const page = ex.json as Record<string, unknown>;
    items.push(...((page.data as Record<string, unknown>[] | undefined) ?? []));
    const next = NEXT_CURSOR_FIELDS.map((f) => page[f]).find((v) => typeof v === 'string' && v.length > 0) as string | undefined;
    if (!next) return { items, pages };
    cursor = next;
  }
  w.check(false, opId, '$', `the list still gives a next cursor after ${MAX_PAGES} pages`);
  return { items, pages };
}

/** The suite's knowledge of `who`'s outbox: its partner transactions (their created customerPhone), the other merchant's. */
function suiteKnowledge(w: World, who: Tx['who'] = 'main'): SmsKnowledge {
  const own = (id: string) => {
    const tx = w.state.txs.get(id);
    return tx && tx.kind === 'partner' && tx.who === who ? tx : undefined;
  };
  return {
    foreign: (id) => {
      const owner = w.state.txs.get(id)?.who;
      return owner !== undefined && owner !== who;
    },
    toItsPhone: (id, to) => {
      const tx = own(id);
      return tx === undefined ? undefined : to === tx.created.customerPhone;
    },
    made: function* () {
      for (const tx of w.state.txs.values()) if (own(tx.id)) yield [tx.id, -Infinity];
    },
  };
}

/**
 * The SMS outbox read for one transaction of this run (the `transactionId` filter: the outbox is
 * oldest first and holds every earlier run's messages), with its merchant's key, in pages of
 * `limit` when given: only that transaction's messages on every page, one confirmation, to its
 * customerPhone.
 * @checks confirmation-sms
 */
export async function checkConfirmationSms(w: World, tx: Tx, limit?: number): Promise<void> {
  const query: Record<string, string> = { transactionId: tx.id, ...(limit === undefined ? {} : { limit: String(limit) }) };
  const { items, pages } = await readAllPages(w, OP, query, w.key(tx.who));
  const req = `GET ${new URL(pages[0]!.url).pathname}?transactionId=${tx.id}`;
  const phone = tx.created.customerPhone;
  for (const v of judgeSms(items, suiteKnowledge(w, tx.who), { only: tx.id, sentAt: Infinity }))
    if (v.problem === 'count')
      w.check(false, OP, '$.data', `${req}: ${v.n} SMS for transaction ${tx.id}; B1 sends the customer one`, 1, v.n);
    else if (v.problem === 'phone')
      w.check(
        false,
        OP,
        '$.data[].to',
        `${req}: the SMS for transaction ${tx.id} went to ${String(v.to)}, its customerPhone is ${String(phone)}`,
        phone,
        v.to,
      );
}

/**
 * The SMS outbox read to its end (`items`, oldest first): every partner transaction the main
 * merchant created in this suite has its one confirmation, to its customerPhone, and no other
 * merchant's message is listed. Messages of earlier suites or other clients of the key may be
 * listed too: the outbox is a superset of the model.
 * @checks confirmation-sms
 */
export function checkOutboxRead(w: World, items: readonly ListedSms[]): void {
  for (const v of judgeSms(items, suiteKnowledge(w), { only: null, sentAt: Infinity })) {
    const tx = w.state.txs.get(v.id);
    if (v.problem === 'foreign')
      w.check(false, OP, '$.data[].transactionId', `the outbox lists an SMS of the other merchant's transaction ${v.id}`, 0, 1);
    else if (v.problem === 'count')
      w.check(
        false,
        OP,
        '$.data',
        `${v.n} SMS for transaction ${v.id} in the outbox read to its end; B1 sends its customer one${v.n ? '' : ' (a page skipped it)'}`,
        1,
        v.n,
      );
    else
      w.check(
        false,
        OP,
        '$.data[].to',
        `the SMS for transaction ${v.id} went to ${String(v.to)}, its customerPhone is ${String(tx?.created.customerPhone)}`,
        tx?.created.customerPhone,
        v.to,
      );
  }
}

/** Every partner transaction this run created with the merchant's key has its one confirmation SMS. */
export class SmsOutbox implements Cmd {
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.txs.some((t) => t.kind === 'partner' && t.who === 'main');
  }
  async run(m: Model, w: Real): Promise<void> {
    for (const tx of m.txs.filter((t) => t.kind === 'partner' && t.who === 'main')) await checkConfirmationSms(w, tx);
  }
  toString(): string {
    return 'smsOutbox()';
  }
}
