/**
 * The partner transaction record judged across exchanges (x-state-machine's rules through the model):
 * B1's answer (`judgeCreatedRecord`), a read of a record (`judgeRecordRead`: B2, B3, an item of the
 * sandbox transactions list), an operation that moves it itself (`judgeCancel`, `judgeSandboxMove`),
 * and its refusals (`judgeRefusal`, moves.ts). The model's judges of ownership, the vendorReference's
 * uniqueness and the timestamps are fed what the memory holds; their verdicts are worded here.
 */
import {
  EXPIRY,
  IMMUTABLE_FIELDS,
  at,
  expiryInstantAllowed,
  expiryOf,
  judgeOwnership,
  judgeVendorReference,
  transitionsOf,
  updatedAtAllowed,
  within,
  type Interval,
} from '../model/index.ts';
import { during, earliestDuring, iso, latestDuring, setBackSince } from './clock.ts';
import {
  around,
  causesSeen,
  deletedUnseen,
  finding,
  isRecord,
  time,
  type FindingOf,
  type Json,
  type Judging,
  type Seen,
} from './context.ts';
import { addTransaction, epoch, kept, NEVER, type JudgeMemory, type MerchantMemory, type TransactionMemory } from './memory.ts';
import { moved, owned, overlaps, setStatuses, shownBy } from './moves.ts';
import { sameNames } from './names.ts';
import { judgeCreationShown } from './reads.ts';
import { answerPrint, fingerprint, smallHash } from './prints.ts';
import { ALL, PENDING, only, reach, reachUncalled, type StatusSet } from './statuses.ts';

/** A transaction as first seen. */
export function newTransaction(
  memory: JudgeMemory,
  m: MerchantMemory,
  s: Seen,
  o: {
    ref: string | null;
    statuses: StatusSet;
    kind: 'partner' | 'checkout';
    createdAt: number | null;
    updatedAt: number | null;
    fp: number;
  },
): TransactionMemory {
  return {
    merchant: m.id,
    vendorReference: o.ref,
    kind: o.kind,
    possibleStatuses: o.statuses,
    statusesBeforeLastChange: o.statuses,
    lastChangeSeenAt: NEVER,
    lastSeenSentAt: kept(memory, s.sentAt, true),
    createdAt: o.createdAt,
    createdWithinMs: 0,
    updatedAt: o.updatedAt,
    immutableFingerprint: o.fp,
    lastAnswerPrint: 0,
    firstExchange: s.seq,
    lastExchange: s.seq,
    madeAt: null,
    madeWithinMs: 0,
    customerPhoneHash: 0,
  };
}

/** B1's answer: a new PENDING transaction, created within the exchange, its vendorReference not the merchant's already. */
export function judgeCreatedRecord(s: Seen, j: Judging): void {
  if (s.merchant === null || s.status >= 300 || !isRecord(s.json) || typeof s.json.id !== 'string') return;
  judgeRecord(s, j, s.merchant, s.json, 'create');
}

/** B2, B3: a record read by id or by vendorReference. */
export function judgeRecordRead(s: Seen, j: Judging): void {
  if (s.merchant === null || s.status >= 300 || !isRecord(s.json) || typeof s.json.id !== 'string') return;
  judgeRecord(s, j, s.merchant, s.json, s.opId === 'getPartnerTransaction' ? 'id' : 'ref');
}

/** B4: the cancel makes its transition itself. */
export function judgeCancel(s: Seen, j: Judging): void {
  if (s.merchant === null || s.status >= 300 || !isRecord(s.json) || typeof s.json.id !== 'string') return;
  judgeRecord(s, j, s.merchant, s.json, 'ref', true);
}

/** The sandbox's moves (confirm, cancel, complete): each makes its transition itself, on either kind of transaction. */
export function judgeSandboxMove(s: Seen, j: Judging): void {
  if (s.merchant === null || s.status >= 300 || !isRecord(s.json) || typeof s.json.id !== 'string') return;
  judgeRecord(s, j, s.merchant, s.json, 'sandbox', true);
}

