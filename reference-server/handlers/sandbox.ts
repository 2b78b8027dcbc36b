/** Sandbox operations (`x-sandbox`): customer actions, session payment, the merchant's clock, SMS and webhook logs. */
import { errorMessage } from '../../lib/error-messages.ts';
import { pageOf } from './page.ts';
import { iso } from '../domain/clock.ts';
import { sha256 } from '../domain/ids.ts';
import { isTokenLive } from '../domain/token.ts';
import { partnerView } from '../domain/transactions.ts';
import type { Change } from '../domain/types.ts';
import { ApiError, invalidToken } from '../http/errors.ts';
import type { OutboxEvent } from '../webhooks/contracts.ts';
import { merchantNow, newPaymentIntent, ownTransaction, transition } from './common.ts';
import type { Handler } from './context.ts';
import { paySession } from './pay-session.ts';

/** A delivery as the sandbox lists it: the outbox record without its owner. */
function deliveryView(e: OutboxEvent) {
  const { merchantId: _m, ...rest } = e;
  return rest;
}

/** A customer or system action on one of the caller's transactions, by the operation's transition. */
const customerAction: Handler = async (core, ctx) => {
  const tx = ownTransaction(core, ctx, ctx.params.transactionId!, null);
  return { status: 200, body: partnerView(await transition(core, ctx.op.operationId, tx), core.view(ctx.merchant)) };
};

export const sandboxHandlers: Record<string, Handler> = {
  sandboxConfirmTransaction: customerAction,
  sandboxCancelTransaction: customerAction,
  sandboxCompleteTransaction: customerAction,

  async sandboxPaySession(core, ctx) {
    const body = ctx.body as { session_token: string; outcome: 'success' | 'failed'; customerPhone?: string };
    const s = core.store.sessionByTokenDigest(sha256(body.session_token));
    if (!s) throw invalidToken();
    if (s.merchantId !== ctx.merchant.id) throw new ApiError('SESSION_NOT_FOUND', errorMessage('SESSION_NOT_FOUND'));
    const now = merchantNow(core, ctx);
    if (!isTokenLive(s, now)) throw invalidToken();
    const existing = s.paymentIntentId ? core.store.get('paymentIntents', s.paymentIntentId) : undefined;
    const intent = existing ?? newPaymentIntent(s, now);
    return paySession(core, s, intent, !existing, body.outcome, body.customerPhone);
  },

  async sandboxGetClock(core, ctx) {
    return {
      status: 200,
      body: { now: iso(merchantNow(core, ctx)), offsetSeconds: core.merchantState(ctx.merchant.id).clockOffsetSeconds },
    };
  },

  async sandboxAdvanceClock(core, ctx) {
    const { seconds } = ctx.body as { seconds: number };
    const st = core.merchantState(ctx.merchant.id);
    const next = { ...st, clockOffsetSeconds: st.clockOffsetSeconds + seconds };
    const changes: Change[] = [{ c: 'merchantState', k: st.id, v: next }];
    // Apply the new offset, then expire what the move made due; both join one group commit.
    const pending = core.store.commit(changes);
    const expiries = core.sweepChanges(ctx.merchant.id);
    await Promise.all([pending, expiries.length > 0 ? core.store.commit(expiries) : undefined]);
    core.dispatcher?.kick();
    return { status: 200, body: { now: iso(merchantNow(core, ctx)), offsetSeconds: next.clockOffsetSeconds } };
  },

  async sandboxListSms(core, ctx) {
    const page = pageOf(core.store.smsOf(ctx.merchant.id), (m) => m.id, ctx.query);
    return { status: 200, body: { data: page.data.map(({ merchantId: _m, ...rest }) => rest), nextCursor: page.nextCursor } };
  },

  async sandboxListWebhookDeliveries(core, ctx) {
    const page = pageOf(await core.repository.list(ctx.merchant.id), (e) => e.id, ctx.query);
    return { status: 200, body: { data: page.data.map(deliveryView), nextCursor: page.nextCursor } };
  },

  async sandboxRedeliverWebhook(core, ctx) {
    const id = ctx.params.deliveryId!;
    const e = await core.repository.get(ctx.merchant.id, id);
    if (!e) throw new ApiError('DELIVERY_NOT_FOUND', errorMessage('DELIVERY_NOT_FOUND'));
    const after = core.dispatcher
      ? await core.dispatcher.redeliver(ctx.merchant.id, id)
      : await core.requeueWithoutEngine(ctx.merchant.id, id);
    if (!after) throw new ApiError('DELIVERY_NOT_FOUND', errorMessage('DELIVERY_NOT_FOUND'));
    return { status: 200, body: deliveryView(after) };
  },
};
