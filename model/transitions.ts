/**
 * The interpretation of `x-state-machine` (generated/contract.ts `stateMachine`): what an operation
 * does to a transaction. Transitions, triggers, events and rejections are the contract's data; only
 * the guards, named by transition id, are code here (the spec states them in prose). Two forms:
 * - `decide`: one status, one instant, exactly one outcome (the reference server);
 * - `answers`: a set of statuses and an interval, every answer the contract allows with the
 *   statuses after each (the conformance suite, the proxy).
 */
import { stateMachine, variants } from '../generated/contract.ts';
import { at as instant, expiryOf, reached, within, type Interval, type Verdict } from './time.ts';
import { catalogueValues } from '../lib/error-messages.ts';

export type Status = keyof typeof stateMachine.states;
export type Transition = (typeof stateMachine.transitions)[number];
export type TransitionId = Transition['id'];
export type EventName = NonNullable<Transition['emits']>;

/** What a guard may look at: whether the payment window has passed, and a simulated payment's outcome. */
export interface GuardFacts {
  expired: boolean;
  outcome?: 'success' | 'failed';
}

/** Guards by transition id. A transition id the spec adds without a guard here fails loudly at load. */
const GUARDS: Record<TransitionId, (f: GuardFacts) => boolean> = {
  create: () => true,
  'checkout-pay': () => true,
  confirm: (f) => !f.expired,
  'checkout-success': (f) => f.outcome === 'success' && !f.expired,
  'merchant-cancel': () => true,
  'customer-cancel': () => true,
  expire: (f) => f.expired,
  complete: () => true,
};
for (const t of stateMachine.transitions) {
  if (!(t.id in GUARDS)) throw new Error(`model: no guard for transition '${t.id}'`);
}

/** The status every transaction is created in (x-state-machine's `initial`). */
export const INITIAL = stateMachine.initial as Status;

/** The transition time drives (trigger kind `clock`): the expiry. */
const clock = stateMachine.transitions.find((t) => t.trigger.kind === 'clock');
if (!clock) throw new Error('model: x-state-machine has no clock-triggered transition (expiry)');
export const EXPIRY = {
  id: clock.id,
  from: clock.from as readonly Status[],
  to: clock.to,
  emits: clock.emits,
};

/** One outcome of an operation on a transaction in one status. */
export type Outcome =
  /** A transition of the state machine: the transaction moves to `to` and `emits` its event. */
  | { kind: 'moved'; transition: TransitionId; to: Status; emits: EventName | null }
  /** A rejection the spec lists: answered `status` with `code`; the transaction does not move. */
  | { kind: 'refused'; status: number; code: string }
  /** A transition of the operation exists from this status but its guard failed (a failed simulated payment). */
  | { kind: 'held'; transition: TransitionId }
  /** The state machine says nothing of this operation from this status (it moves nothing: sdkCancelPaymentIntent from PENDING). */
  | { kind: 'none' };

function fromOf(t: Transition): readonly Status[] | null {
  return t.from;
}

/**
 * The one outcome of `op` on a transaction in `from` (null: a creation), given the guard facts: the
 * first transition of that trigger whose `from` matches and whose guard holds; when none, the
 * rejection the spec lists. Both forms (`decide`, `answers`) walk the table through it.
 * @rule state-transitions, ADR-009
 */
export function outcomeOf(op: string, from: Status | null, facts: GuardFacts): Outcome {
  let held: TransitionId | null = null;
  for (const t of stateMachine.transitions) {
    if (t.trigger.operationId !== op) continue;
    const f = fromOf(t);
    if (from === null ? f !== null : f === null || !f.includes(from)) continue;
    if (!GUARDS[t.id](facts)) {
      held ??= t.id;
      continue;
    }
    return { kind: 'moved', transition: t.id, to: t.to, emits: t.emits ?? null };
  }
  if (held) return { kind: 'held', transition: held };
  const r = from === null ? undefined : rejectionOf(op, from);
  return r ? { kind: 'refused', ...r } : { kind: 'none' };
}

/**
 * The rejection (status, code) of `op` from `from`, read from `stateMachine.rejections` (B4 from
 * anything but PENDING: 400 TRANSACTION_NOT_PENDING); undefined when none is listed.
 * @rule b4-only-pending
 */
export function rejectionOf(op: string, from: Status): { status: number; code: string } | undefined {
  const r = stateMachine.rejections.find((x) => x.trigger.operationId === op && (x.from as readonly string[]).includes(from));
  return r ? { status: r.status, code: r.code } : undefined;
}

