/** A3 (Variant 1): verify a checkout transaction with the API key; another merchant's key reads 404. */
import { checkoutStatusOf } from '../../generated/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { centimesOf } from '../../lib/money.ts';
import type { Status } from '../world.ts';

const OP = 'verifyTransaction';

/** @checks a3-verification */
export class VerifyByKey implements Cmd {
  constructor(
    readonly idx: number,
    readonly otherMerchant: boolean,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.world.contract.has(OP) && m.txs.some((t) => t.kind === 'checkout');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'checkout'),
      this.idx,
    )!;
    const ex = await w.client.call(OP, {
      pathParams: { transactionId: tx.id },
      headers: w.auth(OP, w.key(this.otherMerchant ? 'other' : 'main')),
    });
    const statuses = w.possibleStatuses(tx, ex);
    if (this.otherMerchant) return w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
    w.expectOutcome(ex, [w.success(OP)]);
    const rec = ex.json as Record<string, unknown>;
    const reported: string[] = statuses.map((s) => checkoutStatusOf[s as Status]);
    w.check(
      reported.includes(rec.status as string),
      OP,
      '$.status',
      `status ${String(rec.status)}, the model expects ${reported.join(' or ')} (ADR-008)`,
      reported,
      rec.status,
    );
    w.check(rec.id === tx.id, OP, '$.id', 'another transaction was returned', tx.id, rec.id);
    w.check(
      centimesOf(rec.amount) === centimesOf(tx.session!.total),
      OP,
      '$.amount',
      'amount differs from the session total',
      tx.session!.total,
      rec.amount,
    );
    // still PENDING in the model but reported the way EXPIRED is (ADR-008): it expired
    if (tx.status === 'PENDING' && rec.status === checkoutStatusOf.EXPIRED) w.observe(tx, 'EXPIRED');
  }
  toString(): string {
    return `verifyByKey(#${this.idx}${this.otherMerchant ? ", other merchant's key" : ''})`;
  }
}
