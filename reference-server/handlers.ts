/**
 * One handler per operationId. Each reads what it needs, decides, and writes every change
 * (record + outbox event + SMS) in one store batch. Between a read and its commit there is
 * no `await`, so concurrent requests cannot interleave inside a decision.
 */
import { tokenLifetimeSeconds, type ErrorCode } from '../generated/contract.ts';
import type { Variant } from '../generated/index.ts';
import { iso } from './domain/clock.ts';
import { sessionId as newSessionId, sessionToken as newSessionToken, orderReference, sha256, uuid } from './domain/ids.ts';
import { centimesOf, formatCentimes, sumLines } from './domain/money.ts';
import { isAllowedOrigin, isAllowedRedirect, withRedirectParams } from './domain/redirect.ts';
import { attempt, initialStatus } from './domain/stateMachine.ts';
import {
  applyOperation,
  checkoutStatus,
  confirmationSms,
  partnerView,
  statusRecordView,
  verificationView,
} from './domain/transactions.ts';
import type { Change, PaymentIntentRecord, SessionRecord, TransactionRecord } from './domain/types.ts';
import { checkAmountRange } from './http/amount-range.ts';
import { ApiError, invalidToken, notFound } from './http/errors.ts';
import { nearestExtension, type OperationInfo } from './http/operations.ts';
import type { MerchantConfig } from './config.ts';
import type { Core } from './core.ts';
import type { OutboxEvent } from './webhooks/contracts.ts';

type Json = Record<string, unknown>;

export interface Ctx {
  op: OperationInfo;
  doc: Json;
  variant: Variant;
  merchant: MerchantConfig;
  session: SessionRecord | null;
  params: Record<string, string>;
  body: unknown;
  baseUrl: string;
}

export interface Result {
  status: number;
  body: unknown;
}

type Handler = (core: Core, ctx: Ctx) => Promise<Result>;

const SANDBOX_TEST_PHONE = '212600000000';

function deliveryView(e: OutboxEvent) {
  const { merchantId: _m, ...rest } = e;
  return rest;
}

function rejectionError(r: { code: string; message: string }): ApiError {
  return new ApiError(r.code as ErrorCode, r.message);
}

/** `x-amount-consistency` of the request schema: total vs Σ price × quantity, in centimes. */
function checkAmountConsistency(ctx: Ctx): void {
  const rule = nearestExtension(ctx.doc, ctx.op.requestSchema, [], 'x-amount-consistency') as
    | { total: string; lines: string; price: string; quantity: string; errorCode: ErrorCode }
    | undefined;
  if (!rule) return;
  const body = ctx.body as Json;
  const total = centimesOf(body[rule.total]);
  const lines = (body[rule.lines] as Json[]).map((l) => ({ price: l[rule.price], quantity: l[rule.quantity] }));
  const sum = sumLines(lines);
  if (total === null || sum === null || total !== sum) {
    throw new ApiError(
      rule.errorCode,
      `${rule.total} ${total === null ? String(body[rule.total]) : formatCentimes(total)} differs from the sum of ${rule.price} x ${rule.quantity} over ${rule.lines} (${sum === null ? 'invalid' : formatCentimes(sum)})`,
    );
  }
}

function ownTransaction(core: Core, ctx: Ctx, id: string, kind: TransactionRecord['kind'] | null): TransactionRecord {
  const tx = core.store.get('transactions', id);
  if (!tx || tx.merchantId !== ctx.merchant.id || (kind !== null && tx.kind !== kind)) throw notFound();
  return tx;
}

/** Reads a transaction as it is now (expiring it if due), writing the expiry if there was one. */
async function readFresh(core: Core, tx: TransactionRecord): Promise<TransactionRecord> {
  const changes: Change[] = [];
  const t = core.fresh(tx, core.now(tx.merchantId), changes);
  if (changes.length > 0) await core.commit(changes);
  return t;
}

