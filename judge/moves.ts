/**
 * A transaction's status across exchanges, by x-state-machine through the model: the status an
 * answer shows must be reachable from what was known (`moved`), by a transition whose guard may
 * have held (the expiry only once the payment window may have passed: the model's `judgeExpiry`,
 * the clock tolerance its slack); a refusal by state narrows what it may be (`judgeRefusal`, the
 * model's `refusedFrom`). A read sent before the answer showing the latest change ended may still
 * show the status before it (concurrent requests).
 */
import {
  EXPIRY,
  expiryOf,
  judgeExpiry,
  judgeOwnership,
  pathBetween,
  refusedFrom,
  type ExpiryJudgement,
  type Interval,
  type Transition,
} from '../model/index.ts';
import { during, earSlack, iso, latestDuring } from './clock.ts';
import { around, deletedUnseen, errorCode, finding, isRecord, type FindingOf, type Judging, type Seen } from './context.ts';
import { expectEvent, ruledOut } from './events.ts';
import { epoch, kept, keptExactly, type JudgeMemory, type TransactionMemory } from './memory.ts';
import { PENDING, both, reach, statusSet, type StatusSet } from './statuses.ts';

/** The model's view of a kept transaction: its merchant and kind (ownership). */
export const owned = (tx: TransactionMemory | undefined) => (tx ? { merchantId: tx.merchant, kind: tx.kind } : undefined);

/** Sets what a transaction may be now, remembering what it was and when the answer showing the change ended. */
export function setStatuses(memory: JudgeMemory, tx: TransactionMemory, now: StatusSet, s: Pick<Seen, 'receivedAt'>): void {
  if (now === tx.possibleStatuses) return;
  tx.statusesBeforeLastChange = tx.possibleStatuses;
  tx.lastChangeSeenAt = keptExactly(memory, s.receivedAt);
  tx.possibleStatuses = now;
}

/** Whether `s` was sent before the answer that showed the transaction's latest change ended (the two overlapped). */
export const overlaps = (memory: JudgeMemory, tx: TransactionMemory, s: Pick<Seen, 'sentAt'>): boolean =>
  s.sentAt < epoch(memory, tx.lastChangeSeenAt);

/** The exchange showed the transaction: later changes happened after it began. */
export function shownBy(memory: JudgeMemory, tx: TransactionMemory, s: Seen): void {
  tx.lastExchange = s.seq;
  tx.lastSeenSentAt = Math.max(tx.lastSeenSentAt, kept(memory, s.sentAt, true));
}

/**
 * The model's expiry judge on `s` showing `tx` in `shown` after `before`, fed the server's clock as
 * the judge knows it: during the exchange, and the latest it can have read since the transaction was
 * last shown (a change shown now happened after that).
 */
function expiry(
  j: Judging,
  tx: TransactionMemory,
  s: Seen,
  shown: StatusSet,
  before = tx.possibleStatuses,
): ExpiryJudgement & { during: Interval; latest: number } {
  const m = j.memory.merchants.get(tx.merchant);
  if (!m || tx.createdAt === null)
    return { late: false, early: false, possible: [...shown], during: { from: -Infinity, to: Infinity }, latest: Infinity };
  const span = during(j, m, s);
  const latest = latestDuring(j, m, epoch(j.memory, tx.lastSeenSentAt), s.receivedAt);
  const expiresAt = expiryOf({ from: tx.createdAt, to: tx.createdAt + tx.createdWithinMs }, j.settings.paymentWindowMs / 1000);
  return { ...judgeExpiry({ shown, before, during: span, latest, expiresAt }, j.settings.tolerance), during: span, latest };
}

/**
 * The transaction is now `now` (one status): it must be reachable from what it was, by a transition
 * whose guard may have held (the expiry only once the window may have passed), and a PENDING one
 * whose window has certainly passed should read EXPIRED. `via`: the transition the operation made.
 */
