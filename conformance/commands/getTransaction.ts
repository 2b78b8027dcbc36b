/** B2 / B3: read a transaction by id or by vendorReference, with its merchant's key, the other merchant's key, or a missing one. */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import type { Exchange } from '../http.ts';
import { pick, RECORD_FIELDS } from '../model.ts';
import { lookupVendorReference, NOT_FOUND, notFoundText, reaches, sameJson, EXPIRY, INITIAL } from '../../model/index.ts';
import type { Tx, World } from '../world.ts';
import { checkExpiryInstant, possibleStatuses } from './advanceClock.ts';
import { checkLastChanged } from '../instants.ts';
import { checkOf } from '../repeated.ts';

type Json = Record<string, unknown>;

/**
 * The record read back agrees with the one created, and with the model's status.
 * @checks ADR-013, ADR-048
 */
export function checkRecord(w: World, ex: Exchange, tx: Tx, statuses: string[]): void {
  const rec = ex.json as Json;
  const op = ex.opId;
  for (const f of RECORD_FIELDS) {
    w.check(
      sameJson(rec[f], tx.created[f], w.contract.arrayOrder('PartnerTransaction', f) !== undefined),
      op,
      `$.${f}`,
      `read back ${JSON.stringify(rec[f])}, created ${JSON.stringify(tx.created[f])}`,
      tx.created[f],
      rec[f],
    );
  }
  w.check(
    statuses.includes(rec.status as string),
    op,
    '$.status',
    `status ${String(rec.status)}, the model expects ${statuses.join(' or ')}`,
    statuses,
    rec.status,
  );
  w.observe(tx, rec.status as string);
  w.checkNames(tx.who, op, '$', rec);
  // the last change the suite made is read back with the instant its own answer gave
  if (tx.changedAt !== undefined && rec.status === tx.status && typeof rec.updatedAt === 'string')
    w.check(
      Date.parse(rec.updatedAt) === Date.parse(tx.changedAt),
      op,
      '$.updatedAt',
      `updatedAt ${rec.updatedAt}, the change was answered with updatedAt ${tx.changedAt}`,
      tx.changedAt,
      rec.updatedAt,
    );
  // the last change's instant: the interval of the move that made it (an expiry's is judged below)
  if (rec.status === tx.status && statuses.length === 1 && tx.status !== EXPIRY.to)
    checkLastChanged(w, checkOf(w, op), tx, '$.updatedAt', rec.updatedAt, 'iso');
  const changed = rec.status !== INITIAL;
  w.check(
    changed ? typeof rec.updatedAt === 'string' : rec.updatedAt === null,
    op,
    '$.updatedAt',
    changed
      ? `updatedAt is ${JSON.stringify(rec.updatedAt)} after a change to ${String(rec.status)}`
      : `updatedAt is ${JSON.stringify(rec.updatedAt)} before any change`,
    changed ? 'a timestamp' : null,
    rec.updatedAt,
  );
  // an expiry's last change is the instant the window ended, not the read that noticed it
  if (rec.status === EXPIRY.to && tx.kind === 'partner') checkExpiryInstant(w, tx, op, '$.updatedAt', rec.updatedAt);
  if (changed && typeof rec.updatedAt === 'string') {
    w.check(
      Date.parse(rec.updatedAt) >= Date.parse(rec.createdAt as string),
      op,
      '$.updatedAt',
      `updatedAt ${rec.updatedAt} is before createdAt ${String(rec.createdAt)}`,
    );
  }
}

export type ReadBy = 'id' | 'vendorReference';
export type ReadKey = 'own' | 'other-merchant' | 'missing';

/** @checks ownership, partner-record */
export class GetTransaction implements Cmd {
  constructor(
    readonly by: ReadBy,
    readonly key: ReadKey,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return this.key === 'missing' || m.txs.some((t) => this.by === 'id' || t.vendorReference);
  }
  async run(m: Model, w: Real): Promise<void> {
    const op = this.by === 'id' ? 'getPartnerTransaction' : 'getPartnerTransactionByVendorReference';
    const param = this.by === 'id' ? 'transactionId' : 'vendorReference';
    const missingValue = this.by === 'id' ? randomUUID() : w.freshVendorRef();
    if (this.key === 'missing') {
      const ex = await w.client.call(op, { pathParams: { [param]: missingValue }, headers: w.auth(op, w.cfg.apiKey) });
      w.expectOutcome(ex, [NOT_FOUND]);
      return;
    }
    const tx = pick(
      m.txs.filter((t) => this.by === 'id' || t.vendorReference),
      this.idx,
    )!;
    const value = this.by === 'id' ? tx.id : tx.vendorReference!;
    const reader = this.key === 'own' ? tx.who : tx.who === 'main' ? 'other' : 'main';
    // Another merchant may own the same vendorReference (unique per merchant only): its read is not a 404.
    const readerOwnsSameRef =
      this.key !== 'own' &&
      this.by === 'vendorReference' &&
      lookupVendorReference(
        m.txs.filter((t) => t.who === reader),
        value,
      ) !== undefined;
    if (readerOwnsSameRef) return;
    const ex = await w.client.call(op, { pathParams: { [param]: value }, headers: w.auth(op, w.key(reader)) });
    const statuses = possibleStatuses(w.state, tx, performance.now(), ex);
    // ownership (the model's): B2 and B3 serve the merchant's own partner transactions; anything else reads as missing
    if (reaches({ merchantId: tx.who, kind: tx.kind }, reader, 'partner')) {
      w.expectOutcome(ex, [w.success(op)]);
      checkRecord(w, ex, tx, statuses);
    } else {
      w.expectOutcome(ex, [NOT_FOUND]);
      // another merchant's is answered exactly as a missing one
      if (this.key === 'own') return;
      const missing = await w.client.call(op, { pathParams: { [param]: missingValue }, headers: w.auth(op, w.key(reader)) });
      w.expectOutcome(missing, [NOT_FOUND]);
      sameNotFound(w, ex, missing, value, missingValue);
    }
  }
  toString(): string {
    return `getTransaction(by ${this.by}, ${this.key}, #${this.idx})`;
  }
}

/**
 * ownership, the identical-404 rule: another merchant's transaction is answered exactly as a
 * missing one (TransactionNotFound), so the 404 bodies are equal once each names its own id.
 */
export function sameNotFound(w: World, a: Exchange, b: Exchange, idA: string, idB: string): void {
  const na = notFoundText(a.responseText, [idA]);
  const nb = notFoundText(b.responseText, [idB]);
  w.check(
    na === nb,
    a.opId,
    '$',
    `the 404 body for another merchant's transaction differs from the one for a missing transaction: ${na} vs ${nb}`,
    nb,
    na,
  );
}
