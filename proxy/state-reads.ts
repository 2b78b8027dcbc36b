/**
 * Reads judged against each other, per operation: ownership's "another merchant's transaction
 * reads exactly as a missing one" (the model's `NOT_FOUND`, one answer for both) — every 404 of an
 * operation with one code reads the same, the values the request named (an id, a vendorReference)
 * aside; compared by the model's `notFoundText` (the suite's comparison: member order never counts). And
 * what a record repeats or stamps (issue 42 point 7): a merchant's names are the merchant's in every
 * record that shows them (B-family, A3, A2 in its own member names); the last change's instant lies
 * in the change's interval (the answer that made it), moves with each change, and an expiry's is
 * the end of the payment window (the model's `expiryInstantAllowed`, ADR-010).
 */
import { at, expiryInstantAllowed, expiryOf, notFoundText, within } from '../model/index.ts';
import { finding, type FindingOf, type Observation, type StateFinding } from './finding.ts';
import { NOT_MADE, iso, isRecord, smallHash, type TxState } from './state-store.ts';
import { judgeStatusRecord } from '../conformance/status-record.ts';
import { EventTracker } from './state-events.ts';
import { checkoutStatusOf } from '../generated/index.ts';
import { EXPIRY, STATUSES, bit, names, reach } from './statuses.ts';

export class ReadTracker extends EventTracker {
  /** Per operation and 404 code: the first answer's text (its request's values masked), and its exchange. */
  private readonly notFound = new Map<string, { text: string; seq: number }>();

  /**
   * A 404 against the first 404 of the operation with its code: the same text, whoever's the
   * transaction (none, or another merchant's). Ownership's judge is state.ts's; this compares answers.
   */
  protected notFoundRead(ob: Observation): StateFinding[] {
    const code = isRecord(ob.json) && isRecord(ob.json.error) ? ob.json.error.code : undefined;
    if (ob.status !== 404 || typeof code !== 'string' || !isRecord(ob.json)) return [];
    const text = notFoundText(JSON.stringify(ob.json), Object.values(ob.params));
    const key = `${ob.opId} ${code}`;
    const first = this.notFound.get(key);
    if (!first) {
      this.notFound.set(key, { text, seq: ob.seq });
      return [];
    }
    if (first.text === text) return [];
    return [
      finding({
        kind: 'other-merchant',
        ob: { ...ob, seq: ob.seq },
        tx: { first: first.seq, last: first.seq },
        jsonPath: '$.error',
        message: `${ob.opId} answered 404 ${code} with another body than exchange ${first.seq} did: a missing transaction and another merchant's read the same (the request's own values aside)`,
        expected: first.text,
        actual: text,
      }),
    ];
  }

  /** Per merchant, its names as first shown. */
  private readonly names = new Map<string, Partial<Record<'merchantName' | 'storeName', unknown>>>();

  /**
   * A merchant's names in a record (`json`) of merchant `m`: the ones first shown, everywhere
   * (judged by the suite's `judgeStatusRecord`, conformance/status-record.ts; kept here: the names per merchant).
   */
  protected sameNames(ob: Observation, m: string, json: Record<string, unknown>, out: StateFinding[], txId?: string): void {
    let known = this.names.get(m);
    if (!known) this.names.set(m, (known = {}));
    for (const v of judgeStatusRecord(json, { names: known }))
      if (v.problem === 'name')
        out.push(
          finding({
            kind: 'contradiction',
            ob,
            txId,
            jsonPath: `$.${v.member}`,
            message: `${ob.opId} shows ${v.name} ${JSON.stringify(v.actual)}; this merchant's ${v.name} is ${JSON.stringify(v.expected)} in every earlier answer`,
            expected: v.expected,
            actual: v.actual,
          }),
        );
  }