/** The sandbox transactions list: each item a record read now (both families). */
export function judgeTransactionsList(s: Seen, j: Judging): void {
  if (s.merchant === null || s.status !== 200 || !isRecord(s.json) || !Array.isArray(s.json.data)) return;
  for (const item of s.json.data) if (isRecord(item) && typeof item.id === 'string') judgeRecord(s, j, s.merchant, item, 'id');
}

/** A success answer showing a partner transaction record (`how`: B1, by id, by reference, a sandbox move). */
function judgeRecord(s: Seen, j: Judging, m: MerchantMemory, json: Json, how: 'create' | 'id' | 'ref' | 'sandbox', madeHere = false): void {
  const { memory } = j;
  const id = json.id as string;
  const status = typeof json.status === 'string' ? json.status : '';
  const tx = memory.transactions.get(id);
  const ref = typeof json.vendorReference === 'string' ? json.vendorReference : null;
  const push = (f: Omit<FindingOf, 'at'>) => j.out.push(finding({ at: s, ...f }));
  if (judgeOwnership(owned(tx), m.id, null, s.status, undefined) === 'other-merchant') {
    push({
      kind: 'other-merchant',
      txId: id,
      earlier: around(tx),
      jsonPath: '$.id',
      message: `${s.opId} answered ${s.status} with transaction ${id}, created by another merchant`,
    });
    return;
  }
  if (how === 'id' && s.params.transactionId !== undefined && s.params.transactionId !== id)
    push({
      kind: 'b2-b3',
      txId: id,
      earlier: around(tx),
      jsonPath: '$.id',
      message: `B2 for ${s.params.transactionId} answered transaction ${id}`,
      expected: s.params.transactionId,
      actual: id,
    });
  if (how === 'ref' && s.params.vendorReference !== undefined) {
    const known = m.byVendorReference.get(s.params.vendorReference);
    const verdict = judgeVendorReference({ created: false, asked: s.params.vendorReference, id, ref }, known);
    if (verdict === 'other-reference')
      push({
        kind: 'b2-b3',
        txId: id,
        earlier: around(tx),
        jsonPath: '$.vendorReference',
        message: `${s.opId} for vendorReference ${s.params.vendorReference} answered a transaction with vendorReference ${String(ref)}`,
        expected: s.params.vendorReference,
        actual: ref,
      });
    else if (verdict === 'other-holder' && !deletedUnseen(j, m))
      push({
        kind: 'b2-b3',
        txId: id,
        earlier: around(memory.transactions.get(known!)),
        jsonPath: '$.id',
        message: `vendorReference ${ref} answered transaction ${id}; B2/B1 showed it is transaction ${known}`,
        expected: known,
        actual: id,
      });
  }
  const c = time(json.createdAt);
  const u = json.updatedAt === null ? null : time(json.updatedAt);
  const record: ShownRecord = { m, id, tx, json, status, ref, c, u };
  if (tx && c !== null) judgeCreationShown(s, j, id, tx, c);
  judgeTimestamps(s, j, record);
  sameNames(s, j, m, json, id);
  if (tx) judgeChangeInstant(s, j, id, tx, status, u, madeHere);
  if (how === 'create') return created(s, j, record);
  // the fields as written (member order kept) first: the canonical fingerprint only when they differ from the last answer's
  const print = answerPrint(json);
  const fp = tx && tx.immutableFingerprint !== 0 && print === tx.lastAnswerPrint ? tx.immutableFingerprint : fingerprint(json);
  if (!tx) {
    // first sight of a transaction made before the judge started (or not through its ear)
    const seenAs = only(status);
    addTransaction(
      memory,
      id,
      newTransaction(memory, m, s, { ref, statuses: seenAs.length ? seenAs : ALL, kind: 'partner', createdAt: c, updatedAt: u, fp }),
    );
    return;
  }
  if (tx.immutableFingerprint !== 0 && fp !== tx.immutableFingerprint)
    push({
      kind: 'contradiction',
      txId: id,
      earlier: around(tx),
      jsonPath: '$',
      message: `${s.opId} answered transaction ${id} with fields (${IMMUTABLE_FIELDS.join(', ')}) other than an earlier answer showed`,
    });
  tx.immutableFingerprint = fp;
  tx.lastAnswerPrint = print;
  if (tx.vendorReference === null && ref !== null) {
    tx.vendorReference = ref;
    m.byVendorReference.set(ref, id);
  }
  const shown = only(status);
  if (
    tx.updatedAt !== null &&
    u !== null &&
    u !== tx.updatedAt &&
    status !== '' &&
    tx.possibleStatuses === shown &&
    !overlaps(j.memory, tx, s)
  )
    push({
      kind: 'timestamps',
      txId: id,
      earlier: around(tx),
      jsonPath: '$.updatedAt',
      message: `updatedAt changed from ${new Date(tx.updatedAt).toISOString()} to ${String(json.updatedAt)} with the status still ${status}`,
    });
  // a read sent before the answer showing the latest change ended may show the status before it
  if (
    overlaps(j.memory, tx, s) &&
    !reach(tx.possibleStatuses).includes(shown[0]!) &&
    reach(tx.statusesBeforeLastChange).includes(shown[0]!)
  ) {
    tx.lastExchange = s.seq;
    return;
  }
  const made = transitionsOf(s.opId).filter((t) => t.from && t.to === status);
  if (madeHere) {
    // a transition the operation itself makes: the status before must be one it starts from
    const before = reach(tx.possibleStatuses);
    const ok = made.find((t) => t.from!.some((f) => before.includes(f)));
    if (!ok) {
      push({
        kind: 'no-transition',
        txId: id,
        earlier: around(tx),
        jsonPath: '$.status',
        message: `${s.opId} answered ${s.status} with status ${status}, from ${tx.possibleStatuses.join(' or ')}: x-state-machine has no such transition of ${s.opId}`,
        expected: made.map((t) => `${t.from!.join('|')} -> ${t.to}`),
        actual: `${tx.possibleStatuses.join('|')} -> ${status}`,
      });
      setStatuses(j.memory, tx, shown.length ? shown : ALL, s);
      shownBy(j.memory, tx, s);
      tx.updatedAt = u;
      return;
    }
    moved(s, j, tx, id, shown, ok);
  } else {
    // with --sole-client only: a status some transition leads to (one none leads to is moved's no-transition), but no call made
    const uncalled =
      tx.kind === 'partner' && shown.length > 0 && causesSeen(s, j) && reach(tx.possibleStatuses).includes(shown[0]!)
        ? reachUncalled(tx.possibleStatuses, scenarioCustomer(j, tx))
        : undefined;
    if (uncalled && !uncalled.includes(shown[0]!))
      push({
        kind: 'no-cause',
        txId: id,
        earlier: around(tx),
        jsonPath: '$.status',
        message: `${s.opId} shows transaction ${id} ${status}, last shown ${tx.possibleStatuses.join(' or ')}: no call of its merchant since moved it, and without one it can only be ${uncalled.join(' or ')} (ADR-087)`,
        expected: [...uncalled],
        actual: status,
      });
    moved(s, j, tx, id, shown);
  }
  tx.updatedAt = u;
}

