/** B. Partner transactions: B1 create, B2 read by id, B3 read and B4 cancel by vendorReference. */
import { iso } from '../domain/clock.ts';
import { uuid } from '../domain/ids.ts';
import { centimesOf } from '../../lib/money.ts';
import { errorMessage } from '../../lib/error-messages.ts';
import { vendorReferenceRefusals } from '../../model/index.ts';
import { checkAmountConsistency, type AmountConsistencyRule } from '../domain/amount-consistency.ts';
import { checkCreditLimit, checkMerchantActive } from '../domain/limits.ts';
import { checkAmountRange } from '../domain/amount-range.ts';
import { itemLines, newTransaction } from '../domain/transaction-record.ts';
import { confirmationSms, partnerView } from '../domain/transactions.ts';
import type { Change, Rejection, TransactionRecord } from '../domain/types.ts';
import type { RepositoryTx } from '../store/repository.ts';
import {
  freshIn,
  merchantNow,
  ownByVendorReference,
  ownTransaction,
  readFresh,
  refuse,
  rejectionError,
  specRule,
  transition,
} from './common.ts';
import type { Handlers } from './context.ts';
import { magicAmountRejection, scenariosOf, scheduledAction } from './sandbox-scenarios.ts';

/**
 * Seed rule (B1 409, "vendorReference already exists for this merchant"): a vendorReference is
 * unique per merchant. Inside B1's store transaction, the merchant's reference is locked (its
 * row, or the absent key: a concurrent B1 with it waits, then reads the row the first committed)
 * and a transaction holding it refuses the create (the model's `vendorReferenceRefusals`, worded
 * here from the message catalogue). The store's unique index on (merchant, vendorReference), one
 * statement both stores' first migration runs, is the arbiter under it: the database refuses a
 * second row whatever the code above does. Under this locked read no violation of it arises
 * (SQLite runs one transaction at a time; PostgreSQL reads again, READ COMMITTED, after the lock's
 * wait); the stores' rerun of a transaction the database refused (`failureOf`'s conflicts: any
 * unique index, serialization failures, deadlocks) is their own, not this rule's.
 * @binds vendor-reference-unique
 * @guard vendor-reference-unique reference-server/store/vendor-reference-unique.sql:transactions_vendor_reference
 */
async function refuseTakenReference(rtx: RepositoryTx, merchantId: string, vendorReference: string | undefined): Promise<Rejection | null> {
  if (vendorReference === undefined) return null;
  const existing = await rtx.lockByVendorReference(merchantId, vendorReference);
  const [r] = vendorReferenceRefusals(vendorReference, existing === undefined ? 'no' : 'yes');
  return r ? { code: r.code, message: errorMessage('DUPLICATE_VENDOR_REFERENCE', { vendorReference }) } : null;
}

export const partnerHandlers: Handlers<
  | 'createPartnerTransaction'
  | 'getPartnerTransaction'
  | 'getPartnerTransactionByVendorReference'
  | 'cancelPartnerTransactionByVendorReference'
> = {
  async createPartnerTransaction(core, ctx) {
    const consistency = specRule<AmountConsistencyRule>(ctx, [], 'x-amount-consistency');
    if (consistency) refuse(checkAmountConsistency(consistency, ctx.body));
    const m = ctx.merchant;
    const body = ctx.body;
    const total = centimesOf(body.total)!;
    refuse(checkMerchantActive(m.active));
    checkAmountRange(ctx.doc, ctx.op.requestSchema, ctx.body, true);
    const scenarios = core.sandbox ? scenariosOf(ctx) : null;
    if (scenarios) refuse(magicAmountRejection(scenarios, body.total));
    // Everything read here is read again if the store reruns the work (a conflicting create).
    const made = await core.repo.transaction(async (rtx) => {
      const now = merchantNow(core, ctx);
      const taken = await refuseTakenReference(rtx, m.id, body.vendorReference);
      if (taken) return { refused: taken };
      const changes: Change[] = [];
      if (m.creditLimitCentimes !== null) {
        // One such create at a time per merchant, across instances: the open total read next
        // cannot grow before this one commits.
        await rtx.lock('merchantState', m.id);
        const open: TransactionRecord[] = [];
        for (const t of await rtx.openTransactions(m.id)) open.push(await freshIn(core, rtx, t, now, changes));
        const over = checkCreditLimit(open, total, m.creditLimitCentimes);
        if (over) {
          rtx.write(changes); // the expiries happened, whatever the answer
          return { refused: over };
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
        items: itemLines(body.items),
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
      rtx.write(changes);
      return { tx, smsBody };
    });
    if (made.refused) throw rejectionError(made.refused);
    const { tx, smsBody } = made;
    if (!core.sandbox) {
      core.smsSender
        .send({ merchantId: m.id, to: tx.customerPhone, body: smsBody, transactionId: tx.id })
        .catch((e: Error) => core.log(`sms sender failed: ${e.message}`));
    }
    return { status: 201, body: partnerView(tx, core.view(m)) };
  },

  async getPartnerTransaction(core, ctx) {
    const tx = await ownTransaction(core.repo, ctx, ctx.params.transactionId, 'partner');
    return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };
  },

  async getPartnerTransactionByVendorReference(core, ctx) {
    const tx = await ownByVendorReference(core.repo, ctx, ctx.params.vendorReference);
    return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };
  },

  async cancelPartnerTransactionByVendorReference(core, ctx) {
    const t = await transition(core, ctx.op.operationId, (tx) => ownByVendorReference(tx, ctx, ctx.params.vendorReference));
    return { status: 200, body: partnerView(t, core.view(ctx.merchant)) };
  },
};
