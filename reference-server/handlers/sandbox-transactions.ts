/** `GET /api/v1/sandbox/transactions` (ADR-045): the caller's transactions, newest first, as they read now. */
import { partnerView } from '../domain/transactions.ts';
import type { TransactionRecord } from '../domain/types.ts';
import { readFreshAll } from './common.ts';
import type { Handler } from './context.ts';

/** Transactions read per repository page. */
const PAGE = 1000;

export const sandboxTransactionHandlers: Record<string, Handler> = {
  async sandboxListTransactions(core, ctx) {
    const q = ctx.query;
    const status = typeof q.status === 'string' ? q.status : undefined;
    const vendorReference = typeof q.vendorReference === 'string' ? q.vendorReference : undefined;
    const id = ctx.merchant.id;
    const all: TransactionRecord[] = [];
    let cursor: string | null = null;
    do {
      const page = await core.repo.transactionsPage(id, PAGE, cursor);
      all.push(...page.items);
      cursor = page.next;
    } while (cursor !== null);
    const list = (await readFreshAll(core, id, all)).filter(
      (tx) => (status === undefined || tx.status === status) && (vendorReference === undefined || tx.vendorReference === vendorReference),
    );
    const view = core.view(ctx.merchant);
    return { status: 200, body: { data: list.map((t) => partnerView(t, view)) } };
  },
};
