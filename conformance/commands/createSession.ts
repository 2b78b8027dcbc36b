/** A1: create a checkout session; the model counts requests per key and window (x-rate-limit). */
import { amountRange, firstByPrecedence, tokenLifetimeSeconds, type ErrorCode } from '../../generated/index.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { centimesFromNumber, centimesOf, centimesToNumber } from '../../lib/money.ts';
import type { Contract } from '../spec.ts';
import type { Who, World } from '../world.ts';
import { a1Reserved } from '../model-rate.ts';

type Json = Record<string, unknown>;

/** What the contract answers a request body: the validation code (ADR-057), AMOUNT_MISMATCH, the business rules' codes. */
export interface BodyVerdict {
  /** The one validation code that answers (empty: the body passes validation). */
  validation: string[];
  /** amount-consistency fails (only judged once validation passes). */
  mismatch: boolean;
  /** The business rules' codes, in their order (e.g. B1's AMOUNT_OUT_OF_RANGE). */
  business: string[];
}

/**
 * amount-range (ADR-006): each request member marked `x-amount-range` (A1 `total`, B1 `totalAmount`)
 * whose value lies outside the generated `amountRange` (components/facts/AmountRange.yaml), with the
 * code it answers — a validation range its member's `x-error-code` (A1 INVALID_AMOUNT, even for a
 * decimal string the schema cannot range), a business range its `x-business-rule` code (B1
 * AMOUNT_OUT_OF_RANGE). Bounds compared in centimes.
 */
export function amountRangeFailures(contract: Contract, opId: string, body: Json): { validation: string[]; business: string[] } {
  const min = centimesFromNumber(amountRange.minimum)!;
  const max = centimesFromNumber(amountRange.maximum)!;
  const out = { validation: [] as string[], business: [] as string[] };
  for (const [name, p] of Object.entries((contract.requestSchema(opId).properties ?? {}) as Record<string, Json>)) {
    if (p['x-amount-range'] === undefined || body[name] === undefined) continue;
    const c = centimesOf(body[name]);
    if (c !== null && c >= min && c <= max) continue;
    const rule = p['x-business-rule'] as { code: string } | undefined;
    if (rule) out.business.push(rule.code);
    else out.validation.push(contract.errorCodeOf(opId, name));
  }
  return out;
}

/**
 * amount-consistency: the total differs from Σ price × quantity over the lines, the members named
 * by the request schema's `x-amount-consistency` (A1: total, items, price, quantity), in centimes
 * (400 AMOUNT_MISMATCH). False for an operation without the rule.
 */
export function amountMismatch(contract: Contract, opId: string, body: Json): boolean {
  const ac = contract.requestSchema(opId)['x-amount-consistency'] as
    { total: string; lines: string; price: string; quantity: string } | undefined;
  if (!ac) return false;
  let sum = 0;
  for (const line of body[ac.lines] as Json[]) sum += (centimesOf(line[ac.price]) ?? NaN) * (line[ac.quantity] as number);
  return centimesOf(body[ac.total]) !== sum;
}

/**
 * The answer the contract gives a request body. A body failing several ways has one answer
 * (ADR-057): among the codes of its failing members (the schema's, then a validation amount range
 * the schema cannot check), the one first in `x-error-precedence` (generated `firstByPrecedence`).
 * A body that passes validation is then judged by amount-consistency and the business rules.
 */
export function classifyBody(contract: Contract, opId: string, body: unknown): BodyVerdict {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Json;
  const range = amountRangeFailures(contract, opId, b);
  const failing = [...new Set([...contract.schemaFailures(opId, body), ...range.validation])];
  if (failing.length) return { validation: [firstByPrecedence(failing, (c) => c)], mismatch: false, business: [] };
  return { validation: [], mismatch: amountMismatch(contract, opId, b), business: range.business };
}

/** Sends one A1 request and checks it against the rate-limit model and the body's classification. */
export async function sendSession(m: Model, w: World, body: Json, who: Who = 'main'): Promise<'limited' | 'created' | 'refused'> {
  const limited = w.rateLimited(who);
  const cls = classifyBody(w.contract, 'createSession', body);
  const normal: Outcome[] = cls.validation.map((code) => refusal(code as ErrorCode));
  if (!normal.length && cls.mismatch) normal.push(refusal('AMOUNT_MISMATCH'));
  if (!normal.length) normal.push(w.success('createSession'));
  const rl = w.rateLimit();
  const allowed =
    limited === 'yes' ? [refusal('RATE_LIMIT_EXCEEDED')] : limited === 'no' ? normal : [...normal, refusal('RATE_LIMIT_EXCEEDED')];
  const ex = await w.client.call('createSession', { headers: w.auth('createSession', w.key(who)), body });
  w.expectOutcome(ex, allowed);
  w.countRate(who, ex);
  if (ex.status === 429) {
    const err = (ex.json as { error: Json }).error;
    // ADR-006: one wait, the rest of the window, in the body and both headers.
    const wait = err.retry_after;
    w.check(
      typeof wait === 'number' && Number.isInteger(wait) && wait >= 1 && wait <= rl.windowSeconds,
      'createSession',
      '$.error.retry_after',
      `retry_after ${String(wait)} is not a wait within the ${rl.windowSeconds} s window`,
      `1..${rl.windowSeconds}`,
      wait,
    );
    for (const [header, name] of [
      ['retry-after', 'Retry-After'],
      ['ratelimit-reset', 'RateLimit-Reset'],
    ] as const) {
      w.check(
        ex.responseHeaders[header] === String(wait),
        'createSession',
        `header ${name}`,
        `${name} ${ex.responseHeaders[header]} differs from retry_after ${String(wait)}`,
        wait,
        ex.responseHeaders[header],
      );
    }
    return 'limited';
  }
  // the other merchant's sessions are not driven further (payments and verifications are the main merchant's)
  if (!w.succeeded(ex) || who !== 'main') return w.succeeded(ex) ? 'created' : 'refused';
  const rec = ex.json as Json;
  const token = (w.cfg.variant === 1 ? rec.token : rec.session_token) as string;
  if (w.cfg.variant === 1) {
    const exp = Date.parse(rec.expiresAt as string);
    w.check(Number.isFinite(exp), 'createSession', '$.expiresAt', 'expiresAt is not a date');
    w.checkInstant(ex, '$.expiresAt', rec.expiresAt, 'the end of the token lifetime', tokenLifetimeSeconds * 1000);
  }
  m.sessions.push({
    token,
    who: 'main',
    total: centimesToNumber(centimesOf(body.total)!),
    sentAt: ex.sentAt,
    receivedAt: ex.receivedAt,
    advAtCreation: w.state.advanced.main,
  });
  return 'created';
}

/** @checks a1-required-fields, amount-range, a1-currency, a1-items, amount-consistency, a1-session-response, ADR-012, ADR-057 */
export class CreateSession implements Cmd {
  constructor(
    readonly body: Json,
    readonly label: string,
  ) {}
  check(m: Readonly<Model>): boolean {
    return !a1Reserved(m.state);
  }
  async run(m: Model, w: Real): Promise<void> {
    await sendSession(m, w, this.body);
  }
  toString(): string {
    return `createSession(${this.label})`;
  }
}
