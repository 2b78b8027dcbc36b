/** Paying a checkout session (ADR-019), shared by `sandboxPaySession` and `sdkSimulatePayment`. */
import { withRedirectParams } from '../domain/redirect.ts';
import { newTransaction } from '../domain/transaction-record.ts';
import { applyOperation, checkoutStatus } from '../domain/transactions.ts';
import type { Change, PaymentIntentRecord, SessionRecord, TransactionRecord } from '../domain/types.ts';
import { ApiError } from '../http/errors.ts';
import type { Core } from '../core.ts';
import { rejectionError } from './common.ts';
import type { Result } from './context.ts';

/** The operation whose `x-state-machine` transitions and rejections a payment follows. */
const PAY = 'sandboxPaySession';
/** The customer phone of a checkout paid without one (sandbox). */
const SANDBOX_TEST_PHONE = '212600000000';

/**
 * Pays `session` through `intent` (written too when `newIntent`): creates its checkout
 * transaction on the first payment, then `success` approves it and `failed` leaves it
 * PENDING; a transaction no longer PENDING is refused as the state machine says.
 * @rule checkout-test-mode, ADR-014, ADR-019
 */
export async function paySession(
  core: Core,
  session0: SessionRecord,
  intent: PaymentIntentRecord,
  newIntent: boolean,
  outcome: 'success' | 'failed',
  phone: string | undefined,
): Promise<Result> {
  const merchant = core.merchantOf(session0);
  const now = core.now(merchant.id);
  const changes: Change[] = [];
  let session = session0;
  if (newIntent) changes.push({ c: 'paymentIntents', k: intent.id, v: intent });
  let tx: TransactionRecord;
  const existing = session.transactionId ? core.store.get('transactions', session.transactionId) : undefined;
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
    if (changes.length > 0) await core.commit(changes); // the expiry or the new intent happened, whatever the answer
    throw rejectionError(r);
  } else if (outcome === 'failed' && r.kind === 'guard') {
    changes.push({ c: 'transactions', k: tx.id, v: tx }); // a failed payment leaves it PENDING
  } else {
    throw new ApiError('INTERNAL_ERROR', `checkout ${outcome} refused from ${tx.status}`);
  }
  await core.commit(changes);
  const redirectStatus = outcome === 'success' ? 'SUCCESS' : 'FAILED';
  const body: Record<string, unknown> = {
    transaction_id: tx.id,
    payment_intent_id: tx.paymentIntentId ?? intent.id,
    status: checkoutStatus(tx.status),
    redirect_status: redirectStatus,
  };
  if (intent.redirectUrl) body.redirect_url = withRedirectParams(intent.redirectUrl, redirectStatus, tx.id);
  return { status: 200, body };
}
