/**
 * A transaction record's fields over time: which never change once created, and the timestamp
 * rules (createdAt fixed; updatedAt null until the first change, then in the interval of the latest
 * change; an expired transaction's change dated the end of its window, ADR-010).
 */
import { sameJson } from './same.ts';
import { within, type Interval } from './time.ts';

/** The fields of a partner transaction record that never change once created: every read shows them as created. */
export const IMMUTABLE_FIELDS = [
  'id',
  'orderReference',
  'vendorReference',
  'totalAmount',
  'currency',
  'customerPhone',
  'merchantName',
  'storeName',
  'items',
  'createdAt',
] as const;
export type ImmutableField = (typeof IMMUTABLE_FIELDS)[number];

/**
 * The immutable fields of `later` that differ from `first` (semantic comparison: member order never
 * counts; an array's order counts only where `ordered(field)` says the contract fixes it, ADR-048).
 * A field `later` does not carry is not judged.
 */
export function changedFields(
  first: Readonly<Record<string, unknown>>,
  later: Readonly<Record<string, unknown>>,
  ordered: (field: ImmutableField) => boolean = () => true,
): ImmutableField[] {
  return IMMUTABLE_FIELDS.filter((f) => f in later && f in first && !sameJson(first[f], later[f], ordered(f)));
}

/** What the model knows of a transaction's timestamps: when it was created and when it last changed (null: never). */
export interface Timestamps {
  readonly createdAt: Interval;
  readonly lastChange: Interval | null;
}

/** A new transaction's timestamps: created within `now`, never changed. */
export function created(now: Interval): Timestamps {
  return { createdAt: now, lastChange: null };
}

/** The timestamps after a change made within `now` (a transition; an expiry: the window's end, `expiryOf`). */
export function changed(t: Timestamps, now: Interval): Timestamps {
  return { createdAt: t.createdAt, lastChange: now };
}

/**
 * Whether `updatedAt` (epoch ms, or null) may be what a record shows: null — or, in A2's record,
 * createdAt itself (`beforeChange: 'created'`, ADR-007) — until the first change; then an instant
 * of the latest change's interval (widened by `slack`).
 */
export function updatedAtAllowed(
  updatedAt: number | null,
  t: Timestamps,
  createdAt: number,
  beforeChange: 'null' | 'created' = 'null',
  slack = 0,
): boolean {
  if (t.lastChange === null) return beforeChange === 'null' ? updatedAt === null : updatedAt === createdAt;
  return updatedAt !== null && within(t.lastChange, updatedAt, slack);
}
