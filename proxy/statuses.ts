/**
 * Sets of statuses as the proxy keeps them (a bit per status, so a transaction costs one number),
 * and the moves between them, all taken from the model (model/transitions.ts `answers`): which
 * transitions each operation may make from a status, whatever the time and a payment's outcome.
 * The proxy adds only what its bounded memory needs: the statuses a transaction may have reached
 * between two answers (transitions it did not see), and the transitions that led there.
 */
import { stateMachine } from '../generated/index.ts';
import { answers, rejectionOf, transitionById, EXPIRY, type Status, type Transition, type Interval } from '../model/index.ts';

export { transitionsOf } from '../model/index.ts';

export type { Status };
export const STATUSES = Object.keys(stateMachine.states) as Status[];
const BIT = new Map<string, number>(STATUSES.map((s, i) => [s, 1 << i]));
export const ALL = (1 << STATUSES.length) - 1;
export const PENDING = stateMachine.initial as Status;
export { EXPIRY };
export const bit = (s: string): number => BIT.get(s) ?? 0;
export const names = (mask: number): Status[] => STATUSES.filter((s) => mask & bit(s));

/** Any time at all: the guards of time considered both ways. */
const ANY_TIME: Interval = { from: -Infinity, to: Infinity };
const OPERATIONS = [...new Set(stateMachine.transitions.map((t): string | undefined => t.trigger.operationId))].filter(
  (o) => o !== undefined,
);

/** Per status, the transitions some operation (or time) may make from it, by the model's answers. */
const MOVES = new Map<Status, Transition[]>(
  STATUSES.map((s) => {
    const ids = new Set<string>();
    for (const op of OPERATIONS)
      for (const a of answers(op, [s], ANY_TIME, { expiresAt: { from: 0, to: 0 } })) if (a.transition) ids.add(a.transition);
    if (EXPIRY.from.includes(s)) ids.add(EXPIRY.id);
    return [s, [...ids].map(transitionById).filter((t) => t.from !== null)];
  }),
);

/** The statuses a transaction in one of `mask` may be in after transitions not seen (itself included). */
export function reach(mask: number): number {
  let out = mask;
  for (let grew = true; grew;) {
    grew = false;
    for (const s of names(out))
      for (const t of MOVES.get(s)!)
        if (!(out & bit(t.to))) {
          out |= bit(t.to);
          grew = true;
        }
  }
  return out;
}

/** The transitions (in order) from `from` to `to`: the shortest way, or undefined. */
export function steps(from: Status, to: Status): Transition[] | undefined {
  const queue: { s: Status; via: Transition[] }[] = [{ s: from, via: [] }];
  const seen = new Set<Status>([from]);
  for (let q = queue.shift(); q; q = queue.shift()) {
    if (q.s === to) return q.via;
    for (const t of MOVES.get(q.s)!)
      if (!seen.has(t.to)) {
        seen.add(t.to);
        queue.push({ s: t.to, via: [...q.via, t] });
      }
  }
  return undefined;
}

/**
 * The statuses from which the model refuses `op` with (status, code): a refusal narrows what the transaction was.
 * @judges b4-only-pending
 */
export function refusedFrom(op: string, status: number, code: string | undefined): number {
  let mask = 0;
  for (const s of STATUSES) {
    const r = rejectionOf(op, s);
    if (r && r.status === status && r.code === code) mask |= bit(s);
  }
  return mask;
}