/** A state change by `operationId` (B4 and the sandbox customer actions). */
async function transition(core: Core, ctx: Ctx, operationId: string, tx0: TransactionRecord): Promise<TransactionRecord> {
  const now = core.now(tx0.merchantId);
  const changes: Change[] = [];
  const tx = core.fresh(tx0, now, changes);
  const r = applyOperation(operationId, tx, now);
  if (!r.ok) {
    if (changes.length > 0) await core.commit(changes); // the expiry happened, whatever the answer
    if (r.kind === 'rejected') throw rejectionError(r);
    throw new ApiError('INTERNAL_ERROR', `no transition of ${operationId} from ${tx.status}`);
  }
  changes.push({ c: 'transactions', k: r.tx.id, v: r.tx });
  if (r.emits) changes.push(core.eventChange(r.emits, r.tx, now));
  await core.commit(changes);
  return r.tx;
}

function newPaymentIntent(ctx: Ctx, session: SessionRecord, now: number, p: Partial<PaymentIntentRecord> = {}): PaymentIntentRecord {
  return {
    id: uuid(),
    sessionId: session.id,
    merchantId: session.merchantId,
    flow: p.flow ?? 'redirect',
    locale: p.locale ?? 'en',
    redirectUrl: p.redirectUrl ?? null,
    origin: p.origin ?? null,
    createdAt: iso(now),
  };
}

/** A payment intent of `session`; 404 for another session's or a missing one. */
function ownIntent(core: Core, session: SessionRecord, id: string): PaymentIntentRecord {
  const intent = core.store.get('paymentIntents', id);
  if (!intent || intent.sessionId !== session.id) throw new ApiError('SESSION_NOT_FOUND', 'Payment intent not found');
  return intent;
}

const notPending = (status: string, why = '') => new ApiError('TRANSACTION_NOT_PENDING', `Transaction is not in PENDING status (current status: ${status})${why}`);

/** Paying a session (ADR-019), for `sandboxPaySession` and `sdkSimulatePayment`. */
async function paySession(
  core: Core,
  session0: SessionRecord,
  intent: PaymentIntentRecord,
  newIntent: boolean,
  outcome: 'success' | 'failed',
  phone: string | undefined,
): Promise<Result> {
  const PAY = 'sandboxPaySession';
  const merchant = core.merchantOf(session0);
  const now = core.now(merchant.id);
  const changes: Change[] = [];
  let session = session0;
  if (newIntent) changes.push({ c: 'paymentIntents', k: intent.id, v: intent });
  let tx: TransactionRecord;
  const existing = session.transactionId ? core.store.get('transactions', session.transactionId) : undefined;
  if (existing) {
    tx = core.fresh(existing, now, changes);
    if (tx.status !== 'PENDING') {
      if (changes.length > 0) await core.commit(changes);
      throw notPending(tx.status);
    }
  } else {
    const created = attempt(PAY, null, { now });
    if (!created.ok) throw new ApiError('INTERNAL_ERROR', 'the state machine has no checkout creation');
    tx = {
      id: uuid(),
      kind: 'checkout',
      merchantId: merchant.id,
      orderReference: orderReference(),
      vendorReference: null,
      status: created.to,
      totalCentimes: session.totalCentimes,
      currency: session.currency,
      customerPhone: phone ?? SANDBOX_TEST_PHONE,
      items: session.items.map((i) => ({ id: uuid(), name: i.name, reference: i.id, quantity: i.quantity, unitPriceCentimes: i.priceCentimes, categoryId: null })),
      createdAt: iso(now),
      updatedAt: null,
      expiresAt: iso(now + core.config.paymentWindowSeconds * 1000),
      approvedAt: null,
      expiredAt: null,
      sessionId: session.id,
      paymentIntentId: intent.id,
    };
    session = { ...session, transactionId: tx.id, paymentIntentId: session.paymentIntentId ?? intent.id };
    changes.push({ c: 'sessions', k: session.id, v: session });
  }
  if (outcome === 'success') {
    const r = applyOperation(PAY, tx, now, 'success');
    if (!r.ok) throw new ApiError('INTERNAL_ERROR', `checkout success refused from ${tx.status}`);
    tx = r.tx;
    if (r.emits) changes.push({ c: 'transactions', k: tx.id, v: tx }, core.eventChange(r.emits, tx, now));
    else changes.push({ c: 'transactions', k: tx.id, v: tx });
  } else {
    changes.push({ c: 'transactions', k: tx.id, v: tx });
  }
  await core.commit(changes);
  const redirectStatus = outcome === 'success' ? 'SUCCESS' : 'FAILED';
  const body: Json = {
    transaction_id: tx.id,
    payment_intent_id: tx.paymentIntentId ?? intent.id,
    status: checkoutStatus(tx.status),
    redirect_status: redirectStatus,
  };
  if (intent.redirectUrl) body.redirect_url = withRedirectParams(intent.redirectUrl, redirectStatus, tx.id);
  return { status: 200, body };
}