  /**
   * The last change's instant of a record after a change (`tx` as it was before `ob`): an expiry's
   * is the window's end; a change made by `ob` itself (a cancel, a sandbox move) lies within `ob`;
   * a later status than the one seen moves it.
   */
  protected changeInstant(
    ob: Observation,
    id: string,
    tx: TxState,
    status: string,
    u: number | null,
    madeHere: boolean,
    out: StateFinding[],
  ): void {
    const now = bit(status);
    if (u === null || !now || tx.st === now) return;
    const push = (f: Omit<FindingOf, 'ob' | 'kind' | 'txId' | 'tx' | 'jsonPath'>) =>
      out.push(finding({ kind: 'timestamps', ob, txId: id, tx: { first: tx.first, last: tx.last }, jsonPath: '$.updatedAt', ...f }));
    const shown = iso(u);
    if (status === EXPIRY.to && !Number.isNaN(tx.c)) {
      const end = expiryOf(at(tx.c), this.windowMs / 1000);
      if (!expiryInstantAllowed(at(tx.c), this.windowMs / 1000, u, this.tol))
        push({
          message: `updatedAt ${shown} of an expired transaction is not the end of its payment window (${iso(end.from)})`,
          expected: iso(end.from),
          actual: shown,
        });
      return;
    }
    if (madeHere) {
      const during = this.serverTime(tx.m, ob.sentAt, ob.receivedAt);
      if (!within(during, u, this.tol))
        push({
          message: `${ob.opId} changed the transaction to ${status} but its updatedAt ${shown} is outside the exchange (server clock between ${iso(during.from - this.tol)} and ${iso(during.to + this.tol)})`,
          expected: 'an instant of the exchange',
          actual: shown,
        });
      return;
    }
    if (tx.u !== null && u === tx.u && names(tx.st).length === 1 && !this.overlaps(tx, ob))
      push({
        message: `updatedAt ${shown} did not move with the change from ${names(tx.st)[0]} to ${status}`,
        expected: `a later instant than ${shown}`,
        actual: shown,
      });
  }

  /**
   * A2's record against what the proxy saw of its transaction, judged by the suite's
   * `judgeStatusRecord` (conformance/status-record.ts): its customer_phone the one first shown,
   * created_at within the exchange of the paid session that made the transaction, updated_at the
   * last change's instant the answers showed (while that status is certain). Kept here: the
   * phone's hash, those instants, and the findings' wording.
   */
  protected localDates(ob: Observation, id: string, json: Record<string, unknown>, out: StateFinding[]): void {
    const tx = this.txs.get(id);
    if (!tx) return;
    const from = tx.p0 === NOT_MADE ? undefined : this.wall(tx.p0);
    const now = names(tx.st);
    const verdicts = judgeStatusRecord(json, {
      samePhone: (phone) => {
        if (tx.ph === 0) tx.ph = smallHash(phone);
        return smallHash(phone) === tx.ph;
      },
      ...(from === undefined ? {} : { created: { from: from - this.tol, to: from + tx.pd + this.tol } }),
      ...(tx.u === null || now.length !== 1 || this.overlaps(tx, ob)
        ? {}
        : { updated: { at: tx.u, status: (checkoutStatusOf as Record<string, string>)[now[0]!]! } }),
    });
    const push = (member: string, message: string, expected: unknown) =>
      out.push(finding({ kind: 'timestamps', ob, txId: id, tx, jsonPath: `$.${member}`, message, expected, actual: json[member] }));
    for (const v of verdicts) {
      if (v.problem === 'phone')
        out.push(
          finding({
            kind: 'contradiction',
            ob,
            txId: id,
            tx,
            jsonPath: '$.customer_phone',
            message: `${ob.opId} shows customer_phone ${v.actual} for transaction ${id}; an earlier answer, request or event showed another`,
            expected: "the transaction's customerPhone",
            actual: v.actual,
          }),
        );
      // a created_at that reads as no date is the answer judge's (its schema's pattern)
      else if (v.problem === 'created_at' && v.read !== null && from !== undefined)
        push(
          'created_at',
          `${ob.opId}'s created_at ${String(json.created_at)} reads (DD/MM/YY, UTC, ADR-007) as ${iso(v.read)}; the paid session made transaction ${id} between ${iso(from)} and ${iso(from + tx.pd)}`,
          iso(from),
        );
      else if (v.problem === 'updated_at' && v.read !== null && tx.u !== null)
        push(
          'updated_at',
          `${ob.opId}'s updated_at ${String(json.updated_at)} reads as ${iso(v.read)}; the last change of transaction ${id} (${now[0]}) was at ${iso(tx.u)}`,
          iso(tx.u),
        );
    }
  }

