/**
 * `GET /api/v1/sandbox/transactions` (ADR-045): the caller's transactions, newest first, as they
 * read now, filtered by `status` and `vendorReference`, one page at a time (ADR-028).
 */
import { partnerView } from '../domain/transactions.ts';
import type { TransactionRecord } from '../domain/types.ts';
import type { Page as StorePage } from '../store/repository.ts';
import { readFreshAll } from './common.ts';
import type { Handlers } from './context.ts';
import { readPage } from './page.ts';

/** Transactions read per repository page while a filter looks for a page's worth. */
const SCAN = 500;

/** True when `a` comes before `b` in the list's order (newest first, then id descending). */
function before(a: TransactionRecord, b: TransactionRecord): boolean {
  const d = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  return d !== 0 ? d < 0 : a.id > b.id;
}

export const sandboxTransactionHandlers: Handlers<'sandboxListTransactions'> = {
  async sandboxListTransactions(core, ctx) {
    const q = ctx.query;
    const status = typeof q.status === 'string' ? q.status : undefined;
    const vendorReference = typeof q.vendorReference === 'string' ? q.vendorReference : undefined;
    const id = ctx.merchant.id;
    const matches = (t: TransactionRecord): boolean =>
      (status === undefined || t.status === status) && (vendorReference === undefined || t.vendorReference === vendorReference);
    let after: TransactionRecord | undefined;
    const page = await readPage(
      q,
      async (limit, cursor): Promise<StorePage<TransactionRecord>> => {
        if (vendorReference !== undefined) {
          // at most one transaction: read through the index, not the list
          const t = await core.repo.transactionByVendorReference(id, vendorReference);
          const [fresh] = t ? await readFreshAll(core, id, [t]) : [];
          return { items: fresh && matches(fresh) && (!after || before(after, fresh)) ? [fresh] : [], next: null };
        }
        // a page of `limit` matching transactions (each as it reads now), scanning the list from the cursor
        const items: TransactionRecord[] = [];
        for (let c = cursor; ;) {
          const raw = await core.repo.transactionsPage(id, SCAN, c);
          const fresh = await readFreshAll(core, id, raw.items);
          for (const [i, t] of fresh.entries()) {
            if (!matches(t)) continue;
            items.push(t);
            if (items.length === limit) {
              const more = i < fresh.length - 1 || raw.next !== null;
              return { items, next: more ? t.id : null };
            }
          }
          if (raw.next === null) return { items, next: null };
          c = raw.next;
        }
      },
      async (k) => {
        const t = await core.repo.get('transactions', k);
        if (t?.merchantId !== id) return false;
        after = t;
        return true;
      },
    );
    const view = core.view(ctx.merchant);
    return { status: 200, body: { data: page.data.map((t) => partnerView(t, view)), nextCursor: page.nextCursor } };
  },
};