/** Per contract, the hashes (`smallHash`) of its sandbox scenarios' magic customer phones. */
const scenarioPhones = new WeakMap<object, Set<number>>();

/** Whether a sandbox scenario's customer may act on `tx` without a call (ADR-043): its phone one of theirs, or not known. */
function scenarioCustomer(j: Judging, tx: TransactionMemory): boolean {
  if (tx.customerPhoneHash === 0) return true;
  for (const c of j.settings.contracts.values()) {
    let hashes = scenarioPhones.get(c);
    if (!hashes) scenarioPhones.set(c, (hashes = new Set([...c.sandboxScenarios().phones].map(smallHash))));
    if (hashes.has(tx.customerPhoneHash)) return true;
  }
  return false;
}

/**
 * A record an answer showed, as the record judges read it: its merchant, id, what the judge knew of
 * it before (`tx`), the record, its status and vendorReference, its createdAt (`c`) and updatedAt
 * (`u`) in epoch ms (null: null or not a date).
 */
interface ShownRecord {
  m: MerchantMemory;
  id: string;
  tx: TransactionMemory | undefined;
  json: Json;
  status: string;
  ref: string | null;
  c: number | null;
  u: number | null;
}

/** B1's answer: a new PENDING transaction, created within the exchange, its vendorReference not the merchant's already. */
function created(s: Seen, j: Judging, { m, id, tx, json, status, ref, c, u }: ShownRecord): void {
  const { memory, settings } = j;
  const push = (f: Omit<FindingOf, 'at'>) => j.out.push(finding({ at: s, ...f }));
  const earlier = ref === null ? undefined : m.byVendorReference.get(ref);
  if (judgeVendorReference({ created: true, id, ref }, earlier) === 'duplicate' && !deletedUnseen(j, m))
    push({
      kind: 'duplicate-reference',
      txId: earlier!,
      earlier: around(memory.transactions.get(earlier!)),
      jsonPath: '$.vendorReference',
      message: `vendorReference ${ref} reused and answered ${s.status}: this merchant's transaction ${earlier} already has it`,
      expected: 'DUPLICATE_VENDOR_REFERENCE',
      actual: s.status,
    });
  if (c !== null) {
    const now = during(j, m, s);
    if (c < now.from - settings.tolerance || c > now.to + settings.tolerance)
      push({
        kind: 'timestamps',
        txId: id,
        earlier: around(tx),
        jsonPath: '$.createdAt',
        message: `createdAt ${String(json.createdAt)} is outside the exchange (server clock between ${iso(now.from - settings.tolerance)} and ${iso(now.to + settings.tolerance)})`,
      });
  }
  if (tx) {
    push({
      kind: 'contradiction',
      txId: id,
      earlier: around(tx),
      jsonPath: '$.id',
      message: `B1 answered ${s.status} with transaction ${id}, which an earlier answer already showed`,
    });
    return;
  }
  const made = newTransaction(memory, m, s, {
    ref,
    statuses: only(PENDING),
    kind: 'partner',
    createdAt: c,
    updatedAt: u,
    fp: fingerprint(json),
  });
  made.madeAt = kept(memory, s.sentAt, true);
  made.madeWithinMs = kept(memory, s.receivedAt, false) - made.madeAt;
  made.customerPhoneHash = smallHash(json.customerPhone);
  addTransaction(memory, id, made);
  for (const t of transitionsOf(s.opId)) if (!t.from) memory.seen.transitions.add(t.id);
  if (status !== PENDING)
    push({
      kind: 'no-transition',
      txId: id,
      earlier: around(made),
      jsonPath: '$.status',
      message: `created with status ${status}; x-state-machine creates ${PENDING}`,
      expected: PENDING,
      actual: status,
    });
}

