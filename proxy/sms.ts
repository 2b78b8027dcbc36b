/**
 * The confirmation SMS (`confirmation-sms`: B1 sends the customer one, to its customerPhone) as the
 * sandbox SMS outbox shows it, judged by the suite's `judgeSms` (conformance/commands/smsOutbox.ts)
 * against the B1 answers the proxy saw: each page's messages go to their transaction's
 * customerPhone and name none of another merchant's transactions; the outbox read to its end
 * through its cursors (or filtered by `transactionId`) holds exactly one message for each
 * transaction the merchant created through the proxy before the read began. This file keeps what
 * the proxy remembers of those transactions (a phone's hash, when B1 answered) and words the findings.
 */
import { judgeSms, type SmsKnowledge as Knowledge } from '../conformance/commands/smsOutbox.ts';
import { finding, type Observation, type StateFinding } from './finding.ts';
import type { Walk } from './pages.ts';
import type { Json } from './state-store.ts';

/** A transaction B1 made through the proxy: its customerPhone's `smallHash`, and when (wall ms) the answer ended. */
export interface Made {
  ph: number;
  at: number;
}

/** What the proxy remembers for the SMS judge, for one merchant. */
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

/** The proxy's memory of merchant `m`, as the judge reads it. */
function knowledge(m: string, k: SmsKnowledge): Knowledge {
  return {
    foreign: (id) => {
      const owner = k.ownerOf(id);
      return owner !== undefined && owner !== m;
    },
    toItsPhone: (id, to) => {
      const made = k.made(id);
      return made === undefined ? undefined : k.hash(to) === made.ph;
    },
    made: function* () {
      for (const [id, made] of k.allMade()) yield [id, made.at];
    },
  };
}

/**
 * One page of merchant `m`'s outbox: each message to its transaction's customerPhone, none about
 * another merchant's transaction; a page with a next cursor never two for one transaction B1 made
 * through the proxy (a last page's count is the whole read's, `smsWalk`).
 */
export function smsPage(ob: Observation, m: string, items: Json[], k: SmsKnowledge): StateFinding[] {
  const out: StateFinding[] = [];
  const json = ob.json as { nextCursor?: unknown; next_cursor?: unknown } | undefined;
  const more = typeof json?.nextCursor === 'string' || typeof json?.next_cursor === 'string';
  for (const v of judgeSms(items, knowledge(m, k)))
    if (v.problem === 'count') {
      if (more)
        out.push(
          finding({
            kind: 'sms',
            ob,
            txId: v.id,
            jsonPath: '$.data',
            message: `${ob.opId} lists ${v.n} confirmation SMS for transaction ${v.id} on one page; B1 sends its customer one`,
            expected: 1,
            actual: v.n,
          }),
        );
    } else if (v.problem === 'foreign')
      out.push(
        finding({
          kind: 'sms',
          ob,
          txId: v.id,
          jsonPath: `$.data[${v.index}].transactionId`,
          message: `${ob.opId} lists an SMS about transaction ${v.id}, another merchant's`,
          expected: "this merchant's transactions only",
          actual: v.id,
        }),
      );
    else if (v.problem === 'phone')
      out.push(
        finding({
          kind: 'sms',
          ob,
          txId: v.id,
          jsonPath: `$.data[${v.index}].to`,
          message: `the confirmation SMS for transaction ${v.id} went to ${String(v.to)}, not to the customerPhone B1 answered for it`,
          expected: "the customerPhone of B1's answer",
          actual: v.to,
        }),
      );
  return out;
}

/**
 * The outbox read whole (a walk through its cursors from the first page, its query's
 * `transactionId` filter applied) by merchant `m`: its first wrong count of confirmations.
 */
export function smsWalk(walk: Walk, ob: Observation, m: string, k: SmsKnowledge): StateFinding[] {
  const only = walk.query.get('transactionId');
  const wrong = judgeSms(walk.items, knowledge(m, k), { only, sentAt: walk.sentAt }).find((v) => v.problem === 'count');
  if (wrong?.problem !== 'count') return [];
  return [
    finding({
      kind: 'sms',
      ob,
      txId: wrong.id,
      tx: { first: walk.first, last: walk.first },
      jsonPath: '$.data',
      message: `${wrong.n} confirmation SMS for transaction ${wrong.id} in the outbox read to its end (exchanges ${walk.first}–${ob.seq}${only === null ? '' : `, filtered by transactionId`}); B1 sends its customer one`,
      expected: 1,
      actual: wrong.n,
    }),
  ];
}
