/**
 * The amount range (`x-amount-range`, ADR-006) on the server: one answer for an amount outside
 * it, whoever notices. Variant 1's `total` carries a JSON Schema `minimum`/`maximum` copy, so
 * express-openapi-validator notices first and `rangeAnswerForValidation` rewrites its failure;
 * Variant 2's decimal-string `total` passes the schema (its pattern checks only the form) and
 * `checkAmountRange` notices after validation. B1's range is a business rule (`x-business-rule`,
 * 422), checked by the same function. The text comes from `generated/` (`amountRange.rule`).
 */
import { amountRange, type ErrorCode } from '../../generated/contract.ts';
import { isInAmountRange } from '../domain/limits.ts';
import { ApiError, type ErrorDetail } from './errors.ts';
import { nearestExtension, resolveRef } from './operations.ts';

type Json = Record<string, unknown>;

/** The answer for `property` outside the range: `<property> <rule>`, with a detail when the code is a 400. */
function outOfRange(code: ErrorCode, property: string, withDetail: boolean): ApiError {
  const details: ErrorDetail[] | undefined = withDetail ? [{ path: `/${property}`, message: amountRange.rule }] : undefined;
  return new ApiError(code, `${property} ${amountRange.rule}`, details);
}

/**
 * Throws the out-of-range answer for the first top-level body property with `x-amount-range`
 * whose value lies outside it: `business` false checks the validation ranges (400, the property's
 * `x-error-code`), `business` true the `x-business-rule` ones (their `code`).
 */
export function checkAmountRange(doc: Json, requestSchema: Json | null, body: unknown, business: boolean): void {
  if (!requestSchema || !body || typeof body !== 'object') return;
  const props = (resolveRef(doc, requestSchema)?.properties ?? {}) as Json;
  for (const property of Object.keys(props)) {
    if (nearestExtension(doc, requestSchema, [property], 'x-amount-range') === undefined) continue;
    const rule = nearestExtension(doc, requestSchema, [property], 'x-business-rule') as { code: ErrorCode } | undefined;
    if (Boolean(rule) !== business) continue;
    const value = (body as Json)[property];
    if (value === undefined || isInAmountRange(value)) continue;
    const code = rule ? rule.code : (nearestExtension(doc, requestSchema, [property], 'x-error-code') as ErrorCode | undefined) ?? 'VALIDATION_ERROR';
    throw outOfRange(code, property, !rule);
  }
}

/**
 * The answer for a validator failure that is the amount range: the first failure is a
 * `minimum`/`maximum` of a top-level body property carrying `x-amount-range`. Otherwise null.
 */
export function rangeAnswerForValidation(
  doc: Json,
  requestSchema: Json | null,
  first: { path?: string; errorCode?: string } | undefined,
  code: ErrorCode,
): ApiError | null {
  const m = /^\/body\/([^/]+)$/.exec(first?.path ?? '');
  if (!m || !requestSchema || !/^(minimum|maximum)\./.test(first?.errorCode ?? '')) return null;
  const property = m[1]!.replace(/~1/g, '/').replace(/~0/g, '~');
  if (nearestExtension(doc, requestSchema, [property], 'x-amount-range') === undefined) return null;
  return outOfRange(code, property, true);
}
