/**
 * The rules of x-state-machine judged on live traffic, per merchant, through the model (model/):
 * the moves an answer shows (statuses.ts), the timestamp rules; the model's judges of ownership,
 * the vendorReference's uniqueness and the expiry (its clock tolerance the slack) fed what it saw.
 * Pure: fed observations, it returns findings; no I/O. What it remembers, and its bound: state-store.ts.
 */
import {
  IMMUTABLE_FIELDS,
  at,
  expiryOf,
  judgeExpiry,
  judgeOwnership,
  judgeVendorReference,
  updatedAtAllowed,
  type Interval,
  type Transition,
} from '../model/index.ts';
import { finding, type FindingOf, type Observation, type StateFinding } from './finding.ts';
import { SandboxTracker } from './state-sandbox.ts';
import {
  NOT_MADE,
  RECORD_OPS,
  code,
  fingerprint,
  iso,
  isRecord,
  newTx,
  owned,
  quickPrint,
  time,
  type Json,
  type TxState,
} from './state-store.ts';
import { checkoutStatusOf } from '../generated/index.ts';
import { ALL, EXPIRY, PENDING, bit, maskOf, names, reach, refusedFrom, steps, transitionsOf } from './statuses.ts';

export type { FindingKind, Observation, StateFinding } from './finding.ts';
export { DEFAULT_CLOCK_TOLERANCE_MS, DEFAULT_MAX_TRANSACTIONS, fingerprint, type StateOptions, type TxState } from './state-store.ts';

const NAMES = Array.from({ length: ALL + 1 }, (_, mask) => names(mask)); // each mask's statuses, taken once

export class StateTracker extends SandboxTracker {
  /** Judges one answered exchange against what was seen before; updates the state. */
  observe(ob: Observation): StateFinding[] {
    const out: StateFinding[] = [];
    const m = ob.merchant === null ? null : this.merchant(ob.merchant);
    const session = this.session(ob, m);
    if (session) return session;
    if (ob.status === 404) out.push(...this.notFoundRead(ob));
    if (m === null) return out;
    if (ob.testKey) this.testKeys.add(m);
    out.push(...this.sandbox(ob, m));
    if (this.sandboxSettings(ob, m)) return out;
    const json = ob.json;
    const push = (f: Omit<FindingOf, 'ob'>) => out.push(finding({ ob, ...f }));
    if (ob.opId === 'sandboxPaySession' && ob.status === 200 && isRecord(json) && typeof json.transaction_id === 'string') {
      const id = json.transaction_id;
      if (!this.txs.has(id)) {
        this.add(id, newTx(m, null, bit(PENDING), 1, NaN, null, 0, ob.seq));
        this.madeByPay(this.txs.get(id)!, ob);
        this.transitions.add('checkout-pay');
      }
      const tx = this.txs.get(id)!;
      const reported = typeof json.status === 'string' ? json.status : undefined;
      for (const t of transitionsOf(ob.opId)) if (t.from && reported && t.to === reported) this.moved(tx, id, bit(t.to), ob, out, t);
      return out;
    }
    if (ob.opId === 'verifyTransaction') {
      const id = ob.params.transactionId ?? '';
      const tx = this.txs.get(id);
      const owner = judgeOwnership(owned(tx), m, 'checkout', ob.status, code(json));
      if (owner === 'own-404')
        push({
          kind: 'own-404',
          txId: id,
          tx,
          jsonPath: '$',
          message: `A3 answered 404 for checkout transaction ${id}, paid by this merchant's session`,
        });
      if (ob.status === 200 && isRecord(json)) {
        this.sameNames(ob, m, json, out, id);
        this.checkoutStatus(ob, id, json.status, out);
      }
      if (owner === 'other-merchant')
        push({ kind: 'other-merchant', txId: id, tx, jsonPath: '$.id', message: `A3 showed transaction ${id} of another merchant` });
      return out;
    }
    // the sandbox list: each item a record read now (both families)
    if (ob.opId === 'sandboxListTransactions' && ob.status === 200 && isRecord(json) && Array.isArray(json.data)) {
      for (const item of json.data) if (isRecord(item) && typeof item.id === 'string') this.record(ob, m, 'id', item, out);
      return out;
    }
    const kind = RECORD_OPS[ob.opId];
    if (!kind) return out;
    if (ob.status >= 400) {
      this.refused(ob, m, kind, out);
      return out;
    }
    if (ob.status >= 300 || !isRecord(json) || typeof json.id !== 'string') return out;
    return this.record(ob, m, kind, json, out);
  }

