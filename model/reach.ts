/**
 * What may happen to a transaction between two looks at it: the statuses it may have reached by
 * transitions not seen, and the transitions that lead from one status to another. Both read the
 * moves off the model's own answers (transitions.ts `answers`: every operation, at any time, with
 * either payment outcome) and the expiry, so they follow `x-state-machine` as the model reads it.
 */
import { stateMachine } from '../generated/contract.ts';
import type { Interval } from './time.ts';
import { EXPIRY, STATUSES, answers, transitionById, type Status, type Transition } from './transitions.ts';

/** Any time at all: the guards of time considered both ways. */
const ANY_TIME: Interval = { from: -Infinity, to: Infinity };
const OPERATIONS = [...new Set(stateMachine.transitions.map((t): string | undefined => t.trigger.operationId))].filter(
  (o) => o !== undefined,
);

/** Per status, the transitions some operation (or time) may make from it. */
const MOVES = new Map<Status, Transition[]>(
  STATUSES.map((s) => {
    const ids = new Set<string>();
    for (const op of OPERATIONS)
      for (const a of answers(op, [s], ANY_TIME, { expiresAt: { from: 0, to: 0 } })) if (a.transition) ids.add(a.transition);
    if (EXPIRY.from.includes(s)) ids.add(EXPIRY.id);
    return [s, [...ids].map(transitionById).filter((t) => t.from !== null)];
  }),
);

/** The transitions that may leave `s`. */
function movesFrom(s: Status): readonly Transition[] {
  return MOVES.get(s) ?? [];
}

/**
 * The statuses a transaction in one of `from` may be in after transitions not seen (those of `from`
 * included); `by`: only transitions it allows (a profile that drives some operations only).
 */
export function reachable(from: Iterable<Status>, by: (t: Transition) => boolean = () => true): Set<Status> {
  const out = new Set<Status>(from);
  for (const s of out) for (const t of movesFrom(s)) if (by(t)) out.add(t.to);
  return out;
}

/** The transitions, in order, of the shortest way from `from` to `to` (empty when equal), or undefined when none leads there. */
export function pathBetween(from: Status, to: Status): Transition[] | undefined {
  const via = new Map<Status, Transition[]>([[from, []]]);
  for (const [s, path] of via) {
    if (s === to) return path;
    for (const t of movesFrom(s)) if (!via.has(t.to)) via.set(t.to, [...path, t]);
  }
  return undefined;
}
