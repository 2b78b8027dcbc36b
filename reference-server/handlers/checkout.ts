/** A. Checkout: A1 create a session, A2 status by session token, A3 verification by API key. */
import { tokenLifetimeSeconds } from '../../generated/contract.ts';
import { iso } from '../domain/clock.ts';
import { sessionId as newSessionId, sessionToken as newSessionToken, sha256 } from '../domain/ids.ts';
import { centimesOf } from '../../lib/money.ts';
import { checkAmountConsistency, type AmountConsistencyRule } from '../domain/amount-consistency.ts';
import { isOwnTransaction, isSessionTransaction } from '../domain/ownership.ts';
import { tokenExpiresAt } from '../domain/token.ts';
import { statusRecordView, verificationView } from '../domain/transactions.ts';
import type { SessionRecord } from '../domain/types.ts';
import { invalidToken, notFound } from '../http/errors.ts';
import { merchantNow, ownTransaction, readFresh, refuse, specRule } from './common.ts';
import type { Handlers } from './context.ts';

export const checkoutHandlers: Handlers<'createSession' | 'getTransactionStatusBySessionToken' | 'verifyTransaction'> = {
  /**
   * A1: stores the session (token digest only) and answers the variant's shape: `token`/`expiresAt`
   * (Variant 1) or `session_token`/`expires_in`/`session_id` (Variant 2).
   * @rule a1-session-response
   */
  async createSession(core, ctx) {
    const rule = specRule<AmountConsistencyRule>(ctx, [], 'x-amount-consistency');
    if (rule) refuse(checkAmountConsistency(rule, ctx.body));
    const body = ctx.body;
    const now = merchantNow(core, ctx);
    const test = ctx.merchant.keyMode === 'test';
    const token = newSessionToken(test);
    const session: SessionRecord = {
      id: newSessionId(test),
      merchantId: ctx.merchant.id,
      tokenDigest: sha256(token),
      totalCentimes: centimesOf(body.total)!,
      currency: body.currency,
      items: body.items.map((i) => ({ id: i.id, name: i.name, priceCentimes: centimesOf(i.price)!, quantity: i.quantity })),
      createdAt: iso(now),
      expiresAt: iso(tokenExpiresAt(now)),
      testMode: test,
      paymentIntentId: null,
      transactionId: null,
    };
    await core.commit([{ c: 'sessions', k: session.id, v: session }]);
    if (ctx.variant === 1) return { status: 200, body: { token, expiresAt: session.expiresAt } };
    return { status: 200, body: { session_token: token, expires_in: tokenLifetimeSeconds, session_id: session.id } };
  },

  /**
   * A2: the checkout transaction of the token's session. Another merchant's (or a partner)
   * transaction reads as missing (404); a transaction of another session of the same merchant
   * answers 401 INVALID_SESSION_TOKEN (seed rule "not matching the transaction").
   * @rule token-own-transaction
   */
  async getTransactionStatusBySessionToken(core, ctx) {
    const session = ctx.session!;
    const tx = await core.repo.get('transactions', ctx.params.transaction_id);
    if (!isOwnTransaction(tx, session.merchantId, 'checkout')) throw notFound();
    if (!isSessionTransaction(tx, session)) throw invalidToken();
    const t = await readFresh(core, tx);
    return { status: 200, body: statusRecordView(t, core.view(ctx.merchant)) };
  },

  async verifyTransaction(core, ctx) {
    const tx = await ownTransaction(core.repo, ctx, ctx.params.transactionId, 'checkout');
    return { status: 200, body: verificationView(await readFresh(core, tx)) };
  },
};