  /** A success answer showing a partner transaction record. */
  private record(ob: Observation, m: string, kind: string, json: Json, out: StateFinding[]): StateFinding[] {
    const id = json.id as string;
    const push = (f: Omit<FindingOf, 'ob'>) => out.push(finding({ ob, ...f }));
    const status = typeof json.status === 'string' ? json.status : '';
    const tx = this.txs.get(id);
    const ref = typeof json.vendorReference === 'string' ? json.vendorReference : null;
    if (judgeOwnership(owned(tx), m, null, ob.status, undefined) === 'other-merchant') {
      push({
        kind: 'other-merchant',
        txId: id,
        tx,
        jsonPath: '$.id',
        message: `${ob.opId} answered ${ob.status} with transaction ${id}, created by another merchant`,
      });
      return out;
    }
    if (kind === 'id' && ob.params.transactionId !== undefined && ob.params.transactionId !== id)
      push({
        kind: 'b2-b3',
        txId: id,
        tx,
        jsonPath: '$.id',
        message: `B2 for ${ob.params.transactionId} answered transaction ${id}`,
        expected: ob.params.transactionId,
        actual: id,
      });
    if (kind === 'ref' && ob.params.vendorReference !== undefined) {
      const known = this.byRef.get(m + '\n' + ob.params.vendorReference);
      const verdict = judgeVendorReference({ created: false, asked: ob.params.vendorReference, id, ref }, known);
      if (verdict === 'other-reference')
        push({
          kind: 'b2-b3',
          txId: id,
          tx,
          jsonPath: '$.vendorReference',
          message: `${ob.opId} for vendorReference ${ob.params.vendorReference} answered a transaction with vendorReference ${String(ref)}`,
          expected: ob.params.vendorReference,
          actual: ref,
        });
      else if (verdict === 'other-holder')
        push({
          kind: 'b2-b3',
          txId: id,
          tx: this.txs.get(known!),
          jsonPath: '$.id',
          message: `vendorReference ${ref} answered transaction ${id}; B2/B1 showed it is transaction ${known}`,
          expected: known,
          actual: id,
        });
    }
    const c = time(json.createdAt);
    const u = json.updatedAt === null ? null : time(json.updatedAt);
    this.timestamps(ob, id, tx, json, status, c, u, out);
    this.sameNames(ob, m, json, out, id);
    if (tx) this.changeInstant(ob, id, tx, status, u, kind === 'sandbox' || ob.opId === 'cancelPartnerTransactionByVendorReference', out);
    if (kind === 'create') return this.created(ob, m, id, tx, json, status, ref, c, u, out);
    // the fields as written (member order kept) first: the canonical fingerprint only when they differ from the last answer's
    const q = quickPrint(json);
    const fp = tx && tx.fp !== 0 && q === tx.q ? tx.fp : fingerprint(json);
    if (!tx) {
      // first sight of a transaction made before the proxy started (or not through it)
      this.add(id, newTx(m, ref, bit(status) || ALL, 0, c ?? NaN, u, fp, ob.seq));
      return out;
    }
    if (tx.fp !== 0 && fp !== tx.fp)
      push({
        kind: 'contradiction',
        txId: id,
        tx,
        jsonPath: '$',
        message: `${ob.opId} answered transaction ${id} with fields (${IMMUTABLE_FIELDS.join(', ')}) other than an earlier answer showed`,
      });
    tx.fp = fp;
    tx.q = q;
    if (tx.ref === null && ref !== null) {
      tx.ref = ref;
      this.byRef.set(m + '\n' + ref, id);
    }
    if (tx.u !== null && u !== null && u !== tx.u && status !== '' && tx.st === bit(status) && !this.overlaps(tx, ob))
      push({
        kind: 'timestamps',
        txId: id,
        tx,
        jsonPath: '$.updatedAt',
        message: `updatedAt changed from ${new Date(tx.u).toISOString()} to ${String(json.updatedAt)} with the status still ${status}`,
      });
    // a read sent before the answer showing the latest change ended may show the status before it
    if (this.overlaps(tx, ob) && !(reach(tx.st) & bit(status)) && reach(tx.pst) & bit(status)) {
      tx.last = ob.seq;
      return out;
    }
    const made = transitionsOf(ob.opId).filter((t) => t.from && t.to === status);
    if (kind === 'sandbox' || ob.opId === 'cancelPartnerTransactionByVendorReference') {
      // a transition the operation itself makes: the status before must be one it starts from
      const before = reach(tx.st);
      const ok = made.find((t) => t.from!.some((f) => before & bit(f)));
      if (!ok) {
        push({
          kind: 'no-transition',
          txId: id,
          tx,
          jsonPath: '$.status',
          message: `${ob.opId} answered ${ob.status} with status ${status}, from ${names(tx.st).join(' or ')}: x-state-machine has no such transition of ${ob.opId}`,
          expected: made.map((t) => `${t.from!.join('|')} -> ${t.to}`),
          actual: `${names(tx.st).join('|')} -> ${status}`,
        });
        this.setSt(tx, bit(status) || ALL, ob);
        tx.last = ob.seq;
        tx.u = u;
        return out;
      }
      this.moved(tx, id, bit(status), ob, out, ok);
    } else this.moved(tx, id, bit(status), ob, out);
    tx.u = u;
    return out;
  }

