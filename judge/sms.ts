/**
 * The confirmation SMS (`confirmation-sms`: B1 sends the customer one, to its customerPhone) as the
 * sandbox SMS outbox lists it (`judgeSms`, the suite's checks call it too, each side wording its
 * verdicts), and the judge's reading of the outbox against the B1 answers it saw
 * (`smsKnowledge`): each page's messages go to their transaction's customerPhone and name none of
 * another merchant's transactions; the outbox read to its end (or filtered by `transactionId`)
 * holds exactly one message for each transaction the merchant made through the ear before the read began.
 */
import { deletedUnseen, deletionRuledOut, finding, isRecord, type Json, type Judging, type Seen } from './context.ts';
import type { Finding } from './exchange.ts';
import { epoch, madeDuring, type ListWalk, type MerchantMemory } from './memory.ts';
import { smallHash } from './prints.ts';

/** One message as the outbox lists it. */
export type ListedSms = Record<string, unknown>;

/** What the judge knows of one merchant's transactions: the suite's model, or the judge's bounded memory. */
export interface SmsKnowledge {
  /** Whether transaction `id` is known to be another merchant's (a message about it is not this merchant's). */
  foreign: (id: string) => boolean;
  /** Whether `to` is the customerPhone of this merchant's transaction `id`; undefined when its phone is not known. */
  toItsPhone: (id: string, to: unknown) => boolean | undefined;
  /** The merchant's transactions each whole read holds one confirmation for, and when each was made (on the read's clock). */
  made: () => Iterable<[id: string, at: number]>;
}

/** A whole read of the outbox: its `transactionId` filter (or null), and when its first page was sent. */
export interface WholeRead {
  only: string | null;
  sentAt: number;
}

/** What is wrong with a listed outbox: a message about another merchant's transaction, to another phone, or a count other than one. */
export type SmsVerdict =
  | { problem: 'foreign'; index: number; id: string }
  | { problem: 'phone'; index: number; id: string; to: unknown }
  | { problem: 'count'; id: string; n: number };

/**
 * The outbox as listed (`items`: a page, or a read to its end when `whole` is given) against the
 * transactions the merchant created: each message is about one of its own, to that transaction's
 * customerPhone, and no part of it holds two for one of them; read whole, it holds exactly one
 * confirmation for each transaction made before the read began (its filter applied), and never two
 * for one made meanwhile.
 * @judges confirmation-sms
 */
export function judgeSms(items: readonly ListedSms[], k: SmsKnowledge, whole?: WholeRead): SmsVerdict[] {
  const out: SmsVerdict[] = [];
  const count = new Map<string, number>();
  for (const [index, s] of items.entries()) {
    const id = String(s.transactionId);
    count.set(id, (count.get(id) ?? 0) + 1);
    if (k.foreign(id)) out.push({ problem: 'foreign', index, id });
    else if (k.toItsPhone(id, s.to) === false) out.push({ problem: 'phone', index, id, to: s.to });
  }
  if (whole)
    for (const [id, at] of k.made()) {
      const n = count.get(id) ?? 0;
      if (n !== 1 && (whole.only === null || id === whole.only) && !(n === 0 && at > whole.sentAt)) out.push({ problem: 'count', id, n });
    }
  // a part of the outbox (a page) already shows too many for a transaction whose phone is known
  else for (const [id, n] of count) if (n > 1 && k.toItsPhone(id, undefined) !== undefined) out.push({ problem: 'count', id, n });
  return out;
}

/** The judge's memory of merchant `m`, as `judgeSms` reads it: the transactions B1 made through the ear. */
export function smsKnowledge(j: Judging, m: MerchantMemory): SmsKnowledge {
  const madeHere = (id: string) => {
    const tx = j.memory.transactions.get(id);
    return tx && tx.merchant === m.id && tx.kind === 'partner' && tx.madeAt !== null ? tx : undefined;
  };
  return {
    foreign: (id) => {
      const owner = j.memory.transactions.get(id)?.merchant;
      return owner !== undefined && owner !== m.id;
    },
    toItsPhone: (id, to) => {
      const tx = madeHere(id);
      return tx === undefined ? undefined : smallHash(to) === tx.customerPhoneHash;
    },
    made: function* () {
      for (const [id, tx] of j.memory.transactions)
        if (tx.merchant === m.id && tx.kind === 'partner' && tx.madeAt !== null) yield [id, epoch(j.memory, tx.madeAt + tx.madeWithinMs)];
    },
  };
}

