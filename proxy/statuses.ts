/**
 * Sets of statuses as the proxy keeps them: a bit per status, so a transaction costs one number.
 * Every move between them is the model's (model/: `reachable`, `pathBetween`, `refusedFrom`); the
 * masks are only the proxy's bounded memory of the model's sets, each set's reach taken once.
 */
import { stateMachine } from '../generated/index.ts';
import * as model from '../model/index.ts';
import { EXPIRY, STATUSES, pathBetween, reachable, type Status, type Transition } from '../model/index.ts';

export { transitionsOf } from '../model/index.ts';

export type { Status };
export { STATUSES };
const BIT = new Map<string, number>(STATUSES.map((s, i) => [s, 1 << i]));
export const ALL = (1 << STATUSES.length) - 1;
export const PENDING = stateMachine.initial as Status;
export { EXPIRY };
export const bit = (s: string): number => BIT.get(s) ?? 0;
export const names = (mask: number): Status[] => STATUSES.filter((s) => mask & bit(s));
/** The mask of `statuses`. */
export const maskOf = (statuses: Iterable<Status>): number => {
  let m = 0;
  for (const s of statuses) m |= bit(s);
  return m;
};

/** Per mask, the model's `reachable` of its statuses, as a mask (2^statuses entries, taken at load). */
const REACH = Array.from({ length: ALL + 1 }, (_, mask) => maskOf(reachable(names(mask))));

/** The statuses a transaction in one of `mask` may be in after transitions not seen (itself included): the model's `reachable`. */
export function reach(mask: number): number {
  return REACH[mask & ALL]!;
}

/** The transitions (in order) from `from` to `to`: the model's shortest way, or undefined. */
export function steps(from: Status, to: Status): Transition[] | undefined {
  return pathBetween(from, to);
}

/** The statuses (a mask) the model's `refusedFrom` says a transaction was in, given its refusal of `op`. */
export function refusedFrom(op: string, status: number, code: string | undefined, message?: unknown): number {
  return maskOf(model.refusedFrom(op, status, code, message));
}
