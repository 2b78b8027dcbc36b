/**
 * Reads judged against each other and against what the memory holds: ownership's "another
 * merchant's transaction reads exactly as a missing one" (`judgeNotFound`: every 404 of an
 * operation with one code reads the same, the request's own values aside, the model's
 * `notFoundText`); A2's record (names.ts `judgeStatusRecord`, the suite's check calls it too) and
 * A3's (`judgeVerification`): the merchant's names, the checkout form of a status the transaction may be in, its phone, its
 * creation within the paid session's exchange, its last change's instant.
 */
import { checkoutStatusOf } from '../generated/index.ts';
import { EXPIRY, expiryOf, judgeOwnership, notFoundText } from '../model/index.ts';
import { earSlack, iso } from './clock.ts';
import { around, deletedUnseen, errorCode, finding, isRecord, type Judging, type Json, type Seen } from './context.ts';
import { afterEvents, ruledOut } from './events.ts';
import { checkoutExpiry, overlaps, owned } from './moves.ts';
import { judgeStatusRecord, sameNames } from './names.ts';
import { smallHash } from './prints.ts';
import { both, reach, statusSet, type StatusSet } from './statuses.ts';
import { epoch, type TransactionMemory } from './memory.ts';

/**
 * A 404 against the first 404 of the operation with its code: the same text, whoever's the
 * transaction (none, or another merchant's): the model's `notFoundText` compares them.
 */
export function judgeNotFound(s: Seen, j: Judging): void {
  const code = errorCode(s.json);
  if (s.status !== 404 || code === undefined || !isRecord(s.json)) return;
  const text = notFoundText(JSON.stringify(s.json), Object.values(s.params));
  const key = `${s.opId} ${code}`;
  const first = j.memory.notFound.get(key);
  if (!first) {
    j.memory.notFound.set(key, { text, seq: s.seq });
    return;
  }
  if (first.text === text) return;
  j.out.push(
    finding({
      kind: 'other-merchant',
      at: s,
      earlier: [first.seq],
      jsonPath: '$.error',
      message: `${s.opId} answered 404 ${code} with another body than exchange ${first.seq} did: a missing transaction and another merchant's read the same (the request's own values aside)`,
      expected: first.text,
      actual: text,
    }),
  );
}

const CHECKOUT_FORM = checkoutStatusOf as Record<string, string>;

/**
 * A status in the checkout form (A2, A3: `checkoutStatusOf`, EXPIRED read as CANCELED) against what
 * the transaction may be: a form none of its reachable statuses shows is a status no transition
 * leads to; and, for a transaction a paid session made through the ear, a form standing for PENDING
 * once the payment window has certainly passed since.
 */
export function judgeCheckoutStatus(s: Seen, j: Judging, id: string, reported: unknown): void {
  const tx = j.memory.transactions.get(id);
  if (!tx || typeof reported !== 'string') return;
  const shows = statusSet(Object.keys(CHECKOUT_FORM).filter((st) => CHECKOUT_FORM[st] === reported));
  // an event received before this read began, of a transition the status shown rules out
  if (shows.length === 1) ruledOut(s, j, tx, id, shows);
  if (
    shows.length &&
    !both(reach(tx.possibleStatuses), shows).length &&
    !(overlaps(j.memory, tx, s) && both(reach(tx.statusesBeforeLastChange), shows).length)
  )
    j.out.push(
      finding({
        kind: 'no-transition',
        at: s,
        txId: id,
        earlier: around(tx),
        jsonPath: '$.status',
        message: `${s.opId} shows ${reported} for transaction ${id}, which was ${tx.possibleStatuses.join(' or ')}: no transition leads to a status shown as ${reported}`,
        expected: [...new Set(reach(tx.possibleStatuses).map((st) => CHECKOUT_FORM[st]))],
        actual: reported,
      }),
    );
  if (tx.madeAt === null || tx.kind !== 'checkout' || tx.createdAt === null) return;
  const shown = statusSet(tx.possibleStatuses.filter((st) => CHECKOUT_FORM[st] === reported));
  const judged = checkoutExpiry(j, tx, s, shown);
  if (judged.late)
    j.out.push(
      finding({
        kind: 'expiry-time',
        at: s,
        txId: id,
        earlier: around(tx),
        jsonPath: '$.status',
        message: `${s.opId} shows ${String(reported)} for checkout transaction ${id} after its payment window (${j.settings.paymentWindowMs / 1000} s from its paid session, which ended by ${iso(judged.expiresAt.to - j.settings.paymentWindowMs)})`,
        expected: CHECKOUT_FORM[EXPIRY.to],
        actual: reported,
      }),
    );
}

