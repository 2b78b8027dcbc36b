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
import type { RepositoryReads, RepositoryTx } from '../store/repository.ts';
import type { CallerCtx } from './context.ts';

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
export function specRule<T>(ctx: CallerCtx, segments: string[], key: string): T | undefined {
  let rules = rulesByOp.get(ctx.op);
  if (!rules) rulesByOp.set(ctx.op, (rules = new Map<string, unknown>()));
  const k = `${segments.join('/')}#${key}`;
  if (!rules.has(k)) rules.set(k, nearestExtension(ctx.doc, ctx.op.requestSchema, segments, key));
  return rules.get(k) as T | undefined;
}

/**
 * The number the operation itself declares as `key` (an `x-` extension of its operation object,
 * the spec's one statement of that fact), read from the document once per operation.
 */
export function operationNumber(ctx: CallerCtx, key: string): number {
  let rules = rulesByOp.get(ctx.op);
  if (!rules) rulesByOp.set(ctx.op, (rules = new Map<string, unknown>()));
  if (!rules.has(key)) {
    const item = (ctx.doc.paths as Record<string, Record<string, Record<string, unknown>> | undefined>)[ctx.op.path];
    const v = item?.[ctx.op.method.toLowerCase()]?.[key];
    if (typeof v !== 'number') throw new Error(`spec: ${ctx.op.operationId} declares no number ${key}`);
    rules.set(key, v);
  }
  return rules.get(key) as number;
}

export function merchantNow(core: Core, ctx: CallerCtx): number {
  return core.now(ctx.merchant.id);
}

/** The caller's transaction `id` of `kind` (null: either), locked when read in a transaction; 404 TRANSACTION_NOT_FOUND otherwise. */
export function ownTransaction(
  from: RepositoryReads | RepositoryTx,
  ctx: CallerCtx,
  id: string,
  kind: TransactionKind | null,
): Promise<TransactionRecord> {
  // a then, not an async frame: the read of every B2 request
  const read = 'lock' in from ? from.lock('transactions', id) : from.get('transactions', id);
  return read.then((tx) => {
    if (!isOwnTransaction(tx, ctx.merchant.id, kind)) throw notFound();
    return tx;
  });
}

/**
 * The caller's partner transaction of `vendorReference` exactly as written (letter case included),
 * locked when read in a transaction; 404 TRANSACTION_NOT_FOUND otherwise.
 * @rule ADR-049
 */
export async function ownByVendorReference(
  from: RepositoryReads | RepositoryTx,
  ctx: CallerCtx,
  vendorReference: string,
): Promise<TransactionRecord> {
  const tx =
    'lockByVendorReference' in from
      ? await from.lockByVendorReference(ctx.merchant.id, vendorReference)
      : await from.transactionByVendorReference(ctx.merchant.id, vendorReference);
  if (!isOwnTransaction(tx, ctx.merchant.id, 'partner')) throw notFound();
  return tx;
}

/** True when `t` must move at `nowMs` (its window passed, or its scenario action is due). */
function moves(core: Core, t: TransactionRecord, nowMs: number): boolean {
  return core.fresh(t, nowMs, []) !== t;
}

/**
 * `t` (read earlier in `tx` or outside it) as it reads at `nowMs`: when it must move, it is
 * locked and checked again, and its move is added to `changes`.
 */
export async function freshIn(
  core: Core,
  tx: RepositoryTx,
  t: TransactionRecord,
  nowMs: number,
  changes: Change[],
): Promise<TransactionRecord> {
  if (!moves(core, t, nowMs)) return t;
  const locked = await tx.lock('transactions', t.id);
  return locked ? core.fresh(locked, nowMs, changes) : t;
}

/** Transactions of one merchant read outside a transaction, as they read now; the moves this reveals are written. */
export async function readFreshAll(core: Core, merchantId: string, list: TransactionRecord[]): Promise<TransactionRecord[]> {
  const now = core.now(merchantId);
  const due = list.filter((t) => moves(core, t, now));
  if (due.length === 0) return list;
  const moved = await core.repo.transaction(async (tx) => {
    const changes: Change[] = [];
    const out = new Map<string, TransactionRecord>();
    for (const t of due) out.set(t.id, await freshIn(core, tx, t, now, changes));
    tx.write(changes);
    return out;
  });
  return list.map((t) => moved.get(t.id) ?? t);
}

/** Reads a transaction as it is now (expiring it if due), writing the expiry if there was one. */
export function readFresh(core: Core, tx: TransactionRecord): Promise<TransactionRecord> {
  // nothing due (most reads): answered without the list's async frame
  if (!moves(core, tx, core.now(tx.merchantId))) return Promise.resolve(tx);
  return readFreshAll(core, tx.merchantId, [tx]).then((list) => list[0]!);
}

/**
 * A state change by `operationId` (B4 and the sandbox customer actions) of the transaction
 * `find` locks in the same repository transaction.
 * @rule ADR-004
 */
export async function transition(
  core: Core,
  operationId: string,
  find: (tx: RepositoryTx) => Promise<TransactionRecord>,
): Promise<TransactionRecord> {
  const r = await core.repo.transaction(async (tx) => {
    const tx0 = await find(tx);
    const now = core.now(tx0.merchantId);
    const changes: Change[] = [];
    const t = core.fresh(tx0, now, changes);
    const out = { ...applyOperation(operationId, t, now), from: t.status };
    if (out.ok) {
      changes.push({ c: 'transactions', k: out.tx.id, v: out.tx });
      if (out.emits) changes.push(core.eventChange(out.emits, out.tx, now));
    }
    tx.write(changes); // the expiry happened, whatever the answer
    return out;
  });
  if (r.ok) return r.tx;
  if (r.kind === 'rejected') throw rejectionError(r);
  throw new ApiError('INTERNAL_ERROR', `no transition of ${operationId} from ${r.from}`);
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
