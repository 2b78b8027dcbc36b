/**
 * The amount rules a request body must meet beyond its schema (ADR-006, ADR-057): the amount range
 * (`x-amount-range`, generated `amountRange`) and the total's consistency with its lines
 * (`x-amount-consistency`: total = Σ price × quantity). Both compared in integer centimes
 * (lib/money.ts). The rules' placement (which member, which code) is the request schema's data,
 * handed in; which answer a body gets is `amountAnswer`.
 */
import { amountRange } from '../generated/contract.ts';
import { centimesOf, sumLines } from '../lib/money.ts';

/** An amount range as the contract states it (generated `amountRange`, components/facts/AmountRange.yaml). */
export interface AmountRange {
  minimum: number;
  maximum: number;
}

/**
 * Whether `value` (a JSON number, or a decimal string in Variant 2) lies within `range`, bounds
 * included, compared in centimes; a value that is not an amount is outside.
 * (The amount-range rule itself is decided where the server answers it.)
 */
export function inAmountRange(value: unknown, range: AmountRange): boolean {
  const c = centimesOf(value);
  return c !== null && c >= centimesOf(range.minimum)! && c <= centimesOf(range.maximum)!;
}

/** `x-amount-consistency` as a request schema states it: the members holding the total, the lines, a line's price and quantity. */
export interface ConsistencyRule {
  total: string;
  lines: string;
  price: string;
  quantity: string;
}

/**
 * Whether the body's total equals Σ price × quantity over its lines, in centimes; a total, price
 * or quantity that is not a number counts as a difference.
 * (Its rule, amount-consistency, is decided where the server answers it.)
 */
export function amountsConsistent(rule: ConsistencyRule, body: Readonly<Record<string, unknown>>): boolean {
  const lines = body[rule.lines];
  if (!Array.isArray(lines)) return false;
  const sum = sumLines(
    (lines as unknown[]).map((l) => ({
      price: (l as Record<string, unknown>)?.[rule.price],
      quantity: (l as Record<string, unknown>)?.[rule.quantity],
    })),
  );
  const total = centimesOf(body[rule.total]);
  return sum !== null && total !== null && total === sum;
}

/** A member with `x-amount-range`: its name, and the code an amount outside answers (`business`: a 422 rule, else a 400 member code). */
export interface RangedMember {
  member: string;
  code: string;
  business: boolean;
}

/**
 * The codes the amount rules give a body its schema accepts, in the order they are decided
 * (ADR-057: validation, then consistency, then business): `validation` the codes of the members
 * whose validation range fails, `mismatch` the consistency's code when the total differs from its
 * lines (decided only when validation passed), `business` the business ranges' codes.
 */
export function amountAnswer(
  ranged: readonly RangedMember[],
  consistency: (ConsistencyRule & { errorCode: string }) | undefined,
  body: Readonly<Record<string, unknown>>,
): { validation: string[]; mismatch: string | null; business: string[] } {
  const out = { validation: [] as string[], mismatch: null as string | null, business: [] as string[] };
  for (const r of ranged)
    if (body[r.member] !== undefined && !inAmountRange(body[r.member], amountRange))
      (r.business ? out.business : out.validation).push(r.code);
  if (!out.validation.length && consistency && !amountsConsistent(consistency, body)) out.mismatch = consistency.errorCode;
  return out;
}