function merchantNow(core: Core, ctx: Ctx): number {
  return core.now(ctx.merchant.id);
}

export const handlers: Record<string, Handler> = {
  // ---- A. Checkout ----
  async createSession(core, ctx) {
    checkAmountRange(ctx.doc, ctx.op.requestSchema, ctx.body, false);
    checkAmountConsistency(ctx);
    const body = ctx.body as { total: number | string; currency: 'MAD'; items: Array<{ id: string; name: string; price: number; quantity: number }> };
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
      expiresAt: iso(now + tokenLifetimeSeconds * 1000),
      testMode: test,
      paymentIntentId: null,
      transactionId: null,
    };
    await core.commit([{ c: 'sessions', k: session.id, v: session }]);
    if (ctx.variant === 1) return { status: 200, body: { token, expiresAt: session.expiresAt } };
    return { status: 200, body: { session_token: token, expires_in: tokenLifetimeSeconds, session_id: session.id } };
  },

  async getTransactionStatusBySessionToken(core, ctx) {
    const session = ctx.session!;
    const tx = core.store.get('transactions', ctx.params.transaction_id!);
    if (!tx || tx.kind !== 'checkout' || tx.merchantId !== session.merchantId) throw notFound();
    if (tx.sessionId !== session.id) throw invalidToken();
    const t = await readFresh(core, tx);
    return { status: 200, body: statusRecordView(t, core.view(ctx.merchant)) };
  },

  async verifyTransaction(core, ctx) {
    const tx = ownTransaction(core, ctx, ctx.params.transactionId!, 'checkout');
    return { status: 200, body: verificationView(await readFresh(core, tx)) };
  },

  // ---- B. Partner transactions ----
  async createPartnerTransaction(core, ctx) {
    checkAmountConsistency(ctx);
    const m = ctx.merchant;
    const body = ctx.body as {
      customerPhone: string;
      total: number;
      currency: 'MAD';
      vendorReference?: string;
      items: Array<{ name: string; reference?: string; quantity: number; unitPrice: number; categoryId?: number }>;
    };
    const total = centimesOf(body.total)!;
    if (!m.active) throw new ApiError('MERCHANT_INACTIVE', 'Merchant account is not active');
    checkAmountRange(ctx.doc, ctx.op.requestSchema, ctx.body, true);
    const now = merchantNow(core, ctx);
    if (body.vendorReference !== undefined && core.store.transactionByVendorReference(m.id, body.vendorReference)) {
      throw new ApiError('DUPLICATE_VENDOR_REFERENCE', `vendorReference ${body.vendorReference} already exists for this merchant`);
    }
    const changes: Change[] = [];
    if (m.creditLimitCentimes !== null) {
      let open = 0;
      for (const t0 of core.store.merchantTransactions(m.id)) {
        const t = core.fresh(t0, now, changes);
        if (t.status === 'PENDING' || t.status === 'APPROVED') open += t.totalCentimes;
      }
      if (open + total > m.creditLimitCentimes) {
        if (changes.length > 0) await core.commit(changes);
        throw new ApiError(
          'CREDIT_LIMIT_EXCEEDED',
          `Credit limit exceeded: open transactions ${formatCentimes(open)} + ${formatCentimes(total)} > limit ${formatCentimes(m.creditLimitCentimes)} MAD`,
        );
      }
    }
    const created = attempt(ctx.op.operationId, null, { now });
    const status = created.ok ? created.to : initialStatus;
    const tx: TransactionRecord = {
      id: uuid(),
      kind: 'partner',
      merchantId: m.id,
      orderReference: orderReference(),
      vendorReference: body.vendorReference ?? null,
      status,
      totalCentimes: total,
      currency: body.currency,
      customerPhone: body.customerPhone,
      items: body.items.map((i) => ({
        id: uuid(),
        name: i.name,
        reference: i.reference ?? null,
        quantity: i.quantity,
        unitPriceCentimes: centimesOf(i.unitPrice)!,
        categoryId: i.categoryId ?? null,
      })),
      createdAt: iso(now),
      updatedAt: null,
      expiresAt: iso(now + core.config.paymentWindowSeconds * 1000),
      approvedAt: null,
      expiredAt: null,
      sessionId: null,
      paymentIntentId: null,
    };
    changes.push({ c: 'transactions', k: tx.id, v: tx });
    const smsBody = confirmationSms(m.name, tx, core.config.paymentWindowSeconds);
    if (core.sandbox) {
      const id = uuid();
      changes.push({ c: 'sms', k: id, v: { id, merchantId: m.id, to: tx.customerPhone, body: smsBody, transactionId: tx.id, sentAt: iso(now) } });
    }
    await core.commit(changes);
    if (!core.sandbox) {
      core.smsSender.send({ merchantId: m.id, to: tx.customerPhone, body: smsBody, transactionId: tx.id }).catch((e: Error) => core.log(`sms sender failed: ${e.message}`));
    }
    return { status: 201, body: partnerView(tx, core.view(m)) };
  },

  async getPartnerTransaction(core, ctx) {
    const tx = ownTransaction(core, ctx, ctx.params.transactionId!, 'partner');
    return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };
  },

  async getPartnerTransactionByVendorReference(core, ctx) {
    const tx = core.store.transactionByVendorReference(ctx.merchant.id, ctx.params.vendorReference!);
    if (!tx || tx.kind !== 'partner') throw notFound();
    return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };
  },

  async cancelPartnerTransactionByVendorReference(core, ctx) {
    const tx = core.store.transactionByVendorReference(ctx.merchant.id, ctx.params.vendorReference!);
    if (!tx || tx.kind !== 'partner') throw notFound();
    const t = await transition(core, ctx, ctx.op.operationId, tx);
    return { status: 200, body: partnerView(t, core.view(ctx.merchant)) };
  },

  // ---- SDK (internal) ----
  async sdkGetSession(core, ctx) {
    const s = ctx.session!;
    return {
      status: 200,
      body: {
        session_id: s.id,
        merchant_name: ctx.merchant.name,
        store_name: ctx.merchant.storeName,
        total: s.totalCentimes / 100,
        currency: s.currency,
        items: s.items.map((i) => ({ id: i.id, name: i.name, price: i.priceCentimes / 100, quantity: i.quantity })),
        expires_at: s.expiresAt,
        test_mode: s.testMode,
      },
    };
  },

  async sdkCreatePaymentIntent(core, ctx) {
    const s = ctx.session!;
    const body = (ctx.body ?? {}) as { redirect_url?: string; flow?: 'redirect' | 'popup' | 'button'; locale?: 'en' | 'fr' | 'ar'; origin?: string };
    const flow = body.flow ?? 'redirect';
    const allowed = ctx.merchant.allowedOrigins;
    if (body.redirect_url !== undefined && !isAllowedRedirect(body.redirect_url, allowed, core.sandbox)) {
      throw new ApiError('INVALID_REDIRECT_URL', "redirect_url must be an absolute http(s) URL on one of the merchant's allowed origins");
    }
    if (flow === 'redirect' && body.redirect_url === undefined) {
      throw new ApiError('INVALID_REDIRECT_URL', 'redirect_url is required for the redirect flow');
    }
    if (body.origin !== undefined && !isAllowedOrigin(body.origin, allowed, core.sandbox)) {
      throw new ApiError('INVALID_REDIRECT_URL', "origin must be exactly one of the merchant's allowed origins");
    }
    const now = merchantNow(core, ctx);
    const intent = newPaymentIntent(ctx, s, now, { flow, locale: body.locale ?? 'en', redirectUrl: body.redirect_url ?? null, origin: body.origin ?? null });
    await core.commit([{ c: 'paymentIntents', k: intent.id, v: intent }]);
    return { status: 201, body: { payment_intent_id: intent.id, checkout_url: `${ctx.baseUrl}/checkout/${intent.id}` } };
  },

  async sdkSimulatePayment(core, ctx) {
    const s = ctx.session!;
    const intent = ownIntent(core, s, ctx.params.paymentIntentId!);
    const body = ctx.body as { outcome: 'success' | 'failed'; customerPhone?: string };
    return paySession(core, s, intent, false, body.outcome, body.customerPhone);
  },

  async sdkCancelPaymentIntent(core, ctx) {
    const s = ctx.session!;
    const intent = ownIntent(core, s, ctx.params.paymentIntentId!);
    // Nothing changes (ADR-019); an expiry due on read is still written, as on every read.
    const stored = s.transactionId ? core.store.get('transactions', s.transactionId) : undefined;
    const tx = stored ? await readFresh(core, stored) : undefined;
    // Paid as the shopper sees it (A2): APPROVED or COMPLETED.
    if (tx && checkoutStatus(tx.status) === 'APPROVED') throw notPending(tx.status, ': the session is paid');
    const body: Json = { payment_intent_id: intent.id, redirect_status: 'CANCELLED' };
    if (tx) body.transaction_id = tx.id;
    if (intent.redirectUrl) body.redirect_url = withRedirectParams(intent.redirectUrl, 'CANCELLED', tx?.id ?? null);
    return { status: 200, body };
  },

  // ---- Sandbox ----
  async sandboxConfirmTransaction(core, ctx) {
    const tx = ownTransaction(core, ctx, ctx.params.transactionId!, null);
    return { status: 200, body: partnerView(await transition(core, ctx, ctx.op.operationId, tx), core.view(ctx.merchant)) };
  },
  async sandboxCancelTransaction(core, ctx) {
    const tx = ownTransaction(core, ctx, ctx.params.transactionId!, null);
    return { status: 200, body: partnerView(await transition(core, ctx, ctx.op.operationId, tx), core.view(ctx.merchant)) };
  },
  async sandboxCompleteTransaction(core, ctx) {
    const tx = ownTransaction(core, ctx, ctx.params.transactionId!, null);
    return { status: 200, body: partnerView(await transition(core, ctx, ctx.op.operationId, tx), core.view(ctx.merchant)) };
  },

  async sandboxPaySession(core, ctx) {
    const body = ctx.body as { session_token: string; outcome: 'success' | 'failed'; customerPhone?: string };
    const s = core.store.sessionByTokenDigest(sha256(body.session_token));
    if (!s) throw invalidToken();
    if (s.merchantId !== ctx.merchant.id) throw new ApiError('SESSION_NOT_FOUND', 'Session not found');
    if (Date.parse(s.expiresAt) <= merchantNow(core, ctx)) throw invalidToken();
    const now = merchantNow(core, ctx);
    const existing = s.paymentIntentId ? core.store.get('paymentIntents', s.paymentIntentId) : undefined;
    const intent = existing ?? newPaymentIntent(ctx, s, now);
    return paySession(core, s, intent, !existing, body.outcome, body.customerPhone);
  },

  async sandboxGetClock(core, ctx) {
    return { status: 200, body: { now: iso(merchantNow(core, ctx)), offsetSeconds: core.merchantState(ctx.merchant.id).clockOffsetSeconds } };
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
    return { status: 200, body: { data: core.store.smsOf(ctx.merchant.id).map(({ merchantId: _m, ...rest }) => rest) } };
  },

  async sandboxListWebhookDeliveries(core, ctx) {
    const list = await core.repository.list(ctx.merchant.id);
    return { status: 200, body: { data: list.map(deliveryView) } };
  },

  async sandboxRedeliverWebhook(core, ctx) {
    const id = ctx.params.deliveryId!;
    const e = await core.repository.get(ctx.merchant.id, id);
    if (!e) throw new ApiError('DELIVERY_NOT_FOUND', 'Webhook delivery not found');
    const after = core.dispatcher ? await core.dispatcher.redeliver(ctx.merchant.id, id) : await core.requeueWithoutEngine(ctx.merchant.id, id);
    if (!after) throw new ApiError('DELIVERY_NOT_FOUND', 'Webhook delivery not found');
    return { status: 200, body: deliveryView(after) };
  },
};

