/**
 * A merchant's names and A2's record judged against what is known (`judgeStatusRecord`): the judge
 * and the suite's A2 check both call it, each wording its own findings. `sameNames`: the merchant's
 * names in every record, answer or event that shows them are the ones first shown.
 */
import { parseLocalDateTime } from '../model/local-date.ts';
import { finding, type Judging, type Json } from './context.ts';
import type { MerchantMemory } from './memory.ts';

type Name = 'merchantName' | 'storeName';

/** The members a record shows a merchant's names in (B-family and events; A2 and A3 in their own member names). */
const NAME_ENTRIES: Array<[string, Name]> = [
  ['merchantName', 'merchantName'],
  ['merchant_name', 'merchantName'],
  ['storeName', 'storeName'],
  ['store_name', 'storeName'],
];

/** What is known of a record's transaction and merchant; each part is judged only when given. */
export interface RecordKnowledge {
  /** The merchant's names as first shown: a name not known yet is learned here, from the record. */
  names?: Partial<Record<Name, unknown>>;
  /** Whether `phone` is the transaction's customerPhone (the first showing learned by the caller). */
  samePhone?: (phone: string) => boolean;
  /** When the transaction was made (ms on the server's clock, slack included). */
  created?: { from: number; to: number };
  /** When the last change was (ms, an interval: an expiry's is its payment window's end), and the status it led to, in the checkout's form (A2's `status`). */
  updated?: { from: number; to: number; status: string };
}

/** A member of a record that contradicts what is known (`read`: a date as read back, null when it does not read as one). */
export type RecordVerdict =
  | { problem: 'name'; member: string; name: Name; expected: unknown; actual: string }
  | { problem: 'phone'; actual: string }
  | { problem: 'created_at' | 'updated_at'; read: number | null; actual: unknown };

/**
 * A record against what is known of it: the merchant's names in every record that shows them are
 * the ones first shown; A2's customer_phone is the transaction's; its created_at, read in ADR-007's
 * form and written in whole seconds (the instant lies in [t, t + 1 s)), meets the interval the
 * transaction was made in; its updated_at, while it shows the status of the last change, is that
 * change's instant to the second.
 * @judges a2-status-record
 */
export function judgeStatusRecord(rec: Record<string, unknown>, k: RecordKnowledge): RecordVerdict[] {
  const out: RecordVerdict[] = [];
  if (k.names)
    for (const [member, name] of NAME_ENTRIES) {
      const value = rec[member];
      if (typeof value !== 'string') continue;
      if (k.names[name] === undefined) k.names[name] = value;
      else if (k.names[name] !== value) out.push({ problem: 'name', member, name, expected: k.names[name], actual: value });
    }
  if (k.samePhone && typeof rec.customer_phone === 'string' && !k.samePhone(rec.customer_phone))
    out.push({ problem: 'phone', actual: rec.customer_phone });
  if (k.created) {
    const t = parseLocalDateTime(rec.created_at);
    if (t === null || t + 1000 <= k.created.from || t > k.created.to) out.push({ problem: 'created_at', read: t, actual: rec.created_at });
  }
  if (k.updated && rec.status === k.updated.status) {
    const t = parseLocalDateTime(rec.updated_at);
    if (t !== null && (t >= k.updated.to + 1000 || t + 1000 <= k.updated.from))
      out.push({ problem: 'updated_at', read: t, actual: rec.updated_at });
  }
  return out;
}

/** A merchant's names in a record of merchant `m`: the ones first shown, everywhere. */
export function sameNames(s: { seq: number; opId: string }, j: Judging, m: MerchantMemory, json: Json, txId?: string): void {
  for (const v of judgeStatusRecord(json, { names: m.names }))
    if (v.problem === 'name')
      j.out.push(
        finding({
          kind: 'contradiction',
          at: s,
          txId,
          jsonPath: `$.${v.member}`,
          message: `${s.opId} shows ${v.name} ${JSON.stringify(v.actual)}; this merchant's ${v.name} is ${JSON.stringify(v.expected)} in every earlier answer`,
          expected: v.expected,
          actual: v.actual,
        }),
      );
}