/**
 * A2's record against what the judge saw of its transaction (`judgeStatusRecord`): its
 * customer_phone the one first shown, created_at within the exchange of the paid session that made
 * the transaction, updated_at the last change's instant the answers showed (while that status is certain).
 */
export function judgeLocalDates(s: Seen, j: Judging, id: string, json: Json): void {
  const tx = j.memory.transactions.get(id);
  if (!tx) return;
  const tol = j.settings.tolerance;
  const from = tx.kind === 'checkout' && tx.madeAt !== null ? tx.createdAt : null;
  const now = tx.possibleStatuses;
  const shows = statusSet(Object.keys(CHECKOUT_FORM).filter((st) => CHECKOUT_FORM[st] === json.status));
  const lastChange = lastChangeOf(s, j, tx, now, afterEvents(tx, s.sentAt, both(reach(now), shows)));
  const verdicts = judgeStatusRecord(json, {
    samePhone: (phone) => {
      if (tx.customerPhoneHash === 0) tx.customerPhoneHash = smallHash(phone);
      return smallHash(phone) === tx.customerPhoneHash;
    },
    ...(from === null ? {} : { created: { from: from - tol, to: from + tx.createdWithinMs + tol } }),
    ...(lastChange === null ? {} : { updated: lastChange }),
  });
  const push = (member: string, message: string, expected: unknown) =>
    j.out.push(timestampFinding(s, tx, id, member, message, expected, json[member]));
  for (const v of verdicts) {
    if (v.problem === 'phone')
      j.out.push(
        finding({
          kind: 'contradiction',
          at: s,
          txId: id,
          earlier: around(tx),
          jsonPath: '$.customer_phone',
          message: `${s.opId} shows customer_phone ${v.actual} for transaction ${id}; an earlier answer, request or event showed another`,
          expected: "the transaction's customerPhone",
          actual: v.actual,
        }),
      );
    // a created_at that reads as no date is the answer judge's (its schema's pattern)
    else if (v.problem === 'created_at' && v.read !== null && from !== null)
      push(
        'created_at',
        `${s.opId}'s created_at ${String(json.created_at)} reads (DD/MM/YY, UTC, ADR-007) as ${iso(v.read)}; the paid session made transaction ${id} between ${iso(from)} and ${iso(from + tx.createdWithinMs)}`,
        iso(from),
      );
    else if (v.problem === 'updated_at' && v.read !== null && lastChange !== null)
      push(
        'updated_at',
        `${s.opId}'s updated_at ${String(json.updated_at)} reads as ${iso(v.read)}; the last change of transaction ${id} (to what A2 shows as ${String(json.status)}) was ${lastChange.from === lastChange.to ? `at ${iso(lastChange.from)}` : `between ${iso(lastChange.from)} and ${iso(lastChange.to)} (its payment window's end)`}`,
        iso(lastChange.from),
      );
  }
}

/**
 * When the last change of `tx` was, if known: as an answer showed its updatedAt (in the one status
 * `now`), or, for a checkout transaction the ear saw paid that `shown` (what the read shows, the
 * events received before it counted) is expired, its payment window's end (its creation and this
 * read both read off the ear's clock: `earSlack`).
 */
function lastChangeOf(
  s: Seen,
  j: Judging,
  tx: TransactionMemory,
  now: StatusSet,
  shown: StatusSet,
): { from: number; to: number; status: string } | null {
  if (overlaps(j.memory, tx, s)) return null;
  if (now.length === 1 && tx.updatedAt !== null) return { from: tx.updatedAt, to: tx.updatedAt, status: CHECKOUT_FORM[now[0]!]! };
  if (shown.length !== 1 || shown[0] !== EXPIRY.to || tx.kind !== 'checkout' || tx.madeAt === null || tx.createdAt === null) return null;
  const end = expiryOf({ from: tx.createdAt, to: tx.createdAt + tx.createdWithinMs }, j.settings.paymentWindowMs / 1000);
  // as checkoutExpiry: the ear's skew cancels out only of a creation read off the ear's clock
  const slack =
    tx.createdWithinMs === 0 ? j.settings.tolerance : earSlack(j.memory, epoch(j.memory, tx.madeAt), s.receivedAt, j.settings.tolerance);
  return { from: end.from - slack, to: end.to + slack, status: CHECKOUT_FORM[EXPIRY.to]! };
}

/** A3 (Variant 1's verification by key): ownership, the merchant's names, the checkout form of the status. */
export function judgeVerification(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null) return;
  const id = s.params.transactionId ?? '';
  const tx = j.memory.transactions.get(id);
  const owner = judgeOwnership(owned(tx), m.id, 'checkout', s.status, errorCode(s.json));
  if (owner === 'own-404' && !deletedUnseen(j, m))
    j.out.push(
      finding({
        kind: 'own-404',
        at: s,
        txId: id,
        earlier: around(tx),
        jsonPath: '$',
        message: `A3 answered 404 for checkout transaction ${id}, paid by this merchant's session`,
      }),
    );
  if (s.status === 200 && isRecord(s.json)) {
    sameNames(s, j, m, s.json, id);
    judgeCheckoutStatus(s, j, id, s.json.status);
  }
  if (owner === 'other-merchant')
    j.out.push(
      finding({
        kind: 'other-merchant',
        at: s,
        txId: id,
        earlier: around(tx),
        jsonPath: '$.id',
        message: `A3 showed transaction ${id} of another merchant`,
      }),
    );
}