export function moved(s: Seen, j: Judging, tx: TransactionMemory, id: string, now: StatusSet, via?: Transition): void {
  const before = tx.possibleStatuses;
  const push = (f: Omit<FindingOf, 'at' | 'txId' | 'earlier'>) => j.out.push(finding({ at: s, txId: id, earlier: around(tx), ...f }));
  if (!now.length) return shownBy(j.memory, tx, s);
  if (!reach(before).includes(now[0]!)) {
    push({
      kind: 'no-transition',
      jsonPath: '$.status',
      message: `status ${now[0]} after ${before.join(' or ')}: x-state-machine has no transition leading there`,
      expected: [...reach(before)],
      actual: now[0],
    });
    setStatuses(j.memory, tx, now, s);
    return shownBy(j.memory, tx, s);
  }
  if (tx.createdAt !== null) {
    const judged = expiry(j, tx, s, now, before);
    const window = () => `${j.settings.paymentWindowMs / 1000} s from createdAt ${new Date(tx.createdAt!).toISOString()}`;
    if (judged.late)
      push({
        kind: 'expiry-time',
        jsonPath: '$.status',
        message: `still ${PENDING} after its payment window (${window()}; the server's clock was at least ${iso(judged.during.from - j.settings.tolerance)})`,
        expected: EXPIRY.to,
        actual: PENDING,
      });
    if (judged.early)
      push({
        kind: 'expiry-time',
        jsonPath: '$.status',
        message: `${EXPIRY.to} before its payment window passed (${window()}; the server's clock was at most ${iso(judged.latest + j.settings.tolerance)})`,
        expected: PENDING,
        actual: EXPIRY.to,
      });
  }
  if (before !== now) {
    const seen = via ? [via] : before.length === 1 ? (pathBetween(before[0]!, now[0]!) ?? []) : [];
    for (const t of seen) {
      j.memory.seen.transitions.add(t.id);
      if (t.emits) expectEvent(j, tx, t.emits, t.id, s.receivedAt);
    }
    // the event of a change the operation made itself was made during the exchange (the deliveries list's order)
    if (via?.emits) tx.eventMadeDuring = { from: s.sentAt, to: s.receivedAt, event: via.emits };
  }
  ruledOut(s, j, tx, id, now);
  setStatuses(j.memory, tx, now, s);
  shownBy(j.memory, tx, s);
}

/**
 * A refusal about a known transaction (`byReference`: the operation names it by vendorReference;
 * `kind`: the kind of transaction the operation serves, null for both): a 404 for the merchant's
 * own transaction, or a rejection by state that narrows the statuses (the model's `refusedFrom`;
 * EXPIRED only once the payment window may have passed by the refusal's end).
 */
export function judgeRefusal(s: Seen, j: Judging, byReference: boolean, kind: 'partner' | null): void {
  const m = s.merchant;
  if (m === null || s.status < 400) return;
  const code = errorCode(s.json);
  const id = byReference ? m.byVendorReference.get(s.params.vendorReference ?? '') : s.params.transactionId;
  const tx = id === undefined ? undefined : j.memory.transactions.get(id);
  const owner = tx && judgeOwnership(owned(tx), m.id, kind, s.status, code);
  if (!tx || owner === 'not-reached') return;
  const push = (f: Omit<FindingOf, 'at' | 'txId' | 'earlier'>) => j.out.push(finding({ at: s, txId: id, earlier: around(tx), ...f }));
  const message = isRecord(s.json) && isRecord(s.json.error) ? s.json.error.message : undefined;
  const allowed = statusSet(refusedFrom(s.opId, s.status, code, message));
  // a 404 x-state-machine answers from some status (a rejection moved to 404) is judged by the status below
  if (owner === 'own-404' && !allowed.length) {
    if (deletedUnseen(j, m)) return;
    push({
      kind: 'own-404',
      jsonPath: '$',
      message: `${s.opId} answered 404 ${code} for transaction ${id}${tx.vendorReference ? ` (vendorReference ${tx.vendorReference})` : ''}, which this merchant created`,
    });
  }
  if (!allowed.length) return;
  let now = both(reach(tx.possibleStatuses), allowed);
  if (tx.createdAt !== null) now = statusSet(expiry(j, tx, s, now).possible);
  if (!now.length && !(overlaps(j.memory, tx, s) && both(reach(tx.statusesBeforeLastChange), allowed).length))
    push({
      kind: 'contradiction',
      jsonPath: '$.error.code',
      message: `${s.opId} refused with ${code} (status one of ${allowed.join(', ')}), but the transaction was ${tx.possibleStatuses.join(' or ')} and no transition leads there`,
      expected: [...tx.possibleStatuses],
      actual: code,
    });
  else if (now.length) setStatuses(j.memory, tx, now, s);
  shownBy(j.memory, tx, s);
}

/** The expiry's verdict on a checkout transaction a paid session made, read in the checkout's form (A2, A3). */
export function checkoutExpiry(j: Judging, tx: TransactionMemory, s: Seen, shown: StatusSet): ExpiryJudgement & { expiresAt: Interval } {
  const m = j.memory.merchants.get(tx.merchant)!;
  const expiresAt = expiryOf({ from: tx.createdAt!, to: tx.createdAt! + tx.createdWithinMs }, j.settings.paymentWindowMs / 1000);
  const span = during(j, m, s);
  // its creation read off the ear's clock (the paid session's exchange), as this read is: its skew cancels out;
  // a creation a record answered (createdWithinMs 0) is the server's own instant, the skew all there
  const slack =
    tx.madeAt === null || tx.createdWithinMs === 0
      ? j.settings.tolerance
      : earSlack(j.memory, epoch(j.memory, tx.madeAt), s.receivedAt, j.settings.tolerance);
  return { ...judgeExpiry({ shown, before: [], during: span, latest: span.to, expiresAt }, slack), expiresAt };
}
