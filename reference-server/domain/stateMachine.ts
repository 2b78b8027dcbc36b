/**
 * The server's binding of the model's state machine (model/transitions.ts): one status, one
 * instant, exactly one outcome, with the rejection's message written for the HTTP answer. The
 * transitions, guards and rejections are the model's, read from `x-state-machine`.
 */
import { ERROR_MESSAGES, formatMessage } from '../../lib/error-messages.ts';
import { EXPIRY, at, decide, paymentWindowSeconds, maxPaymentWindowSeconds as maxWindow } from '../../model/index.ts';
import { requiredStatesOf, type TransitionId } from '../../model/index.ts';
import type { WebhookEventName } from './outbox-event.ts';
import type { Status } from './types.ts';

export type { TransitionId };
export { EXPIRY };

export interface GuardContext {
  /** The merchant's now, epoch ms. */
  now: number;
  /** createdAt + payment window, epoch ms (absent for creations). */
  expiresAt?: number;
  /** Outcome of a simulated checkout payment. */
  outcome?: 'success' | 'failed';
}

export type Outcome =
  | { ok: true; transition: TransitionId; to: Status; emits: WebhookEventName | null }
  | { ok: false; kind: 'rejected'; status: number; code: string; message: string }
  | { ok: false; kind: 'guard'; transition: TransitionId }
  | { ok: false; kind: 'none' };

/** The one message of a state-machine rejection: the state its code asks for and the current one. */
function rejectionMessage(code: string, from: Status): string {
  const template = (ERROR_MESSAGES as Record<string, readonly string[]>)[code]?.[0];
  if (!template) throw new Error(`state machine: rejection code ${code} has no message in lib/error-messages.ts`);
  return formatMessage(template, { required: requiredStatesOf(code).join(' or '), status: from });
}

/**
 * What `operationId` does to a transaction in status `from` (null: creation) at `ctx.now`: the
 * model's `decide`, with a rejection's message (the state its code asks for and the current one).
 * @binds state-transitions, b4-only-pending, ADR-009
 */
export function attempt(operationId: string, from: Status | null, ctx: GuardContext): Outcome {
  const o = decide(operationId, from, ctx.now, {
    expiresAt: ctx.expiresAt === undefined ? undefined : at(ctx.expiresAt),
    outcome: ctx.outcome,
  });
  switch (o.kind) {
    case 'moved':
      return { ok: true, transition: o.transition, to: o.to, emits: o.emits };
    case 'refused':
      return { ok: false, kind: 'rejected', status: o.status, code: o.code, message: rejectionMessage(o.code, from!) };
    case 'held':
      return { ok: false, kind: 'guard', transition: o.transition };
    case 'none':
      return { ok: false, kind: 'none' };
  }
}

export const defaultPaymentWindowSeconds: number = paymentWindowSeconds();
/** The largest payment window a deployment may configure (`maxSeconds`, ADR-010). */
export const maxPaymentWindowSeconds: number = maxWindow;