/**
 * createdAt/updatedAt rules of one record (ADR-013, the model's updatedAtAllowed): null exactly
 * while PENDING, then between createdAt and the latest the server's clock can have read since the
 * change shown may have been made: after the latest exchange that showed the transaction otherwise;
 * at any time for a transaction not seen before (made before the judge started, its clock's
 * history before then unknown). A reset that may have come between the making and the change
 * (ADR-041) lets the change be stamped before createdAt, by a clock no earlier than it can have read.
 */
function judgeTimestamps(s: Seen, j: Judging, { m, id, tx, json, status, c, u }: ShownRecord): void {
  const push = (f: Omit<FindingOf, 'at' | 'kind' | 'txId' | 'earlier' | 'jsonPath'>) =>
    j.out.push(finding({ at: s, kind: 'timestamps', txId: id, earlier: around(tx), jsonPath: '$.updatedAt', ...f }));
  const pending = status === PENDING;
  if (pending ? json.updatedAt !== null : typeof json.updatedAt !== 'string') {
    push({
      message: pending
        ? `updatedAt is ${JSON.stringify(json.updatedAt)} while ${status}`
        : `updatedAt is ${JSON.stringify(json.updatedAt)} after a change to ${status}`,
      expected: pending ? null : 'a timestamp',
      actual: json.updatedAt,
    });
    return;
  }
  if (u === null || c === null) return;
  // the same change as an earlier answer showed was judged then
  const since = tx === undefined ? -Infinity : u === tx.updatedAt ? Infinity : epoch(j.memory, tx.lastSeenSentAt);
  const latest = since === Infinity ? Infinity : latestDuring(j, m, since, s.receivedAt);
  // a reset between the making and the change: stamped by a clock no earlier than it can have read since
  const madeAt = tx === undefined || tx.madeAt === null ? null : epoch(j.memory, tx.madeAt);
  let from = c;
  if (setBackSince(j, m, madeAt)) from = since === Infinity ? -Infinity : earliestDuring(j, m, since, s.receivedAt);
  const change: Interval = { from, to: latest };
  if (!updatedAtAllowed(u, { createdAt: at(c), lastChange: change }, c, 'null', j.settings.tolerance))
    push({
      message:
        u < c
          ? `updatedAt ${String(json.updatedAt)} is before createdAt ${String(json.createdAt)}`
          : `updatedAt ${String(json.updatedAt)} is later than the server's clock can have been since the transaction was last shown otherwise (${iso(change.to + j.settings.tolerance)})`,
    });
}