  /** B1's answer: a new PENDING transaction, created within the exchange, its vendorReference not the merchant's already. */
  private created(
    ob: Observation,
    m: string,
    id: string,
    tx: TxState | undefined,
    json: Json,
    status: string,
    ref: string | null,
    c: number | null,
    u: number | null,
    out: StateFinding[],
  ): StateFinding[] {
    const push = (f: Omit<FindingOf, 'ob'>) => out.push(finding({ ob, ...f }));
    const earlier = ref === null ? undefined : this.byRef.get(m + '\n' + ref);
    if (judgeVendorReference({ created: true, id, ref }, earlier) === 'duplicate')
      push({
        kind: 'duplicate-reference',
        txId: earlier!,
        tx: this.txs.get(earlier!),
        jsonPath: '$.vendorReference',
        message: `vendorReference ${ref} reused and answered ${ob.status}: this merchant's transaction ${earlier} already has it`,
        expected: 'DUPLICATE_VENDOR_REFERENCE',
        actual: ob.status,
      });
    if (c !== null) {
      const now = this.serverTime(m, ob.sentAt, ob.receivedAt);
      if (c < now.from - this.tol || c > now.to + this.tol)
        push({
          kind: 'timestamps',
          txId: id,
          tx,
          jsonPath: '$.createdAt',
          message: `createdAt ${String(json.createdAt)} is outside the exchange (server clock between ${iso(now.from - this.tol)} and ${iso(now.to + this.tol)})`,
        });
    }
    if (tx) {
      push({
        kind: 'contradiction',
        txId: id,
        tx,
        jsonPath: '$.id',
        message: `B1 answered ${ob.status} with transaction ${id}, which an earlier answer already showed`,
      });
      return out;
    }
    tx = newTx(m, ref, bit(PENDING), 0, c ?? NaN, u, fingerprint(json), ob.seq);
    this.add(id, tx);
    this.madeByB1(tx, json.customerPhone, ob.receivedAt);
    for (const t of transitionsOf(ob.opId)) if (!t.from) this.transitions.add(t.id);
    if (status !== PENDING)
      push({
        kind: 'no-transition',
        txId: id,
        tx,
        jsonPath: '$.status',
        message: `created with status ${status}; x-state-machine creates ${PENDING}`,
        expected: PENDING,
        actual: status,
      });
    return out;
  }

