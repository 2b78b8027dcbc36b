/** `GET /api/v1/sandbox/transactions` (ADR-045): the caller's transactions, newest first, as they read now. */
import { partnerView } from '../domain/transactions.ts';
import type { Change, TransactionRecord } from '../domain/types.ts';
import type { Handler } from './context.ts';

export const sandboxTransactionHandlers: Record<string, Handler> = {
  async sandboxListTransactions(core, ctx) {
    const q = ctx.query;
    const status = typeof q.status === 'string' ? q.status : undefined;
    const vendorReference = typeof q.vendorReference === 'string' ? q.vendorReference : undefined;
    const now = core.now(ctx.merchant.id);
    const changes: Change[] = [];
    const list: TransactionRecord[] = [];
    for (const t of core.store.merchantTransactions(ctx.merchant.id)) {
      const tx = core.fresh(t, now, changes);
      if (status !== undefined && tx.status !== status) continue;
      if (vendorReference !== undefined && tx.vendorReference !== vendorReference) continue;
      list.push(tx);
    }
    if (changes.length > 0) await core.commit(changes);
    list.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
    const view = core.view(ctx.merchant);
    return { status: 200, body: { data: list.map((t) => partnerView(t, view)) } };
  },
};
