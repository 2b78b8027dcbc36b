/**
 * The rules the seed states in words, probed in the near-miss forms merchants really send
 * (ADR-049), beside the schema-driven values: a phone with a plus sign, spaces, dashes or in
 * national form; a vendorReference in another letter case; one reference used by two merchants.
 * Every value is derived from the spec (the phone schema's example) or from what the run created.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import type { Contract } from '../../judge/contract.ts';
import { CreateTransaction } from './createTransaction.ts';

type Json = Record<string, unknown>;

/**
 * The forms of the phone schema's first example a merchant may type, none of them valid (ADR-049):
 * `+` in front, grouped by 3 with spaces or dashes, and the national form (a 0 for the country code).
 */
export function phoneNearMisses(contract: Contract): { label: string; value: string }[] {
  const example = (contract.schema('CustomerPhone').examples as string[] | undefined)?.[0];
  if (!example) throw new Error('spec: CustomerPhone has no example to derive near misses from');
  const groups = example.match(/.{1,3}/g)!;
  return [
    { label: 'with a plus sign', value: `+${example}` },
    { label: 'with spaces', value: groups.join(' ') },
    { label: 'with dashes', value: groups.join('-') },
    // the country code is the example's first group (212 for Morocco): 0 in its place
    { label: 'in national form', value: `0${example.slice(groups[0].length)}` },
  ];
}

/** The B1 commands of the phone near misses, each `base` with only its phone changed. */
export function phoneProbes(contract: Contract, base: Json): Cmd[] {
  return phoneNearMisses(contract).map(
    (p) => new CreateTransaction({ ...base, customerPhone: p.value }, `customerPhone ${p.label} (${p.value})`, 'main', 'fresh', 0),
  );
}

/** Every letter of `s` in the other case. */
export function swapCase(s: string): string {
  return [...s].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('');
}

/**
 * One of the main merchant's vendorReferences in the other letter case: B3 and B4 do not find it
 * (404, ADR-049), and B1 creates it as a reference of its own (the model's duplicate rule applies).
 * @checks ADR-049
 */
export class CaseReference implements Cmd {
  constructor(
    readonly body: Json,
    readonly idx: number,
  ) {}
  private candidates(m: Readonly<Model>) {
    return m.txs.filter(
      (t) => t.who === 'main' && t.kind === 'partner' && t.vendorReference && swapCase(t.vendorReference) !== t.vendorReference,
    );
  }
  check(m: Readonly<Model>): boolean {
    return this.candidates(m).length > 0;
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(this.candidates(m), this.idx)!;
    const other = swapCase(tx.vendorReference!);
    if (!w.state.usedVendorRefs.main.has(other)) {
      for (const op of ['getPartnerTransactionByVendorReference', 'cancelPartnerTransactionByVendorReference']) {
        const ex = await w.client.call(op, { pathParams: { vendorReference: other }, headers: w.auth(op, w.cfg.apiKey) });
        // letter case counts (ADR-049): another case is another reference, not this transaction's
        w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
      }
    }
    await new CreateTransaction(
      { ...this.body, vendorReference: other },
      `vendorReference ${tx.vendorReference} in the other case`,
      'main',
      'exact',
      0,
    ).run(m, w);
  }
  toString(): string {
    return `caseReference(#${this.idx})`;
  }
}
