/** B. Partner transactions: B1 create, B2 read by id, B3 read and B4 cancel by vendorReference. */
import { iso } from '../domain/clock.ts';
import { uuid } from '../domain/ids.ts';
import { centimesOf } from '../../lib/money.ts';
import { checkAmountConsistency, type AmountConsistencyRule } from '../domain/amount-consistency.ts';
import { checkCreditLimit, checkMerchantActive } from '../domain/limits.ts';
import { checkAmountRange } from '../http/amount-range.ts';
import { newTransaction } from '../domain/transaction-record.ts';
import { checkVendorReferenceFree } from '../domain/vendor-reference.ts';
import { confirmationSms, partnerView } from '../domain/transactions.ts';
import type { Change, TransactionRecord } from '../domain/types.ts';
import type { Core } from '../core.ts';
import { merchantNow, ownByVendorReference, ownTransaction, readFresh, refuse, specRule, transition } from './common.ts';
import type { Handler } from './context.ts';
import { magicAmountRejection, scenariosOf, scheduledAction } from './sandbox-scenarios.ts';

/** The merchant's transactions as they read at `now`; the expiries this reveals go to `changes`. */
function* currentTransactions(core: Core, merchantId: string, now: number, changes: Change[]): Iterable<TransactionRecord> {
  for (const t of core.store.merchantTransactions(merchantId)) yield core.fresh(t, now, changes);
}

export const partnerHandlers: Record<string, Handler> = {
  async createPartnerTransaction(core, ctx) {
    const consistency = specRule<AmountConsistencyRule>(ctx, [], 'x-amount-consistency');
    if (consistency) refuse(checkAmountConsistency(consistency, ctx.body as Record<string, unknown>));
    const m = ctx.merchant;
    const body = ctx.body as {
      customerPhone: string;
      total: number;
      currency: 'MAD';
      vendorReference?: string;
      items: Array<{ name: string; reference?: string; quantity: number; unitPrice: number; categoryId?: number }>;
    };
    const total = centimesOf(body.total)!;
    refuse(checkMerchantActive(m.active));
    checkAmountRange(ctx.doc, ctx.op.requestSchema, ctx.body, true);
    const scenarios = core.sandbox ? scenariosOf(ctx) : null;
    if (scenarios) refuse(magicAmountRejection(scenarios, body.total));
    const now = merchantNow(core, ctx);
    const sameReference =
      body.vendorReference === undefined ? undefined : core.store.transactionByVendorReference(m.id, body.vendorReference);
    refuse(checkVendorReferenceFree(body.vendorReference, sameReference));
    const changes: Change[] = [];
    if (m.creditLimitCentimes !== null) {
      const over = checkCreditLimit(currentTransactions(core, m.id, now, changes), total, m.creditLimitCentimes);
      if (over) {
        if (changes.length > 0) await core.commit(changes);
        refuse(over);
      }
    }
    const tx = newTransaction({
      kind: 'partner',
      createdBy: ctx.op.operationId,
      merchantId: m.id,
      vendorReference: body.vendorReference ?? null,
      totalCentimes: total,
      currency: body.currency,
      customerPhone: body.customerPhone,
      items: body.items.map((i) => ({
        name: i.name,
        reference: i.reference ?? null,
        quantity: i.quantity,
        unitPriceCentimes: centimesOf(i.unitPrice)!,
        categoryId: i.categoryId ?? null,
      })),
      sessionId: null,
      paymentIntentId: null,
      nowMs: now,
      paymentWindowSeconds: core.config.paymentWindowSeconds,
    });
    const scenario = scenarios ? scheduledAction(scenarios, body.customerPhone, now) : undefined;
    if (scenario) tx.scenario = scenario;
    changes.push({ c: 'transactions', k: tx.id, v: tx });
    const smsBody = confirmationSms(m.name, tx, core.config.paymentWindowSeconds);
    if (core.sandbox) {
      const id = uuid();
      changes.push({
        c: 'sms',
        k: id,
        v: { id, merchantId: m.id, to: tx.customerPhone, body: smsBody, transactionId: tx.id, sentAt: iso(now) },
      });
    }
    await core.commit(changes);
    if (scenario) core.scheduleScenario(tx.id);
    if (!core.sandbox) {
      core.smsSender
        .send({ merchantId: m.id, to: tx.customerPhone, body: smsBody, transactionId: tx.id })
        .catch((e: Error) => core.log(`sms sender failed: ${e.message}`));
    }
    return { status: 201, body: partnerView(tx, core.view(m)) };
  },

  async getPartnerTransaction(core, ctx) {
    const tx = ownTransaction(core, ctx, ctx.params.transactionId!, 'partner');
    return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };
  },

  async getPartnerTransactionByVendorReference(core, ctx) {
    const tx = ownByVendorReference(core, ctx, ctx.params.vendorReference!);
    return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };
  },

  async cancelPartnerTransactionByVendorReference(core, ctx) {
    const tx = ownByVendorReference(core, ctx, ctx.params.vendorReference!);
    const t = await transition(core, ctx.op.operationId, tx);
    return { status: 200, body: partnerView(t, core.view(ctx.merchant)) };
  },
};