  /** A refusal: a 404 for one's own transaction (one x-state-machine answers from some status is judged by the status), or a rejection by state that narrows the statuses (the model's rejections). */
  private refused(ob: Observation, m: string, kind: string, out: StateFinding[]): void {
    const c = code(ob.json);
    const id = kind === 'ref' ? this.byRef.get(m + '\n' + (ob.params.vendorReference ?? '')) : ob.params.transactionId;
    const tx = id === undefined ? undefined : this.txs.get(id);
    // the sandbox's moves serve either kind of transaction, B2–B4 partner ones (ADR-019)
    const owner = tx && judgeOwnership(owned(tx), m, kind === 'sandbox' ? null : 'partner', ob.status, c);
    if (!tx || owner === 'not-reached') return;
    const push = (f: Omit<FindingOf, 'ob'>) => out.push(finding({ ob, ...f }));
    const allowed = refusedFrom(ob.opId, ob.status, c, isRecord(ob.json) && isRecord(ob.json.error) ? ob.json.error.message : undefined);
    if (owner === 'own-404' && !allowed)
      push({
        kind: 'own-404',
        txId: id!,
        tx,
        jsonPath: '$',
        message: `${ob.opId} answered 404 ${c} for transaction ${id}${tx.ref ? ` (vendorReference ${tx.ref})` : ''}, which this merchant created`,
      });
    if (!allowed) return;
    let now = reach(tx.st) & allowed;
    // EXPIRED only once the payment window may have passed by the refusal's end (the model's expiry judge)
    if (!Number.isNaN(tx.c)) now = maskOf(this.expiry(tx, ob, now).possible);
    if (!now && !(this.overlaps(tx, ob) && reach(tx.pst) & allowed))
      push({
        kind: 'contradiction',
        txId: id!,
        tx,
        jsonPath: '$.error.code',
        message: `${ob.opId} refused with ${c} (status one of ${names(allowed).join(', ')}), but the transaction was ${names(tx.st).join(' or ')} and no transition leads there`,
        expected: names(tx.st),
        actual: c,
      });
    else if (now) this.setSt(tx, now, ob);
    tx.last = ob.seq;
  }

  /** createdAt/updatedAt rules of one record (ADR-013, the model's updatedAtAllowed): null exactly while PENDING, then between createdAt and the latest the server's clock has been. */
  private timestamps(
    ob: Observation,
    id: string,
    tx: TxState | undefined,
    json: Json,
    status: string,
    c: number | null,
    u: number | null,
    out: StateFinding[],
  ): void {
    const push = (f: Omit<FindingOf, 'ob'>) => out.push(finding({ ob, ...f }));
    const pending = status === PENDING;
    if (pending ? json.updatedAt !== null : typeof json.updatedAt !== 'string') {
      push({
        kind: 'timestamps',
        txId: id,
        tx,
        jsonPath: '$.updatedAt',
        message: pending
          ? `updatedAt is ${JSON.stringify(json.updatedAt)} while ${status}`
          : `updatedAt is ${JSON.stringify(json.updatedAt)} after a change to ${status}`,
        expected: pending ? null : 'a timestamp',
        actual: json.updatedAt,
      });
      return;
    }
    if (u === null || c === null || ob.merchant === null) return;
    // a change the proxy may not have seen: at some instant between creation and this answer
    const change: Interval = { from: c, to: this.latest(ob.merchant, ob.receivedAt) };
    if (!updatedAtAllowed(u, { createdAt: at(c), lastChange: change }, c, 'null', this.tol))
      push({
        kind: 'timestamps',
        txId: id,
        tx,
        jsonPath: '$.updatedAt',
        message:
          u < c
            ? `updatedAt ${String(json.updatedAt)} is before createdAt ${String(json.createdAt)}`
            : `updatedAt ${String(json.updatedAt)} is later than the server's clock can have been when it answered (${iso(change.to + this.tol)})`,
      });
  }

