/**
 * `POST /api/v1/sandbox/reset` (ADR-041): the caller's clock back to real time, its
 * rate-limit windows forgotten, and with `deleteData` its records deleted, in one transaction.
 */
import { defaultMerchantState } from '../core.ts';
import { iso } from '../domain/clock.ts';
import type { CollectionName, MerchantStateRecord } from '../domain/types.ts';
import { rateLimitKeyPrefix } from '../http/rate-limit.ts';
import type { Handlers } from './context.ts';

/** The merchant's records a reset with `deleteData` deletes (its state is kept: the clock is reset). */
const MERCHANT_DATA: CollectionName[] = ['transactions', 'sessions', 'paymentIntents', 'sms', 'outbox'];

export const sandboxResetHandlers: Handlers<'sandboxReset'> = {
  /**
   * The caller's clock offset to 0 (and its monotonic floor forgotten), its rate-limit windows
   * forgotten, its records deleted with `deleteData`; written in one transaction.
   * @rule ADR-041
   */
  async sandboxReset(core, ctx) {
    const { deleteData = false } = ctx.body;
    const id = ctx.merchant.id;
    const { state, deleted } = await core.repo.transaction(async (tx) => {
      const st: MerchantStateRecord = (await tx.lock('merchantState', id)) ?? defaultMerchantState(id);
      const counts = { transactions: 0, sessions: 0, sms: 0, deliveries: 0 };
      if (deleteData) {
        counts.transactions = await tx.count('transactions', id);
        counts.sessions = await tx.count('sessions', id);
        counts.sms = await tx.count('sms', id);
        counts.deliveries = await tx.count('outbox', id);
        tx.deleteMerchantData(id, MERCHANT_DATA);
      }
      const next = { ...st, clockOffsetMs: 0 };
      tx.write([{ c: 'merchantState', k: id, v: next }]);
      return { state: next, deleted: counts };
    });
    await core.repo.resetWindows(rateLimitKeyPrefix(id));
    core.stateWritten(state);
    core.time.forget(id);
    return { status: 200, body: { now: iso(core.now(id)), offsetSeconds: 0, offsetMilliseconds: 0, deleted } };
  },
};
