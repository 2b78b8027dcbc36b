/** B2 / B3: read a transaction by id or by vendorReference, with its merchant's key, the other merchant's key, or a missing one. */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import type { Exchange } from '../http.ts';
import { checkRecord, pick, refusal } from '../model.ts';
import { canonicalText } from '../same.ts';
import type { World } from '../world.ts';

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
      w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
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
      this.key !== 'own' && this.by === 'vendorReference' && m.txs.some((t) => t.who === reader && t.vendorReference === value);
    if (readerOwnsSameRef) return;
    const ex = await w.client.call(op, { pathParams: { [param]: value }, headers: w.auth(op, w.key(reader)) });
    const statuses = w.possibleStatuses(tx, ex);
    if (tx.kind === 'checkout') {
      // ADR: B2–B4 see partner transactions only; a checkout transaction reads as a missing one.
      w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
    } else if (this.key === 'own') {
      w.expectOutcome(ex, [w.success(op)]);
      checkRecord(w, ex, tx, statuses);
    } else {
      w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
      const missing = await w.client.call(op, { pathParams: { [param]: missingValue }, headers: w.auth(op, w.key(reader)) });
      w.expectOutcome(missing, [refusal('TRANSACTION_NOT_FOUND')]);
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
  const na = a.responseText.split(idA).join('{id}');
  const nb = b.responseText.split(idB).join('{id}');
  w.check(
    canonicalText(na) === canonicalText(nb),
    a.opId,
    '$',
    `the 404 body for another merchant's transaction differs from the one for a missing transaction: ${na} vs ${nb}`,
    nb,
    na,
  );
}