/**
 * One page of merchant `m`'s outbox: each message to its transaction's customerPhone, none about
 * another merchant's transaction; a page with a next cursor never two for one transaction B1 made
 * through the ear (a last page's count is the whole read's, `smsWalk`).
 */
export function judgeSmsOutbox(s: Seen, j: Judging): void {
  const m = s.merchant;
  const json = s.json as { data?: unknown; nextCursor?: unknown } | undefined;
  if (m === null || s.status !== 200 || !Array.isArray(json?.data)) return;
  const items = json.data.filter((x): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x));
  const more = typeof json.nextCursor === 'string';
  for (const v of judgeSms(items, smsKnowledge(j, m)))
    if (v.problem === 'count') {
      if (more)
        j.out.push(
          finding({
            kind: 'sms',
            at: s,
            txId: v.id,
            jsonPath: '$.data',
            message: `${s.opId} lists ${v.n} confirmation SMS for transaction ${v.id} on one page; B1 sends its customer one`,
            expected: 1,
            actual: v.n,
          }),
        );
    } else if (v.problem === 'foreign')
      j.out.push(
        finding({
          kind: 'sms',
          at: s,
          txId: v.id,
          jsonPath: `$.data[${v.index}].transactionId`,
          message: `${s.opId} lists an SMS about transaction ${v.id}, another merchant's`,
          expected: "this merchant's transactions only",
          actual: v.id,
        }),
      );
    else
      j.out.push(
        finding({
          kind: 'sms',
          at: s,
          txId: v.id,
          jsonPath: `$.data[${v.index}].to`,
          message: `the confirmation SMS for transaction ${v.id} went to ${String(v.to)}, not to the customerPhone B1 answered for it`,
          expected: "the customerPhone of B1's answer",
          actual: v.to,
        }),
      );
}

/** The outbox read whole (a read through its cursors from the first page, its `transactionId` filter applied): its first wrong count of confirmations. */
export function smsWalk(j: Judging, m: MerchantMemory, walk: ListWalk, s: Seen): Finding[] {
  const only = walk.query.get('transactionId');
  const wrong = judgeSms(walk.items, smsKnowledge(j, m), { only, sentAt: walk.sentAt }).find((v) => v.problem === 'count');
  if (wrong?.problem !== 'count') return [];
  if (wrong.n === 0) {
    const lastPage = isRecord(s.json) && Array.isArray(s.json.data) ? (s.json.data as unknown[]) : [];
    const listed = lastPage.map((x) => (isRecord(x) ? x.transactionId : undefined));
    if (!deletionRuledOut(j.memory, wrong.id, listed) && deletedUnseen(j, m)) return [];
  }
  return [
    finding({
      kind: 'sms',
      at: s,
      txId: wrong.id,
      earlier: [walk.first],
      jsonPath: '$.data',
      message: `${wrong.n} confirmation SMS for transaction ${wrong.id} in the outbox read to its end (exchanges ${walk.first}–${s.seq}${only === null ? '' : `, filtered by transactionId`}); B1 sends its customer one`,
      expected: 1,
      actual: wrong.n,
    }),
  ];
}

/** When a listed SMS was made, as the ear saw it: the B1 exchange that made its transaction (the outbox's insertion order). */
export function smsMade(j: Judging, m: MerchantMemory): (item: Json) => { from: number; to: number } | undefined {
  return (item) => {
    const tx = j.memory.transactions.get(String(item.transactionId));
    return tx && tx.merchant === m.id && tx.kind === 'partner' ? madeDuring(j.memory, tx) : undefined;
  };
}
