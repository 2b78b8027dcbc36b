/**
 * `POST /api/v1/sandbox/reset` (ADR-041): the caller's clock back to real time, its
 * rate-limit windows forgotten, and with `deleteData` its records deleted, in one store write.
 */
import { iso } from '../domain/clock.ts';
import type { Change } from '../domain/types.ts';
import type { Core } from '../core.ts';
import type { Handler } from './context.ts';

/** The deletions of every record of `merchantId` (transactions, sessions, payment intents, SMS, deliveries), with counts. */
export function merchantDataDeletions(
  core: Core,
  merchantId: string,
): { changes: Change[]; deleted: { transactions: number; sessions: number; sms: number; deliveries: number } } {
  const store = core.store;
  const changes: Change[] = [];
  const deleted = { transactions: 0, sessions: 0, sms: 0, deliveries: 0 };
  for (const t of store.merchantTransactions(merchantId)) {
    changes.push({ c: 'transactions', k: t.id, v: null });
    deleted.transactions += 1;
  }
  for (const s of store.values('sessions')) {
    if (s.merchantId !== merchantId) continue;
    changes.push({ c: 'sessions', k: s.id, v: null });
    deleted.sessions += 1;
  }
  for (const p of store.values('paymentIntents')) if (p.merchantId === merchantId) changes.push({ c: 'paymentIntents', k: p.id, v: null });
  for (const m of store.smsOf(merchantId)) {
    changes.push({ c: 'sms', k: m.id, v: null });
    deleted.sms += 1;
  }
  for (const e of store.outboxOf(merchantId)) {
    changes.push({ c: 'outbox', k: e.id, v: null });
    deleted.deliveries += 1;
  }
  return { changes, deleted };
}

export const sandboxResetHandlers: Record<string, Handler> = {
  /**
   * The caller's clock offset to 0 (and its monotonic floor forgotten), its rate-limit windows
   * forgotten, its records deleted with `deleteData`; written in one commit.
   * @rule ADR-041
   */
  async sandboxReset(core, ctx) {
    const { deleteData = false } = ctx.body as { deleteData?: boolean };
    const id = ctx.merchant.id;
    const st = core.merchantState(id);
    const { changes, deleted } = deleteData
      ? merchantDataDeletions(core, id)
      : { changes: [], deleted: { transactions: 0, sessions: 0, sms: 0, deliveries: 0 } };
    changes.push({ c: 'merchantState', k: id, v: { ...st, clockOffsetSeconds: 0 } });
    for (const forget of core.onSandboxReset) forget(id);
    await core.commit(changes);
    core.time.forget(id);
    return { status: 200, body: { now: iso(core.now(id)), offsetSeconds: 0, deleted } };
  },
};