/** Every status of x-state-machine, in the spec's order. */
export const STATUSES = Object.keys(stateMachine.states) as Status[];

/**
 * What a refusal of `op` seen as (status, code, message) says the transaction was: the statuses
 * from which the model refuses it so (`rejectionOf`), narrowed to the one its catalogue message
 * names (`{status}`), when that one is among them. The suite narrows its model by it after a
 * refused B4, the proxy its memory of the transaction.
 * @judges b4-only-pending
 */
export function refusedFrom(op: string, status: number, code: string | undefined, message?: unknown): Status[] {
  const from = STATUSES.filter((s) => {
    const r = rejectionOf(op, s);
    return r !== undefined && r.status === status && r.code === code;
  });
  const named = code !== undefined && typeof message === 'string' ? catalogueValues(code, message)?.status : undefined;
  return from.includes(named as Status) ? [named as Status] : from;
}

/** Facts of one transaction the model needs for a decision: the end of its payment window and a simulated payment's outcome. */
export interface TxFacts {
  /** createdAt + payment window (`expiryOf`); an exact instant is `at(t)`. */
  expiresAt: Interval;
  outcome?: 'success' | 'failed';
}

/**
 * The single-status, single-instant form: what `op` does at `now` to a transaction in `from`
 * (null: creation). Exactly one outcome. The caller has already applied time (`expiredBy`): a
 * PENDING transaction past its window must have been expired first, or its guarded moves hold.
 */
export function decide(op: string, from: Status | null, now: number, facts: Partial<TxFacts> = {}): Outcome {
  const expired = facts.expiresAt !== undefined && reached(instant(now), facts.expiresAt) === 'yes';
  return outcomeOf(op, from, { expired: facts.expiresAt === undefined ? false : expired, outcome: facts.outcome });
}

/**
 * Whether the payment window ending within `expiresAt` has passed during `now` (ADR-010: a
 * transaction expires exactly at createdAt + window).
 * @rule expiry
 */
export function expiredBy(now: Interval, expiresAt: Interval, slack = 0): Verdict {
  return reached(now, expiresAt, slack);
}

/**
 * What time does to a set of statuses during `now`: a status the expiry moves from becomes EXPIRED
 * when the window certainly passed, may be either when maybe. Other statuses stay.
 */
export function statusesDuring(statuses: Iterable<Status>, now: Interval, expiresAt: Interval, slack = 0): Status[] {
  const out = new Set<Status>();
  const v = expiredBy(now, expiresAt, slack);
  for (const s of statuses) {
    if (!EXPIRY.from.includes(s) || v === 'no') out.add(s);
    else if (v === 'yes') out.add(EXPIRY.to);
    else out.add(s).add(EXPIRY.to);
  }
  return [...out];
}

/** One answer the contract allows: its HTTP status, its error code (null on success), the statuses after it and the move made. */
export interface Answer {
  status: number;
  code: string | null;
  after: Status[];
  /** The transition made (null when nothing moved). */
  transition: TransitionId | null;
  emits: EventName | null;
}

const successStatus = new Map<string, number>();
for (const v of Object.values(variants)) {
  for (const [op, o] of Object.entries(v.operations as Record<string, { successStatus: number }>)) {
    const prev = successStatus.get(op);
    if (prev !== undefined && prev !== o.successStatus)
      throw new Error(`model: ${op} succeeds with ${prev} and ${o.successStatus} in the two variants`);
    successStatus.set(op, o.successStatus);
  }
}

/** The HTTP status of a successful answer of `op` (the same in both variants, checked at load). */
export function successStatusOf(op: string): number {
  const s = successStatus.get(op);
  if (s === undefined) throw new Error(`model: ${op} is in neither variant`);
  return s;
}

/**
 * The set form: every answer the contract allows to `op` sent during `now` on a transaction that
 * may be in any of `from` (null: a creation), with the statuses after each. Time acts first: a
 * status the window may have expired is considered both ways (`statusesDuring`), and a PENDING
 * status that is still PENDING is one whose window had not passed when the server decided.
 * `outcome` unknown (undefined) considers both.
 */
