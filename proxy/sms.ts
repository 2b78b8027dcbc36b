/**
 * The confirmation SMS (`confirmation-sms`: B1 sends the customer one, to its customerPhone) as the
 * sandbox SMS outbox shows it, judged against the B1 answers the proxy saw: each page's messages go
 * to their transaction's customerPhone and name none of another merchant's transactions; the
 * outbox read to its end through its cursors (or filtered by `transactionId`) holds exactly one
 * message for each transaction the merchant created through the proxy before the read began.
 */
import { finding, type Observation, type StateFinding } from './finding.ts';
import type { Walk } from './pages.ts';
import type { Json } from './state-store.ts';

/** A transaction B1 made through the proxy: its customerPhone's `smallHash`, and when (wall ms) the answer ended. */
export interface Made {
  ph: number;
  at: number;
}

/** What the SMS judge reads of the tracker, for one merchant. */
export interface SmsKnowledge {
  /** The merchant's transaction B1 made through the proxy, or undefined. */
  made: (id: string) => Made | undefined;
  /** Every transaction B1 made through the proxy for the merchant. */
  allMade: () => Iterable<[string, Made]>;
  /** The merchant of a transaction the proxy saw, or undefined. */
  ownerOf: (id: string) => string | undefined;
  /** `smallHash` of a phone (state-store.ts). */
  hash: (v: unknown) => number;
}

/**
 * One page of merchant `m`'s outbox: each message to its transaction's customerPhone, none about another merchant's transaction.
 * @judges confirmation-sms
 */
export function smsPage(ob: Observation, m: string, items: Json[], k: SmsKnowledge): StateFinding[] {
  const out: StateFinding[] = [];
  for (const [i, s] of items.entries()) {
    const id = String(s.transactionId);
    const made = k.made(id);
    const owner = k.ownerOf(id);
    if (owner !== undefined && owner !== m)
      out.push(
        finding({
          kind: 'sms',
          ob,
          txId: id,
          jsonPath: `$.data[${i}].transactionId`,
          message: `${ob.opId} lists an SMS about transaction ${id}, another merchant's`,
          expected: "this merchant's transactions only",
          actual: id,
        }),
      );
    else if (made && k.hash(s.to) !== made.ph)
      out.push(
        finding({
          kind: 'sms',
          ob,
          txId: id,
          jsonPath: `$.data[${i}].to`,
          message: `the confirmation SMS for transaction ${id} went to ${String(s.to)}, not to the customerPhone B1 answered for it`,
          expected: "the customerPhone of B1's answer",
          actual: s.to,
        }),
      );
  }
  return out;
}

/**
 * The outbox read whole (a walk through its cursors from the first page, its query's
 * `transactionId` filter applied): one message for each transaction the merchant created through
 * the proxy before the walk began, and never two for one.
 * @judges confirmation-sms
 */
export function smsWalk(walk: Walk, ob: Observation, k: SmsKnowledge): StateFinding[] {
  const count = new Map<string, number>();
  for (const s of walk.items) count.set(String(s.transactionId), (count.get(String(s.transactionId)) ?? 0) + 1);
  const only = walk.query.get('transactionId');
  const tx = { first: walk.first, last: walk.first };
  for (const [id, made] of k.allMade()) {
    const n = count.get(id) ?? 0;
    if (n === 1 || (only !== null && id !== only) || (n === 0 && made.at > walk.sentAt)) continue;
    return [
      finding({
        kind: 'sms',
        ob,
        txId: id,
        tx,
        jsonPath: '$.data',
        message: `${n} confirmation SMS for transaction ${id} in the outbox read to its end (exchanges ${walk.first}–${ob.seq}${only === null ? '' : `, filtered by transactionId`}); B1 sends its customer one`,
        expected: 1,
        actual: n,
      }),
    ];
  }
  return [];
}
