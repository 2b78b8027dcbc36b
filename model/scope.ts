/**
 * Scope: what one merchant's write may reach and what a read must then show. A write reaches its
 * own merchant's records and sandbox only (ownership; vendorReferences are unique per merchant,
 * ADR-049; the sandbox's operations are "own merchant only", ADR-041, ADR-042, ADR-052, ADR-056),
 * so every record of another merchant that shares a key with it (its witness) reads back as it
 * was, and so does the other merchant's sandbox state. A list filters before it pages (ADR-028):
 * every page holds matching items only. A reset deletes what the lists held (ADR-041); a fault
 * rule answers exactly its `times` calls (ADR-052); a secret signs the next delivery, and during a
 * rotation window the previous one signs beside it, the new one first (ADR-042).
 * Pure: the caller (the suite's witness, the proxy's judge) gives what it knows and what it read.
 */
import { sameJson } from './same.ts';
import type { Interval } from './time.ts';

/** The lookup keys a write names, in its path, its body or its answer. */
export interface WriteKeys {
  vendorReferences: readonly string[];
  transactionIds: readonly string[];
  sessionTokens: readonly string[];
}

/** A record as the scope rules see it: its merchant and its keys. */
export interface KeyedRecord {
  id: string;
  merchant: string;
  vendorReference: string | null;
  sessionToken?: string | null;
}

/** Whether record `r` shares a key with a write naming `keys` (a reference is compared exactly, ADR-049). */
export function sharesKey(keys: WriteKeys, r: KeyedRecord): boolean {
  return (
    keys.transactionIds.includes(r.id) ||
    (r.vendorReference !== null && keys.vendorReferences.includes(r.vendorReference)) ||
    (typeof r.sessionToken === 'string' && keys.sessionTokens.includes(r.sessionToken))
  );
}

/**
 * The witnesses of a write made by merchant `writer`: the records of every other merchant that
 * share a key with it. The write reaches none of them, so each must read back unchanged.
 */
export function witnessesOf<R extends KeyedRecord>(writer: string, keys: WriteKeys, records: Iterable<R>): R[] {
  const out: R[] = [];
  for (const r of records) if (r.merchant !== writer && sharesKey(keys, r)) out.push(r);
  return out;
}

/**
 * The members of a merchant's sandbox state (one read of the clock, the webhook endpoint, the
 * fault rule or the API log) that differ between two reads, semantically; `moving`: members that
 * move by themselves (the clock's `now`), left out.
 */
export function changedMembers(before: unknown, after: unknown, moving: readonly string[] = []): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((n) => !moving.includes(n) && !sameJson(a[n], b[n])).sort();
}

/** What a merchant's lists held just before a reset with `deleteData`: each count exact, sessions at least. */
export interface HeldCounts {
  transactions: number;
  sms: number;
  deliveries: number;
  /** Sessions are not listed: the ones the caller is known to have created. */
  sessionsAtLeast: number;
}

/** A member of a reset's `deleted` that disagrees with what was held. */
export interface CountProblem {
  member: string;
  expected: number | string;
  actual: unknown;
}

/**
 * A reset's `deleted` counts (ADR-041): without `deleteData` nothing is deleted (every count 0);
 * with it, the transactions, SMS and deliveries its lists held just before (`held`), and at least
 * the sessions it is known to have created.
 */
export function resetCountProblems(deleted: unknown, held: HeldCounts | null): CountProblem[] {
  const d = (deleted ?? {}) as Record<string, unknown>;
  const want: [string, number, 'exact' | 'at least'][] = held
    ? [
        ['transactions', held.transactions, 'exact'],
        ['sms', held.sms, 'exact'],
        ['deliveries', held.deliveries, 'exact'],
        ['sessions', held.sessionsAtLeast, 'at least'],
      ]
    : ['transactions', 'sms', 'deliveries', 'sessions'].map((m) => [m, 0, 'exact']);
  return want
    .filter(([m, n, how]) => typeof d[m] !== 'number' || (how === 'exact' ? d[m] !== n : d[m] < n))
    .map(([m, n, how]) => ({ member: m, expected: how === 'exact' ? n : `at least ${n}`, actual: d[m] }));
}

/** The counts of a fault rule as read (ADR-052). */
export interface FaultRuleCounts {
  times: number;
  used: number;
}

/** Whether the next call a fault rule names is answered with its failure (ADR-052): while it has answered fewer than `times`. */
export function faultRuleAnswers(rule: FaultRuleCounts | null): boolean {
  return rule !== null && rule.used < rule.times;
}

/**
 * A fault rule as read (`rule` of the answer) against the calls it is known to have answered
 * (`expected`; null: no rule): its `times`, `used` (at most `times`) and `remaining` (`times` − `used`).
 */
export function faultRuleProblems(rule: unknown, expected: FaultRuleCounts | null): CountProblem[] {
  if (expected === null) return rule === null ? [] : [{ member: 'rule', expected: 'null', actual: rule }];
  const r = (rule ?? {}) as Record<string, unknown>;
  const want: [string, number][] = [
    ['times', expected.times],
    ['used', Math.min(expected.used, expected.times)],
    ['remaining', expected.times - Math.min(expected.used, expected.times)],
  ];
  return want.filter(([m, n]) => r[m] !== n).map(([m, n]) => ({ member: m, expected: n, actual: r[m] }));
}

/** A webhook endpoint's signing secrets as the API showed them (instants in ms on the merchant's sandbox clock). */
export interface SigningState {
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

/**
 * The secrets that sign a delivery sent during `at` (the merchant's sandbox time), in the order of
 * its `webhook-signature` (ADR-042): the current one, then the previous one while its window is
 * open (`must`); `may`, the previous one when its window may have ended during `at`.
 */
export function signersDue(s: SigningState, at: Interval): { must: string[]; may: string[] } {
  const must = s.secret === null ? [] : [s.secret];
  if (s.previousSecret === null || s.previousSecretExpiresAt === null) return { must, may: [] };
  if (at.to < s.previousSecretExpiresAt) return { must: [...must, s.previousSecret], may: [] };
  if (at.from >= s.previousSecretExpiresAt) return { must, may: [] };
  return { must, may: [s.previousSecret] };
}

/**
 * What is wrong with a delivery's signatures against the secrets due (`signersDue`): `signers`, the
 * secret each `v1,` entry of its `webhook-signature` verifies with, in the header's order (null: none
 * the caller knows). Null when they agree.
 */
export function signatureProblem(
  due: { must: readonly string[]; may: readonly string[] },
  signers: readonly (string | null)[],
): string | null {
  const [first, ...rest] = due.must;
  if (first !== undefined && signers[0] !== first)
    return signers.includes(first) ? "the current secret's signature is not the first" : 'not signed with the current secret';
  for (const s of rest) if (!signers.includes(s)) return 'not signed with the previous secret while its window is open';
  const allowed = new Set([...due.must, ...due.may]);
  if (signers.some((s) => s === null || !allowed.has(s))) return 'signed with a secret that does not sign now';
  return null;
}

/**
 * The events a list shows for one transaction beyond those its transitions emitted (a multiset
 * difference); `optional`: events it may show besides (an expiry that may have happened).
 */
export function extraEvents(listed: readonly string[], emitted: readonly string[], optional: readonly string[] = []): string[] {
  const left = [...emitted, ...optional];
  const extra: string[] = [];
  for (const e of listed) {
    const i = left.indexOf(e);
    if (i < 0) extra.push(e);
    else left.splice(i, 1);
  }
  return extra;
}
