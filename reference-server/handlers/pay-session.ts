/** Paying a checkout session (ADR-019), shared by `sandboxPaySession` and `sdkSimulatePayment`. */
import { specFact } from '../../lib/spec-fact.ts';
import { withRedirectParams } from '../domain/redirect.ts';
import { newTransaction } from '../domain/transaction-record.ts';
import { applyOperation, checkoutStatus } from '../domain/transactions.ts';
import type { Change, PaymentIntentRecord, SessionRecord, TransactionRecord } from '../domain/types.ts';
import { ApiError } from '../http/errors.ts';
import type { Core } from '../core.ts';
import type { RepositoryTx } from '../store/repository.ts';
import { rejectionError } from './common.ts';

/** The operation whose `x-state-machine` transitions and rejections a payment follows. */
const PAY = 'sandboxPaySession';
/** The customer phone of a checkout paid without one: the `default` of the `TestShopperPhone` schema. */
const SANDBOX_TEST_PHONE = specFact('#/components/schemas/TestShopperPhone/default', 'string');

/**
 * Pays `session0` through the intent `pickIntent` names (written too when new), in one
 * transaction holding the session locked: creates its checkout transaction on the first
 * payment, then `success` approves it and `failed` leaves it PENDING; a transaction no longer
 * PENDING is refused as the state machine says.
 * @rule checkout-test-mode, ADR-014, ADR-019
 */
export async function paySession(
  core: Core,
  session0: SessionRecord,
  pickIntent: (tx: RepositoryTx, session: SessionRecord) => Promise<{ intent: PaymentIntentRecord; isNew: boolean }>,
  outcome: 'success' | 'failed',
  phone: string | undefined,
) {
  const merchant = core.merchantOf(session0);
  const paid = await core.repo.transaction(async (rtx) => {
    const now = core.now(merchant.id);
    const changes: Change[] = [];
    let session = (await rtx.lock('sessions', session0.id)) ?? session0;
    const { intent, isNew } = await pickIntent(rtx, session);
    if (isNew) changes.push({ c: 'paymentIntents', k: intent.id, v: intent });
    let tx: TransactionRecord;
    const existing = session.transactionId ? await rtx.lock('transactions', session.transactionId) : undefined;
    if (existing) {
      tx = core.fresh(existing, now, changes);
    } else {
      tx = newTransaction({
        kind: 'checkout',
        createdBy: PAY,
        merchantId: merchant.id,
        vendorReference: null,
        totalCentimes: session.totalCentimes,
        currency: session.currency,
        customerPhone: phone ?? SANDBOX_TEST_PHONE,
        items: session.items.map((i) => ({
          name: i.name,
          reference: i.id,
          quantity: i.quantity,
          unitPriceCentimes: i.priceCentimes,
          categoryId: null,
        })),
        sessionId: session.id,
        paymentIntentId: intent.id,
        nowMs: now,
        paymentWindowSeconds: core.config.paymentWindowSeconds,
      });
      session = { ...session, transactionId: tx.id, paymentIntentId: session.paymentIntentId ?? intent.id };
      changes.push({ c: 'sessions', k: session.id, v: session });
    }
    const r = applyOperation(PAY, tx, now, outcome);
    if (r.ok) {
      tx = r.tx;
      changes.push({ c: 'transactions', k: tx.id, v: tx });
      if (r.emits) changes.push(core.eventChange(r.emits, tx, now));
    } else if (r.kind === 'rejected') {
      rtx.write(changes); // the expiry or the new intent happened, whatever the answer
      return { refused: r };
    } else if (outcome === 'failed' && r.kind === 'guard') {
      changes.push({ c: 'transactions', k: tx.id, v: tx }); // a failed payment leaves it PENDING
    } else {
      throw new ApiError('INTERNAL_ERROR', `checkout ${outcome} refused from ${tx.status}`);
    }
    rtx.write(changes);
    return { tx, intent };
  });
  if (paid.refused) throw rejectionError(paid.refused);
  const { tx, intent } = paid;
  const redirectStatus = outcome === 'success' ? ('SUCCESS' as const) : ('FAILED' as const);
  return {
    status: 200 as const,
    body: {
      transaction_id: tx.id,
      payment_intent_id: tx.paymentIntentId ?? intent.id,
      status: checkoutStatus(tx.status),
      redirect_status: redirectStatus,
      ...(intent.redirectUrl && { redirect_url: withRedirectParams(intent.redirectUrl, redirectStatus, tx.id) }),
    },
  };
}
