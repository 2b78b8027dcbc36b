/** What several handlers share: refusals as answers, spec rules of the operation, reads and moves. */
import { applyOperation } from '../domain/transactions.ts';
import { isOwnTransaction } from '../domain/ownership.ts';
import { iso } from '../domain/clock.ts';
import { uuid } from '../domain/ids.ts';
import type { Change, PaymentIntentRecord, Rejection, SessionRecord, TransactionKind, TransactionRecord } from '../domain/types.ts';
import type { ErrorCode } from '../../generated/contract.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { nearestExtension, type OperationInfo } from '../http/operations.ts';
import type { Core } from '../core.ts';
import type { Ctx } from './context.ts';

/** The answer of a domain rule's refusal (status from the error catalogue). */
export function rejectionError(r: { code: string; message: string }): ApiError {
  return new ApiError(r.code as ErrorCode, r.message);
}

/** Throws the answer of `r` when a rule refused. */
export function refuse(r: Rejection | null): void {
  if (r) throw rejectionError(r);
}

const rulesByOp = new WeakMap<OperationInfo, Map<string, unknown>>();

/**
 * The `key` extension declared on the operation's request schema at `segments` (nearest
 * level), read from the document once per operation: the document never changes.
 */
export function specRule<T>(ctx: Ctx, segments: string[], key: string): T | undefined {
  let rules = rulesByOp.get(ctx.op);
  if (!rules) rulesByOp.set(ctx.op, (rules = new Map<string, unknown>()));
  const k = `${segments.join('/')}#${key}`;
  if (!rules.has(k)) rules.set(k, nearestExtension(ctx.doc, ctx.op.requestSchema, segments, key));
  return rules.get(k) as T | undefined;
}

export function merchantNow(core: Core, ctx: Ctx): number {
  return core.now(ctx.merchant.id);
}

/** The caller's transaction `id` of `kind` (null: either); 404 TRANSACTION_NOT_FOUND otherwise. */
export function ownTransaction(core: Core, ctx: Ctx, id: string, kind: TransactionKind | null): TransactionRecord {
  const tx = core.store.get('transactions', id);
  if (!isOwnTransaction(tx, ctx.merchant.id, kind)) throw notFound();
  return tx;
}

/** The caller's partner transaction of `vendorReference`; 404 TRANSACTION_NOT_FOUND otherwise. */
export function ownByVendorReference(core: Core, ctx: Ctx, vendorReference: string): TransactionRecord {
  const tx = core.store.transactionByVendorReference(ctx.merchant.id, vendorReference);
  if (!isOwnTransaction(tx, ctx.merchant.id, 'partner')) throw notFound();
  return tx;
}

/** Reads a transaction as it is now (expiring it if due), writing the expiry if there was one. */
export async function readFresh(core: Core, tx: TransactionRecord): Promise<TransactionRecord> {
  const changes: Change[] = [];
  const t = core.fresh(tx, core.now(tx.merchantId), changes);
  if (changes.length > 0) await core.commit(changes);
  return t;
}

/**
 * A state change by `operationId` (B4 and the sandbox customer actions).
 * @rule ADR-004
 */
export async function transition(core: Core, operationId: string, tx0: TransactionRecord): Promise<TransactionRecord> {
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

export function newPaymentIntent(session: SessionRecord, now: number, p: Partial<PaymentIntentRecord> = {}): PaymentIntentRecord {
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
