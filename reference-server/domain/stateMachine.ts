/**
 * Interpreter of the spec's `x-state-machine` (generated/contract.ts `stateMachine`).
 * Transitions, their triggers, emitted events and rejections are read from the contract;
 * only the guards, named by transition id, are code here (they are predicates over the
 * context the spec describes in prose).
 */
import { ERROR_MESSAGES, formatMessage } from '../../lib/error-messages.ts';
import { stateMachine } from '../../generated/contract.ts';
import type { WebhookEventName } from './outbox-event.ts';
import type { Status } from './types.ts';

type Transition = (typeof stateMachine.transitions)[number];
export type TransitionId = Transition['id'];

export interface GuardContext {
  /** The merchant's now, epoch ms. */
  now: number;
  /** createdAt + payment window, epoch ms (absent for creations). */
  expiresAt?: number;
  /** Outcome of a simulated checkout payment. */
  outcome?: 'success' | 'failed';
}

/** Guards by transition id. A transition id the spec adds without a guard here fails loudly at start. */
const GUARDS: Record<TransitionId, (ctx: GuardContext) => boolean> = {
  create: () => true,
  'checkout-pay': () => true,
  confirm: (c) => c.expiresAt !== undefined && c.now < c.expiresAt,
  'checkout-success': (c) => c.outcome === 'success' && c.expiresAt !== undefined && c.now < c.expiresAt,
  'merchant-cancel': () => true,
  'customer-cancel': () => true,
  expire: (c) => c.expiresAt !== undefined && c.now >= c.expiresAt,
  complete: () => true,
};
for (const t of stateMachine.transitions) {
  if (!(t.id in GUARDS)) throw new Error(`state machine: no guard for transition '${t.id}'`);
}

export type Outcome =
  | { ok: true; transition: TransitionId; to: Status; emits: WebhookEventName | null }
  | { ok: false; kind: 'rejected'; status: number; code: string; message: string }
  | { ok: false; kind: 'guard'; transition: TransitionId }
  | { ok: false; kind: 'none' };

function fromList(t: Transition): readonly string[] | null {
  return t.from === null ? null : t.from;
}

/**
 * The states each rejection code asks for: the `from` states of the transitions of every
 * operation the spec rejects with that code (TRANSACTION_NOT_PENDING → PENDING). An
 * operation that changes nothing (sdkCancelPaymentIntent) takes its code's states.
 */
const requiredStates = new Map<string, string>();
for (const code of new Set(stateMachine.rejections.map((r) => r.code))) {
  const states = new Set<string>();
  for (const r of stateMachine.rejections) {
    if (r.code !== code) continue;
    for (const t of stateMachine.transitions)
      if (t.trigger.operationId === r.trigger.operationId && t.from !== null) for (const st of t.from) states.add(st);
  }
  if (states.size === 0) throw new Error(`state machine: rejection code ${code} rejects no operation that moves a transaction`);
  requiredStates.set(code, [...states].join(' or '));
}

/** The one message of a state-machine rejection: the state its code asks for and the current one. */
function rejectionMessage(code: string, from: Status): string {
  const template = (ERROR_MESSAGES as Record<string, readonly string[]>)[code]?.[0];
  if (!template) throw new Error(`state machine: rejection code ${code} has no message in lib/error-messages.ts`);
  return formatMessage(template, { required: requiredStates.get(code) ?? '?', status: from });
}

/**
 * What `operationId` does to a transaction in status `from` (null: creation). The first
 * transition of that trigger whose `from` matches and whose guard holds wins; when none
 * matches but the spec lists a rejection, the rejection's status and code.
 * @rule state-transitions, b4-only-pending, ADR-009
 */
export function attempt(operationId: string, from: Status | null, ctx: GuardContext): Outcome {
  let guardFailed: TransitionId | null = null;
  for (const t of stateMachine.transitions) {
    if (t.trigger.operationId !== operationId) continue;
    const f = fromList(t);
    if (from === null ? f !== null : f === null || !f.includes(from)) continue;
    if (!GUARDS[t.id](ctx)) {
      guardFailed ??= t.id;
      continue;
    }
    return { ok: true, transition: t.id, to: t.to, emits: t.emits ?? null };
  }
  if (guardFailed) return { ok: false, kind: 'guard', transition: guardFailed };
  for (const r of stateMachine.rejections) {
    if (r.trigger.operationId === operationId && from !== null && (r.from as readonly string[]).includes(from)) {
      return { ok: false, kind: 'rejected', status: r.status, code: r.code, message: rejectionMessage(r.code, from) };
    }
  }
  return { ok: false, kind: 'none' };
}

/** The transition time drives (trigger kind `clock`). */
const clockTransition = stateMachine.transitions.find((t) => t.trigger.kind === 'clock');
if (!clockTransition) throw new Error('state machine: no clock-triggered transition (expiry)');
export const EXPIRY = {
  id: clockTransition.id,
  from: clockTransition.from as readonly string[],
  to: clockTransition.to,
  emits: clockTransition.emits ?? null,
};

/**
 * True when time has moved a transaction past its window: it must read as EXPIRED now. The
 * predicate of ADR-010; the expired record is `expireIfDue`'s.
 */
export function isDueToExpire(status: Status, now: number, expiresAt: number): boolean {
  return EXPIRY.from.includes(status) && GUARDS[EXPIRY.id]({ now, expiresAt });
}

export const defaultPaymentWindowSeconds: number = stateMachine.paymentWindow.defaultSeconds;
/** The largest payment window a deployment may configure (`maxSeconds`, ADR-010). */
export const maxPaymentWindowSeconds: number = stateMachine.paymentWindow.maxSeconds;
