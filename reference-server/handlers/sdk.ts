/** The browser SDK's and hosted page's operations (`x-internal`), authenticated by session token. */
import { errorMessage } from '../../lib/error-messages.ts';
import { centimesToNumber } from '../../lib/money.ts';
import { isAllowedOrigin, isAllowedRedirect, withRedirectParams } from '../domain/redirect.ts';
import { attempt } from '../domain/stateMachine.ts';
import type { PaymentIntentRecord, SessionRecord } from '../domain/types.ts';
import { ApiError } from '../http/errors.ts';
import type { RepositoryReads } from '../store/repository.ts';
import { merchantNow, newPaymentIntent, operationNumber, readFresh, rejectionError } from './common.ts';
import type { Handlers } from './context.ts';
import { paySession } from './pay-session.ts';

/** A payment intent of `session`; 404 for another session's or a missing one. */
async function ownIntent(from: RepositoryReads, session: SessionRecord, id: string): Promise<PaymentIntentRecord> {
  const intent = await from.get('paymentIntents', id);
  if (!intent || intent.sessionId !== session.id) throw new ApiError('SESSION_NOT_FOUND', errorMessage('SESSION_NOT_FOUND', {}, 1));
  return intent;
}

export const sdkHandlers: Handlers<'sdkGetSession' | 'sdkCreatePaymentIntent' | 'sdkSimulatePayment' | 'sdkCancelPaymentIntent'> = {
  async sdkGetSession(_core, ctx) {
    const s = ctx.session!;
    return {
      status: 200,
      body: {
        session_id: s.id,
        merchant_name: ctx.merchant.name,
        store_name: ctx.merchant.storeName,
        total: centimesToNumber(s.totalCentimes),
        currency: s.currency,
        items: s.items.map((i) => ({ id: i.id, name: i.name, price: centimesToNumber(i.priceCentimes), quantity: i.quantity })),
        expires_at: s.expiresAt,
        test_mode: s.testMode,
      },
    };
  },

  /**
   * A payment intent; `redirect_url` and the popup's `origin` must be on the merchant's allowed
   * origins (400 INVALID_REDIRECT_URL otherwise).
   * At most `x-max-payment-intents` per session (422 TOO_MANY_PAYMENT_INTENTS).
   * @rule ADR-017
   * @rule ADR-029
   */
  async sdkCreatePaymentIntent(core, ctx) {
    const s = ctx.session!;
    const body = ctx.body ?? {};
    const flow = body.flow ?? 'redirect';
    const allowed = ctx.merchant.allowedOrigins;
    if (body.redirect_url !== undefined && !isAllowedRedirect(body.redirect_url, allowed, core.sandbox)) {
      throw new ApiError('INVALID_REDIRECT_URL', errorMessage('INVALID_REDIRECT_URL'));
    }
    if (flow === 'redirect' && body.redirect_url === undefined) {
      throw new ApiError('INVALID_REDIRECT_URL', errorMessage('INVALID_REDIRECT_URL', {}, 1));
    }
    if (body.origin !== undefined && !isAllowedOrigin(body.origin, allowed, core.sandbox)) {
      throw new ApiError('INVALID_REDIRECT_URL', errorMessage('INVALID_REDIRECT_URL', {}, 2));
    }
    // `x-max-payment-intents` of the operation (ADR-029): the payment intents one session may hold
    const maxPaymentIntents = operationNumber(ctx, 'x-max-payment-intents');
    // The session is locked: concurrent intents of one session are counted one after the other.
    const intent = await core.repo.transaction(async (tx) => {
      await tx.lock('sessions', s.id);
      if ((await tx.paymentIntentCount(s.id)) >= maxPaymentIntents) {
        throw new ApiError('TOO_MANY_PAYMENT_INTENTS', errorMessage('TOO_MANY_PAYMENT_INTENTS', { max: maxPaymentIntents }));
      }
      const p = newPaymentIntent(s, merchantNow(core, ctx), {
        flow,
        locale: body.locale ?? 'en',
        redirectUrl: body.redirect_url ?? null,
        origin: body.origin ?? null,
      });
      tx.write([{ c: 'paymentIntents', k: p.id, v: p }]);
      return p;
    });
    return { status: 201, body: { payment_intent_id: intent.id, checkout_url: `${ctx.baseUrl}/checkout/${intent.id}` } };
  },

  async sdkSimulatePayment(core, ctx) {
    const s = ctx.session!;
    const intent = await ownIntent(core.repo, s, ctx.params.paymentIntentId);
    const body = ctx.body;
    return paySession(core, s, async () => ({ intent, isNew: false }), body.outcome, body.customerPhone);
  },

  async sdkCancelPaymentIntent(core, ctx) {
    const s = ctx.session!;
    const intent = await ownIntent(core.repo, s, ctx.params.paymentIntentId);
    // Nothing changes (ADR-019); an expiry due on read is still written, as on every read.
    const stored = s.transactionId ? await core.repo.get('transactions', s.transactionId) : undefined;
    const tx = stored ? await readFresh(core, stored) : undefined;
    // A paid session cannot be left as cancelled: the spec's rejections of this operation.
    if (tx) {
      const r = attempt(ctx.op.operationId, tx.status, { now: merchantNow(core, ctx) });
      if (!r.ok && r.kind === 'rejected') throw rejectionError(r);
    }
    return {
      status: 200,
      body: {
        payment_intent_id: intent.id,
        redirect_status: 'CANCELLED',
        ...(tx && { transaction_id: tx.id }),
        ...(intent.redirectUrl && { redirect_url: withRedirectParams(intent.redirectUrl, 'CANCELLED', tx?.id ?? null) }),
      },
    };
  },
};