export function answers(op: string, from: Iterable<Status> | null, now: Interval, facts: TxFacts, slack = 0): Answer[] {
  const out = new Map<string, Answer>();
  const add = (a: Answer) => {
    const key = `${a.status} ${a.code} ${a.transition}`;
    const prev = out.get(key);
    if (prev) prev.after = [...new Set([...prev.after, ...a.after])];
    else out.set(key, a);
  };
  const outcomes: Array<GuardFacts['outcome']> = facts.outcome !== undefined ? [facts.outcome] : ['success', 'failed'];
  const statuses: Array<Status | null> = from === null ? [null] : statusesDuring(from, now, facts.expiresAt, slack);
  for (const s of statuses) {
    // a status the expiry leaves was decided before the window passed; any other: time is irrelevant to its guards
    const expiredCases = s !== null && EXPIRY.from.includes(s) ? [false] : [false, true];
    for (const expired of expiredCases)
      for (const outcome of outcomes) {
        const o = outcomeOf(op, s, { expired, outcome });
        if (o.kind === 'moved') add({ status: successStatusOf(op), code: null, after: [o.to], transition: o.transition, emits: o.emits });
        else if (o.kind === 'refused') add({ status: o.status, code: o.code, after: [s!], transition: null, emits: null });
        else if (s !== null) add({ status: successStatusOf(op), code: null, after: [s], transition: null, emits: null });
      }
  }
  return [...out.values()];
}

/**
 * The states a rejection code asks for: the `from` states of the transitions of every operation
 * the spec rejects with that code (TRANSACTION_NOT_PENDING → PENDING), for its message.
 */
export function requiredStatesOf(code: string): Status[] {
  const states = new Set<Status>();
  for (const r of stateMachine.rejections) {
    if (r.code !== code) continue;
    for (const t of stateMachine.transitions)
      if (t.trigger.operationId === r.trigger.operationId && t.from !== null) for (const s of t.from as readonly Status[]) states.add(s);
  }
  return [...states];
}
for (const code of new Set(stateMachine.rejections.map((r) => r.code))) {
  if (requiredStatesOf(code).length === 0) throw new Error(`model: rejection code ${code} rejects no operation that moves a transaction`);
}

/** The transitions triggered by `op`. */
export function transitionsOf(op: string): Transition[] {
  return stateMachine.transitions.filter((t) => t.trigger.operationId === op);
}

/** The transition `id` of x-state-machine. */
export function transitionById(id: string): Transition {
  const t = stateMachine.transitions.find((x) => x.id === id);
  if (!t) throw new Error(`model: no transition ${id} in x-state-machine`);
  return t;
}

/** What an answer showed of a transaction's status, and when, for the expiry judge (one merchant's clock, ms). */
export interface ExpirySight {
  /** The statuses the answer leaves it in: one for a record shown, several for a refusal by state. */
  shown: readonly Status[];
  /** The statuses it may have been in before the answer. */
  before: readonly Status[];
  /** The server's clock while the exchange lasted. */
  during: Interval;
  /** The latest the server's clock can have read by the answer's end (a change is stamped up to then). */
  latest: number;
  /** The end of its payment window (`expiryOf`). */
  expiresAt: Interval;
}

/** The expiry judge's verdict on one answer. */
export interface ExpiryJudgement {
  /** Still in a status the expiry moves from, though the window had certainly passed when the server answered. */
  late: boolean;
  /** Moved by the expiry (from certainly a status it moves from) though the window cannot have passed by the answer's end. */
  early: boolean;
  /** `shown` without the expiry's status when the window cannot have passed by the answer's end. */
  possible: Status[];
}

/**
 * The expiry rule judged on an answer (the proxy's judge, its clock tolerance as `slack`): the
 * model's expiry guard (`expiredBy`) on the exchange's interval, for a status the expiry leaves in
 * place, and on everything up to the answer's end, for the expiry's own status.
 * @judges expiry
 */
export function judgeExpiry(s: ExpirySight, slack = 0): ExpiryJudgement {
  const notYet = expiredBy({ from: s.during.from, to: s.latest }, s.expiresAt, slack) === 'no';
  const one = s.shown.length === 1 ? s.shown[0] : undefined;
  return {
    late: one !== undefined && EXPIRY.from.includes(one) && expiredBy(s.during, s.expiresAt, slack) === 'yes',
    early: one === EXPIRY.to && notYet && s.before.length > 0 && s.before.every((b) => EXPIRY.from.includes(b)),
    possible: notYet ? s.shown.filter((x) => x !== EXPIRY.to) : [...s.shown],
  };
}

/**
 * ADR-010: the instant an expired transaction's record or event carries (`updatedAt`, `expiredAt`)
 * is the end of its payment window, its creation (`createdAt`, an interval) plus `windowSeconds`,
 * never the time a read noticed it; `shown` within `slack` of it. The suite's check and the
 * proxy's judge.
 * @judges ADR-010
 */
export function expiryInstantAllowed(createdAt: Interval, windowSeconds: number, shown: number, slack = 0): boolean {
  return within(expiryOf(createdAt, windowSeconds), shown, slack);
}