/** A timestamp of transaction `id` (`member` of the answer) other than what the judge knows of it. */
const timestampFinding = (
  s: Seen,
  tx: TransactionMemory,
  id: string,
  member: string,
  message: string,
  expected: unknown,
  actual: unknown,
) => finding({ kind: 'timestamps', at: s, txId: id, earlier: around(tx), jsonPath: `$.${member}`, message, expected, actual });

/**
 * A record's createdAt for a transaction whose creation the judge knew only within an interval (a
 * checkout transaction: its paying exchange, or from its session's A1 to then), or not at all (made
 * on a clock it does not follow): it must lie within that interval, and from then on it is the
 * creation's instant, so A2's created_at, the events and the expiry are judged against it whatever
 * the clock did since.
 */
export function judgeCreationShown(s: Seen, j: Judging, id: string, tx: TransactionMemory, c: number): void {
  if (tx.createdAt !== null && tx.createdWithinMs === 0) return;
  const tol = j.settings.tolerance;
  if (tx.createdAt !== null && (c < tx.createdAt - tol || c > tx.createdAt + tx.createdWithinMs + tol))
    j.out.push(
      timestampFinding(
        s,
        tx,
        id,
        'createdAt',
        `createdAt ${iso(c)} of transaction ${id} is outside the time the judge saw it made in (server clock between ${iso(tx.createdAt - tol)} and ${iso(tx.createdAt + tx.createdWithinMs + tol)})`,
        iso(tx.createdAt),
        iso(c),
      ),
    );
  tx.createdAt = c;
  tx.createdWithinMs = 0;
}
