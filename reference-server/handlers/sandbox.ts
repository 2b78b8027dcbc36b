/** Sandbox operations (`x-sandbox`): customer actions, session payment, the merchant's clock, SMS and webhook logs. */
import { errorMessage } from '../../lib/error-messages.ts';
import { readPage } from './page.ts';
import { iso } from '../domain/clock.ts';
import { sha256 } from '../domain/ids.ts';
import { isTokenLive } from '../domain/token.ts';
import { partnerView } from '../domain/transactions.ts';
import type { SessionRecord } from '../domain/types.ts';
import type { Core } from '../core.ts';
import type { RepositoryTx } from '../store/repository.ts';
import { ApiError, invalidToken } from '../http/errors.ts';
import type { OutboxEvent } from '../domain/outbox-event.ts';
import { merchantNow, newPaymentIntent, ownTransaction, transition } from './common.ts';
import type { Handlers, OperationCtx } from './context.ts';
import { paySession } from './pay-session.ts';

/** A delivery as the sandbox lists it: the outbox record without its owner. */
function deliveryView(e: OutboxEvent) {
  const { merchantId: _m, ...rest } = e;
  return rest;
}

/**
 * A clock's offset as the sandbox answers it (ADR-085): whole seconds rounded down, and exact milliseconds.
 * @rule ADR-085
 */
function clockOffset(ms: number): { offsetSeconds: number; offsetMilliseconds: number } {
  return { offsetSeconds: Math.floor(ms / 1000), offsetMilliseconds: ms };
}

/** A customer or system action on one of the caller's transactions, by the operation's transition. */
const customerAction = async (
  core: Core,
  ctx: OperationCtx<'sandboxConfirmTransaction' | 'sandboxCancelTransaction' | 'sandboxCompleteTransaction'>,
) => {
  const t = await transition(core, ctx.op.operationId, (tx) => ownTransaction(tx, ctx, ctx.params.transactionId, null));
  return { status: 200 as const, body: partnerView(t, core.view(ctx.merchant)) };
};

export const sandboxHandlers: Handlers<
  | 'sandboxConfirmTransaction'
  | 'sandboxCancelTransaction'
  | 'sandboxCompleteTransaction'
  | 'sandboxPaySession'
  | 'sandboxGetClock'
  | 'sandboxAdvanceClock'
  | 'sandboxListSms'
  | 'sandboxListWebhookDeliveries'
  | 'sandboxRedeliverWebhook'
> = {
  sandboxConfirmTransaction: customerAction,
  sandboxCancelTransaction: customerAction,
  sandboxCompleteTransaction: customerAction,

  async sandboxPaySession(core, ctx) {
    const body = ctx.body;
    const s = await core.repo.sessionByTokenDigest(sha256(body.session_token));
    if (!s) throw invalidToken();
    if (s.merchantId !== ctx.merchant.id) throw new ApiError('SESSION_NOT_FOUND', errorMessage('SESSION_NOT_FOUND'));
    if (!isTokenLive(s, merchantNow(core, ctx))) throw invalidToken();
    const pickIntent = async (tx: RepositoryTx, session: SessionRecord) => {
      const existing = session.paymentIntentId ? await tx.get('paymentIntents', session.paymentIntentId) : undefined;
      return existing ? { intent: existing, isNew: false } : { intent: newPaymentIntent(session, merchantNow(core, ctx)), isNew: true };
    };
    return paySession(core, s, pickIntent, body.outcome, body.customerPhone);
  },

  async sandboxGetClock(core, ctx) {
    return { status: 200, body: { now: iso(merchantNow(core, ctx)), ...clockOffset(core.merchantState(ctx.merchant.id).clockOffsetMs) } };
  },

  async sandboxAdvanceClock(core, ctx) {
    // exactly one of the two members (the schema's min/maxProperties, ADR-085)
    const ms = ctx.body.milliseconds ?? (ctx.body.seconds ?? 0) * 1000;
    const next = await core.updateMerchantState(ctx.merchant.id, (st) => ({ ...st, clockOffsetMs: st.clockOffsetMs + ms }));
    // Expire what the move made due before answering.
    await core.sweep(ctx.merchant.id);
    core.dispatcher?.kick();
    return { status: 200, body: { now: iso(merchantNow(core, ctx)), ...clockOffset(next.clockOffsetMs) } };
  },

  async sandboxListSms(core, ctx) {
    const id = ctx.merchant.id;
    const only = ctx.query.transactionId;
    const page = await readPage(
      ctx.query,
      (limit, cursor) => core.repo.smsPage(id, limit, cursor, only),
      async (k) => {
        const sms = await core.repo.get('sms', k);
        return sms?.merchantId === id && (only === undefined || sms.transactionId === only);
      },
    );
    return { status: 200, body: { data: page.data.map(({ merchantId: _m, ...rest }) => rest), nextCursor: page.nextCursor } };
  },

  async sandboxListWebhookDeliveries(core, ctx) {
    const id = ctx.merchant.id;
    const only = ctx.query.transactionId;
    const page = await readPage(
      ctx.query,
      (limit, cursor) => core.repo.outboxPage(id, limit, cursor, only),
      async (k) => {
        const e = await core.repo.get('outbox', k);
        return e?.merchantId === id && (only === undefined || e.transactionId === only);
      },
    );
    return { status: 200, body: { data: page.data.map(deliveryView), nextCursor: page.nextCursor } };
  },

  async sandboxRedeliverWebhook(core, ctx) {
    const id = ctx.params.deliveryId;
    const e = await core.repository.get(ctx.merchant.id, id);
    if (!e) throw new ApiError('DELIVERY_NOT_FOUND', errorMessage('DELIVERY_NOT_FOUND'));
    const after = core.dispatcher
      ? await core.dispatcher.redeliver(ctx.merchant.id, id)
      : await core.requeueWithoutEngine(ctx.merchant.id, id);
    if (!after) throw new ApiError('DELIVERY_NOT_FOUND', errorMessage('DELIVERY_NOT_FOUND'));
    return { status: 200, body: deliveryView(after) };
  },
};
