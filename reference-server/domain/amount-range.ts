/**
 * The amount range (`x-amount-range`, ADR-006) on the server: one answer for an amount outside
 * it, from one check, a domain rule read from the request schema. Variant 1's `total` carries a
 * JSON Schema `minimum`/`maximum` copy, which the validator is not given (`withoutRangeCopies`);
 * Variant 2's decimal-string `total` has only a pattern. So `checkAmountRange` decides, with
 * schema validation (the router's `memberRules`, ADR-057) in both variants; B1's range is a
 * business rule (`x-business-rule`, 422), checked by the same function in its handler. The text
 * comes from `generated/` (`amountRange.rule`).
 */
import { amountRange, type ErrorCode } from '../../generated/contract.ts';
import { inAmountRange } from '../../model/index.ts';
import { ApiError, type ErrorDetail } from '../../server/errors.ts';
import { nearestExtension, resolveRef } from '../../server/schema.ts';

type Json = Record<string, unknown>;

/** The answer for `property` outside the range: `<property> <rule>`, with a detail when the code is a 400. */
function outOfRange(code: ErrorCode, property: string, withDetail: boolean): ApiError {
  const details: ErrorDetail[] | undefined = withDetail ? [{ path: `/${property}`, message: amountRange.rule }] : undefined;
  return new ApiError(code, `${property} ${amountRange.rule}`, details);
}

interface RangedProperty {
  property: string;
  /** The business rule's code (422), or undefined for a validation range. */
  businessCode: ErrorCode | undefined;
  /** The code of a validation range (the property's `x-error-code`). */
  validationCode: ErrorCode;
}

/** Per request schema, its top-level properties with `x-amount-range`, read from the document once. */
const rangedOf = new WeakMap<Json, RangedProperty[]>();

function rangedProperties(doc: Json, requestSchema: Json): RangedProperty[] {
  let ranged = rangedOf.get(requestSchema);
  if (ranged) return ranged;
  ranged = [];
  const props = (resolveRef(doc, requestSchema)?.properties ?? {}) as Json;
  for (const property of Object.keys(props)) {
    if (nearestExtension(doc, requestSchema, [property], 'x-amount-range') === undefined) continue;
    const rule = nearestExtension(doc, requestSchema, [property], 'x-business-rule') as { code: ErrorCode } | undefined;
    const validationCode =
      (nearestExtension(doc, requestSchema, [property], 'x-error-code') as ErrorCode | undefined) ?? 'VALIDATION_ERROR';
    ranged.push({ property, businessCode: rule?.code, validationCode });
  }
  rangedOf.set(requestSchema, ranged);
  return ranged;
}

/**
 * Seed rule (A1 400 INVALID_AMOUNT; B1 422 "amount limits", ADR-006): throws the out-of-range
 * answer for the first top-level body property with `x-amount-range` whose value lies outside
 * it: `business` false checks the validation ranges (400, the property's `x-error-code`; run
 * with schema validation, ADR-057), `business` true the `x-business-rule` ones (their `code`).
 * @rule amount-range
 */
export function checkAmountRange(doc: Json, requestSchema: Json | null, body: unknown, business: boolean): void {
  if (!requestSchema || !body || typeof body !== 'object') return;
  for (const { property, businessCode, validationCode } of rangedProperties(doc, requestSchema)) {
    if ((businessCode !== undefined) !== business) continue;
    const value = (body as Json)[property];
    if (value === undefined || inAmountRange(value, amountRange)) continue;
    throw outOfRange(businessCode ?? validationCode, property, businessCode === undefined);
  }
}

/**
 * `doc` for the compiled request checks (server/validate.ts): without the JSON Schema `minimum`/`maximum` that copy
 * `x-amount-range` next to it (Variant 1's `total`), so that the range has one enforcer,
 * `checkAmountRange` (through the model's `inAmountRange`), in every variant. The copies stay in the
 * spec for client-side validators; `npm run lint` checks they agree with the range.
 */
export function withoutRangeCopies(doc: Json): Json {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    const ranged = 'x-amount-range' in node;
    for (const [k, v] of Object.entries(node)) if (!(ranged && (k === 'minimum' || k === 'maximum'))) out[k] = strip(v);
    return out;
  };
  return strip(doc) as Json;
}
