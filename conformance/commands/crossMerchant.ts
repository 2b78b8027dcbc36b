/**
 * Cross-merchant effects and near-miss lookup keys (ADR-049):
 * - two merchants hold one situation (the same vendorReference, the same phone), one pair per move
 *   x-state-machine makes from PENDING on a partner transaction named by its id or reference (B4
 *   and, in the sandbox, the customer's confirm and cancel), each move followed by the moves its
 *   status allows (complete after confirm), then the other side's own cancel: after every change
 *   of one side, the other side's record and lists are read back and must be as the model holds
 *   them (the witnesses, `witness.ts`), its PENDING record included;
 * - B3 and B4 by a vendorReference the merchant holds, in the forms an implementation might
 *   normalise or decode (surrounding or inner whitespace, a trailing dot, an encoded slash, a
 *   percent sign read as an escape, a compatibility or combining character): each gets the answer
 *   the contract gives it — refused by the parameter's pattern, or not found — never the record.
 */
import type { Exchange } from '../http.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { refusal } from '../model.ts';
import type { Tx } from '../model-state.ts';
import { stateMachine } from '../../generated/index.ts';
import { flushWitnesses } from '../witness.ts';
import { CreateTransaction } from './createTransaction.ts';
import { drive } from './moves.ts';
import { swapCase } from './nearMiss.ts';

type Json = Record<string, unknown>;
const B3 = 'getPartnerTransactionByVendorReference';
const B4 = 'cancelPartnerTransactionByVendorReference';

/**
 * The moves x-state-machine makes from `status` on a partner transaction named by its id or its
 * reference, by operations this run drives (sandbox ones in the sandbox), each once, in the table's order.
 */
function movesOn(w: Real, status: string): string[] {
  const ops = stateMachine.transitions
    .filter((t) => t.from !== null && (t.from as readonly string[]).includes(status))
    .map((t) => t.trigger.operationId)
    .filter((op) => {
      if (!w.contract.has(op) || w.contract.op(op).internal || (!w.sandbox && w.contract.op(op).sandbox)) return false;
      return /\{(transactionId|vendorReference)\}/.test(w.contract.op(op).path);
    });
  return [...new Set(ops)];
}

/**
 * The near-miss forms of a vendorReference, as the decoded path segment (the client percent-encodes
 * it): whitespace around or inside, a trailing dot, a slash, a literal `%2D` (an implementation that
 * decodes twice reads `-`), a fullwidth first letter (NFKC gives the ASCII one), a combining accent.
 */
export function referenceNearMisses(ref: string): { label: string; value: string }[] {
  const wide = (ch: string): string => String.fromCodePoint(ch.codePointAt(0)! + 0xfee0);
  const mid = Math.floor(ref.length / 2);
  return [
    { label: 'a leading space', value: ` ${ref}` },
    { label: 'a trailing space', value: `${ref} ` },
    { label: 'an inner space', value: `${ref.slice(0, mid)} ${ref.slice(mid)}` },
    { label: 'a trailing tab', value: `${ref}\t` },
    { label: 'a trailing newline', value: `${ref}\n` },
    { label: 'a trailing no-break space (trimmed by String.trim, NFKC gives a space)', value: `${ref}\u00a0` },
    { label: 'an inner zero-width space', value: `${ref.slice(0, mid)}\u200b${ref.slice(mid)}` },
    { label: 'a trailing dot', value: `${ref}.` },
    { label: 'a trailing slash', value: `${ref}/` },
    { label: "'-' written %2D (decoded twice)", value: ref.replace('-', '%2D') },
    { label: 'in the other letter case', value: swapCase(ref) },
    { label: 'a fullwidth first letter (NFKC)', value: `${wide(ref[0]!)}${ref.slice(1)}` },
    { label: 'fullwidth digits (NFKC)', value: ref.replace(/[0-9]/g, wide) },
    { label: 'a combining accent (NFD)', value: `${ref}\u0301` },
    // the last letter written with its accent precomposed (NFC) and decomposed (NFD): both are other references
    { label: 'the last letter precomposed with an accent (NFC)', value: `${ref}\u0301`.normalize('NFC') },
  ].filter((f, i, all) => f.value !== ref && all.findIndex((g) => g.value === f.value) === i);
}

/** The answer the contract gives a lookup by `value`: the pattern's refusal, else not found (when no record of the merchant has it). */
function nearMissAnswer(w: Real, value: string): Outcome {
  const pattern = new RegExp((w.contract.schema('VendorReference').pattern as string) ?? '');
  return pattern.test(value) ? refusal('TRANSACTION_NOT_FOUND') : refusal('VALIDATION_ERROR');
}

/** @checks ADR-049 */
export class CrossMerchant implements Cmd {
  constructor(readonly body: Json) {}
  check(): boolean {
    return true;
  }
  private async create(m: Model, w: Real, who: 'main' | 'other', ref: string): Promise<Tx | undefined> {
    const n = m.txs.length;
    await new CreateTransaction(
      { ...this.body, vendorReference: ref },
      `vendorReference ${ref} held by both merchants`,
      who,
      'exact',
      0,
    ).run(m, w);
    return m.txs.length > n ? m.txs[m.txs.length - 1] : undefined;
  }
  async run(m: Model, w: Real): Promise<void> {
    let first: [Tx, Tx] | undefined;
    for (const op of movesOn(w, stateMachine.initial)) {
      // one reference and one phone (the same body) held by both merchants
      const ref = w.freshVendorRef();
      const main = await this.create(m, w, 'main', ref);
      const other = await this.create(m, w, 'other', ref);
      if (!main || !other) return;
      await flushWitnesses(w);
      if (!first) {
        first = [main, other];
        await this.nearMisses(m, w, main);
      }
      // the move, then each move its status allows: the other side read back after every change
      for (let next: string | undefined = op; next; next = movesOn(w, main.status)[0]) {
        const before = main.status;
        await drive(w, main, next);
        await flushWitnesses(w);
        if (main.status === before) break;
      }
    }
    // the other side's own change, the main merchant's record read back
    if (first) {
      await drive(w, first[1], B4);
      await flushWitnesses(w);
    }
  }
  private async nearMisses(m: Model, w: Real, tx: Tx): Promise<void> {
    const own = new Set(m.txs.filter((t) => t.who === tx.who && t.vendorReference).map((t) => t.vendorReference!));
    for (const f of referenceNearMisses(tx.vendorReference!)) {
      if (own.has(f.value) || w.state.usedVendorRefs[tx.who].has(f.value)) continue;
      for (const op of [B3, B4]) {
        const ex: Exchange = await w.client.call(op, { pathParams: { vendorReference: f.value }, headers: w.auth(op, w.key(tx.who)) });
        w.expectOutcome(ex, [nearMissAnswer(w, f.value)]);
      }
    }
  }
  toString(): string {
    return 'crossMerchant()';
  }
}