  /**
   * A status in the checkout form (A2, A3: `checkoutStatusOf`, EXPIRED read as CANCELED) against
   * what the transaction may be: a form none of its reachable statuses shows is a status no
   * transition leads to (a closed transaction read as PENDING).
   */
  protected checkoutStatus(ob: Observation, id: string, reported: unknown, out: StateFinding[]): void {
    const tx = this.txs.get(id);
    if (!tx || typeof reported !== 'string') return;
    let shows = 0;
    for (const s of STATUSES) if ((checkoutStatusOf as Record<string, string>)[s] === reported) shows |= bit(s);
    if (!shows || reach(tx.st) & shows || (this.overlaps(tx, ob) && reach(tx.pst) & shows)) return;
    out.push(
      finding({
        kind: 'no-transition',
        ob,
        txId: id,
        tx,
        jsonPath: '$.status',
        message: `${ob.opId} shows ${reported} for transaction ${id}, which was ${names(tx.st).join(' or ')}: no transition leads to a status shown as ${reported}`,
        expected: [...new Set(names(reach(tx.st)).map((s) => (checkoutStatusOf as Record<string, string>)[s]))],
        actual: reported,
      }),
    );
  }

  /**
   * A verified event's payload against what the answers showed (issue 42 point 7): the merchant's
   * names, the creation instant, and an expiry's instant at the end of the payment window (ADR-010).
   */
  override event(name: string, id: string, webhookId: string, when: number, seq: number, data?: Record<string, unknown>): StateFinding[] {
    const out = super.event(name, id, webhookId, when, seq);
    const tx = this.txs.get(id);
    if (!tx || !data) return out;
    const ob: Observation = {
      seq,
      opId: `webhook ${name}`,
      merchant: tx.m,
      params: {},
      requestJson: undefined,
      status: 0,
      json: undefined,
      sentAt: when,
      receivedAt: when,
    };
    this.sameNames(ob, tx.m, data, out, id);
    const push = (jsonPath: string, message: string, expected: unknown, actual: unknown) =>
      out.push(
        finding({ kind: 'webhook-payload', ob, txId: id, tx: { first: tx.first, last: tx.last }, jsonPath, message, expected, actual }),
      );
    const created = typeof data.createdAt === 'string' ? Date.parse(data.createdAt) : NaN;
    if (!Number.isNaN(tx.c) && !Number.isNaN(created) && created !== tx.c)
      push(
        '$.data.createdAt',
        `${name} for ${id} says createdAt ${String(data.createdAt)}; the answers showed ${iso(tx.c)}`,
        iso(tx.c),
        data.createdAt,
      );
    // the phone first shown (B1's answer, the paying request, A2, an earlier event) is the one every event repeats
    if (tx.ph === 0 && typeof data.customerPhone === 'string') tx.ph = smallHash(data.customerPhone);
    else if (typeof data.customerPhone === 'string' && smallHash(data.customerPhone) !== tx.ph)
      push(
        '$.data.customerPhone',
        `${name} for ${id} says customerPhone ${data.customerPhone}; an earlier answer, request or event showed another`,
        "the transaction's customerPhone",
        data.customerPhone,
      );
    const expired = typeof data.expiredAt === 'string' ? Date.parse(data.expiredAt) : NaN;
    if (!Number.isNaN(tx.c) && !Number.isNaN(expired)) {
      const end = expiryOf(at(tx.c), this.windowMs / 1000);
      if (!expiryInstantAllowed(at(tx.c), this.windowMs / 1000, expired, this.tol))
        push(
          '$.data.expiredAt',
          `${name} for ${id} says expiredAt ${String(data.expiredAt)}; its payment window ended at ${iso(end.from)} (ADR-010)`,
          iso(end.from),
          data.expiredAt,
        );
    }
    return out;
  }
}