/**
 * The last change's instant of a record after a change (`tx` as it was before `s`): an expiry's
 * is the window's end (ADR-010); a change made by `s` itself (a cancel, a sandbox move) lies within
 * `s`; a later status than the one seen moves it.
 */
function judgeChangeInstant(
  s: Seen,
  j: Judging,
  id: string,
  tx: TransactionMemory,
  status: string,
  u: number | null,
  madeHere: boolean,
): void {
  const now = only(status);
  if (u === null || !now.length || tx.possibleStatuses === now) return;
  const { tolerance, paymentWindowMs } = j.settings;
  const push = (f: Omit<FindingOf, 'at' | 'kind' | 'txId' | 'earlier' | 'jsonPath'>) =>
    j.out.push(finding({ at: s, kind: 'timestamps', txId: id, earlier: around(tx), jsonPath: '$.updatedAt', ...f }));
  const shown = iso(u);
  if (status === EXPIRY.to && tx.createdAt !== null) {
    // a checkout transaction's creation is known only within its paid session's exchange
    const created = { from: tx.createdAt, to: tx.createdAt + tx.createdWithinMs };
    const end = expiryOf(created, paymentWindowMs / 1000);
    if (!expiryInstantAllowed(created, paymentWindowMs / 1000, u, tolerance))
      push({
        message: `updatedAt ${shown} of an expired transaction is not the end of its payment window (${end.from === end.to ? iso(end.from) : `between ${iso(end.from)} and ${iso(end.to)}`})`,
        expected: iso(end.from),
        actual: shown,
      });
    return;
  }
  if (madeHere) {
    const m = j.memory.merchants.get(tx.merchant);
    if (!m) return;
    const span = during(j, m, s);
    if (!within(span, u, tolerance))
      push({
        message: `${s.opId} changed the transaction to ${status} but its updatedAt ${shown} is outside the exchange (server clock between ${iso(span.from - tolerance)} and ${iso(span.to + tolerance)})`,
        expected: 'an instant of the exchange',
        actual: shown,
      });
    return;
  }
  if (tx.updatedAt !== null && u === tx.updatedAt && tx.possibleStatuses.length === 1 && !overlaps(j.memory, tx, s))
    push({
      message: `updatedAt ${shown} did not move with the change from ${tx.possibleStatuses[0]} to ${status}`,
      expected: `a later instant than ${shown}`,
      actual: shown,
    });
}