  /**
   * The transaction is now `now` (one status): it must be reachable from what it was, by a
   * transition whose guard may have held (expiry only once the window may have passed, the model's
   * expiry guard with the clock tolerance as slack), and a PENDING one whose window has certainly
   * passed should read EXPIRED.
   */
  private moved(tx: TxState, id: string, now: number, ob: Observation, out: StateFinding[], via?: Transition): void {
    const before = tx.st;
    tx.last = ob.seq;
    if (!now) return;
    const push = (f: Omit<FindingOf, 'ob'>) => out.push(finding({ ob, ...f }));
    if (!(reach(before) & now)) {
      push({
        kind: 'no-transition',
        txId: id,
        tx,
        jsonPath: '$.status',
        message: `status ${names(now)[0]} after ${names(before).join(' or ')}: x-state-machine has no transition leading there`,
        expected: names(reach(before)),
        actual: names(now)[0],
      });
      this.setSt(tx, now, ob);
      return;
    }
    if (!Number.isNaN(tx.c)) {
      const judged = this.expiry(tx, ob, now, before);
      const window = () => `${this.windowMs / 1000} s from createdAt ${new Date(tx.c).toISOString()}`;
      if (judged.late)
        push({
          kind: 'expiry-time',
          txId: id,
          tx,
          jsonPath: '$.status',
          message: `still ${PENDING} after its payment window (${window()}; the server's clock was at least ${iso(judged.during.from - this.tol)})`,
          expected: EXPIRY.to,
          actual: PENDING,
        });
      if (judged.early)
        push({
          kind: 'expiry-time',
          txId: id,
          tx,
          jsonPath: '$.status',
          message: `${EXPIRY.to} before its payment window passed (${window()}; the server's clock was at most ${iso(judged.latest + this.tol)})`,
          expected: PENDING,
          actual: EXPIRY.to,
        });
    }
    if (before !== now) {
      const seen = via ? [via] : names(before).length === 1 ? (steps(names(before)[0]!, names(now)[0]!) ?? []) : [];
      for (const t of seen) {
        this.transitions.add(t.id);
        if (t.emits) this.expect(tx, t.emits, t.id, ob.receivedAt);
      }
    }
    this.ruledOut(tx, id, now, ob, out);
    this.setSt(tx, now, ob);
  }
  /** The model's expiry judge on `ob` showing `tx` in `shown` after `before`, fed the server's clock as the proxy knows it; its tolerance is the slack. */
  private expiry(tx: TxState, ob: Observation, shown: number, before = tx.st) {
    const during = this.serverTime(tx.m, ob.sentAt, ob.receivedAt);
    const latest = this.latest(tx.m, ob.receivedAt);
    const sight = { shown: NAMES[shown]!, before: NAMES[before]!, during, latest, expiresAt: expiryOf(at(tx.c), this.windowMs / 1000) };
    return Object.assign(judgeExpiry(sight, this.tol), { during, latest });
  }
  /** A checkout form (A2, A3) standing for PENDING (the statuses `shown`) once the payment window has certainly passed since the paid session made it. */
  protected override checkoutStatus(ob: Observation, id: string, reported: unknown, out: StateFinding[]): void {
    super.checkoutStatus(ob, id, reported, out);
    const tx = this.txs.get(id);
    if (!tx || tx.p0 === NOT_MADE) return;
    const shown = names(tx.st).filter((s) => checkoutStatusOf[s] === reported);
    const expiresAt = expiryOf({ from: this.wall(tx.p0), to: this.wall(tx.p0) + tx.pd }, this.windowMs / 1000);
    const during = this.serverTime(tx.m, ob.sentAt, ob.receivedAt);
    if (judgeExpiry({ shown, before: [], during, latest: during.to, expiresAt }, this.tol).late)
      out.push(
        finding({
          kind: 'expiry-time',
          ob,
          txId: id,
          tx,
          jsonPath: '$.status',
          message: `${ob.opId} shows ${String(reported)} for checkout transaction ${id} after its payment window (${this.windowMs / 1000} s from its paid session, which ended by ${iso(expiresAt.to - this.windowMs)})`,
          expected: checkoutStatusOf[EXPIRY.to],
          actual: reported,
        }),
      );
  }
}
