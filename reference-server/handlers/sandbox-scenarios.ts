/**
 * The sandbox scenarios of B1 (ADR-043), read from the operation's `x-sandbox-scenarios`:
 * a magic `total` answered with a 422 business rule, a magic customer phone whose customer
 * action is scheduled on the transaction (applied by the core through the state machine).
 */
import { errorMessage } from '../../lib/error-messages.ts';
import { centimesOf } from '../../lib/money.ts';
import type { ErrorCode } from '../../generated/contract.ts';
import { iso } from '../domain/clock.ts';
import { checkCreditLimit } from '../domain/limits.ts';
import type { Rejection } from '../domain/types.ts';
import { resolveRef } from '../http/operations.ts';
import type { Ctx } from './context.ts';

export interface SandboxScenarios {
  customerPhones: Array<{ customerPhone: string; outcome: string; operationId: string | null; afterSeconds: number | null }>;
  amounts: Array<{ total: number; code: ErrorCode }>;
}

const cache = new WeakMap<object, SandboxScenarios | null>();

/** The operation's `x-sandbox-scenarios`, or null when it declares none. */
export function scenariosOf(ctx: Ctx): SandboxScenarios | null {
  let s = cache.get(ctx.op);
  if (s === undefined) {
    const item = resolveRef(ctx.doc, (ctx.doc.paths as Record<string, unknown>)[ctx.op.path]);
    const op = item?.[ctx.op.method.toLowerCase()] as Record<string, unknown> | undefined;
    s = (resolveRef(ctx.doc, op?.['x-sandbox-scenarios']) as SandboxScenarios | null) ?? null;
    cache.set(ctx.op, s);
  }
  return s;
}

/** The 422 a magic total asks for, as its rule would answer it; null for any other total. */
export function magicAmountRejection(s: SandboxScenarios, total: number): Rejection | null {
  const centimes = centimesOf(total);
  const hit = s.amounts.find((a) => centimesOf(a.total) === centimes);
  if (!hit) return null;
  if (hit.code === 'MERCHANT_INACTIVE') return { code: hit.code, message: errorMessage('MERCHANT_INACTIVE') };
  // As a merchant whose credit limit is 0.
  if (hit.code === 'CREDIT_LIMIT_EXCEEDED') return checkCreditLimit([], centimes!, 0);
  return null; // AMOUNT_OUT_OF_RANGE: the real rule answers it
}

/**
 * The customer action a magic phone schedules, due `afterSeconds` after `nowMs`; undefined for any other phone.
 * @rule ADR-043
 */
export function scheduledAction(
  s: SandboxScenarios,
  customerPhone: string,
  nowMs: number,
): { operationId: string; dueAt: string } | undefined {
  const hit = s.customerPhones.find((p) => p.customerPhone === customerPhone);
  if (!hit || hit.operationId === null || hit.afterSeconds === null) return undefined;
  return { operationId: hit.operationId, dueAt: iso(nowMs + hit.afterSeconds * 1000) };
}
