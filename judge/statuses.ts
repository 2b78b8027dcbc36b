/**
 * Sets of statuses as the judge keeps them: each set one shared, frozen array of the statuses in
 * x-state-machine's order (there are 2^statuses of them), so a transaction holds a pointer, never a
 * copy, and two sets are equal exactly when they are the same array. Every move between them is
 * the model's (`reachable`, `pathBetween`, `refusedFrom`).
 */
import { INITIAL, STATUSES, reachable, type Status } from '../model/index.ts';

export type StatusSet = readonly Status[];

const INDEX = new Map<string, number>(STATUSES.map((s, i) => [s, i]));
/** Every set, by the bits of its statuses (taken once at load). */
const SETS: StatusSet[] = Array.from({ length: 1 << STATUSES.length }, (_, bits) =>
  Object.freeze(STATUSES.filter((_s, i) => bits & (1 << i))),
);
const bitsOf = (statuses: Iterable<string>): number => {
  let bits = 0;
  for (const s of statuses) bits |= 1 << (INDEX.get(s) ?? 31);
  return bits & (SETS.length - 1);
};

/** The one shared set of `statuses` (names not of the state machine ignored). */
export function statusSet(statuses: Iterable<string>): StatusSet {
  return SETS[bitsOf(statuses)]!;
}

export const NONE: StatusSet = statusSet([]);
export const ALL: StatusSet = statusSet(STATUSES);
/** The status a transaction is created in (the model's INITIAL). */
export const PENDING = INITIAL;

/** The set of one status (NONE for a name the state machine does not have). */
export const only = (s: string): StatusSet => statusSet([s]);

/** The statuses both sets hold. */
export const both = (a: StatusSet, b: StatusSet): StatusSet => SETS[bitsOf(a) & bitsOf(b)]!;

/** Per set, the model's `reachable` of it: the statuses after transitions not seen (its own included). */
const REACH = new Map<StatusSet, StatusSet>(SETS.map((s) => [s, statusSet(reachable(s))]));
export const reach = (s: StatusSet): StatusSet => REACH.get(s)!;

/**
 * Per set, the statuses no call may move it to: by its clock (x-state-machine's clock-triggered
 * transitions, the expiry), and, for a transaction a sandbox scenario's customer acts on (ADR-043),
 * by the customer's transitions too; its own included.
 */
const UNCALLED = (kinds: string[]) =>
  new Map<StatusSet, StatusSet>(SETS.map((s) => [s, statusSet(reachable(s, (t) => kinds.includes(t.trigger.kind)))]));
const BY_CLOCK = UNCALLED(['clock']);
const BY_CLOCK_OR_SCENARIO = UNCALLED(['clock', 'customer']);
export const reachUncalled = (s: StatusSet, scenario: boolean): StatusSet => (scenario ? BY_CLOCK_OR_SCENARIO : BY_CLOCK).get(s)!;
