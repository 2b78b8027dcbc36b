/**
 * What the proxy remembers between requests, per merchant (a digest of its key, never the key):
 * every transaction it saw, by id and by vendorReference, in a few numbers each, and the rules of
 * x-state-machine judged on them. Pure: fed observations (an answered exchange, a webhook event),
 * it returns findings; no I/O.
 *
 * The bound (docs/proxy.md): at most `maxTransactions` transactions are kept (default 100,000); past it
 * the oldest seen is dropped first, with its vendorReference. What is kept per transaction is a
 * fixed handful of fields (see TxState), not the record: the immutable fields are kept as a
 * 32-bit fingerprint, so a later read that differs is found (and the earlier exchange, while the
 * exchange ring still holds it, shows which field).
 */
import { stateMachine } from '../generated/index.ts';
import { RECORD_FIELDS } from '../conformance/model.ts';
import { transitionsOf as transitionsOfSpec, type Transition } from '../conformance/spec.ts';

type Json = Record<string, unknown>;
export type Status = keyof typeof stateMachine.states;

export const STATUSES = Object.keys(stateMachine.states) as Status[];
const BIT = new Map<string, number>(STATUSES.map((s, i) => [s, 1 << i]));
const ALL = (1 << STATUSES.length) - 1;
const bit = (s: string): number => BIT.get(s) ?? 0;
const names = (mask: number): string[] => STATUSES.filter((s) => mask & bit(s));

/** Statuses reachable from each status through x-state-machine's transitions (itself included). */
const REACH = new Map<number, number>();
for (const s of STATUSES) {
  let mask = bit(s);
  for (let changed = true; changed;) {
    changed = false;
    for (const t of stateMachine.transitions) {
      if (t.from && t.from.some((f) => mask & bit(f)) && !(mask & bit(t.to))) {
        mask |= bit(t.to);
        changed = true;
      }
    }
  }
  REACH.set(bit(s), mask);
}
function reach(mask: number): number {
  let out = 0;
  for (const s of STATUSES) if (mask & bit(s)) out |= REACH.get(bit(s))!;
  return out;
}

/** The transitions (in order) that lead from `from` to `to`: the shortest path, or undefined. */
function path(from: string, to: string): Transition[] | undefined {
  const queue: { s: string; via: Transition[] }[] = [{ s: from, via: [] }];
  const seen = new Set([from]);
  while (queue.length) {
    const { s, via } = queue.shift()!;
    if (s === to) return via;
    for (const t of stateMachine.transitions)
      if (t.from && (t.from as readonly string[]).includes(s) && !seen.has(t.to)) {
        seen.add(t.to);
        queue.push({ s: t.to, via: [...via, t] });
      }
  }
  return undefined;
}

/** The transitions an operation triggers (x-state-machine), looked up once per operation, not per exchange. */
const TRIGGERED = new Map<string, readonly Transition[]>();
function transitionsOf(opId: string): readonly Transition[] {
  let list = TRIGGERED.get(opId);
  if (list === undefined) TRIGGERED.set(opId, (list = transitionsOfSpec(opId)));
  return list;
}

const EXPIRE = stateMachine.transitions.find((t) => t.from && t.to === 'EXPIRED')!;
const PENDING = stateMachine.initial;

/** One transaction, as small as it can be. */
export interface TxState {
  /** Merchant digest (one shared string per merchant). */
  m: string;
  ref: string | null;
  /** The statuses it may be in now (a bit per status): one after an answer showed it. */
  st: number;
  /** 0 partner (B1), 1 checkout (paid session). */
  kind: 0 | 1;
  /** createdAt and updatedAt on the server's clock (ms), NaN when not seen. */
  c: number;
  u: number | null;
  /** Fingerprint of the immutable fields (FNV-1a of their JSON); 0 when not seen. */
  fp: number;
  /** Exchange numbers: the first and the latest about this transaction. */
  first: number;
  last: number;
  /**
   * The statuses before the latest change, and when (ms since the tracker started) the answer
   * showing the change ended: a read sent before then may still show the earlier status.
   */
  pst: number;
  at: number;
  /** Events expected from transitions seen, and events received with no transition yet (webhooks on). */
  ev?: { name: string; transition?: string; at: number; received: boolean; id?: string }[];
}

export type FindingKind =
  | 'no-transition'
  | 'contradiction'
  | 'timestamps'
  | 'duplicate-reference'
  | 'own-404'
  | 'b2-b3'
  | 'other-merchant'
  | 'expiry-time'
  | 'webhook-no-transition'
  | 'webhook-missing'
  | 'webhook-payload';

export interface StateFinding {
  kind: FindingKind;
  operation: string;
  jsonPath: string;
  message: string;
  txId?: string;
  /** Exchange numbers that show it (earlier first). */
  exchanges: number[];
  expected?: unknown;
  actual?: unknown;
}

/** One answered exchange, as the state needs it. Times are wall-clock ms (Date.now() scale). */
export interface Observation {
  seq: number;
  opId: string;
  /** Digest of the caller's key; null for a session-token operation. */
  merchant: string | null;
  /** Whether the key is a test key (`sk_test_…`): its merchant's sandbox clock may be advanced. */
  testKey?: boolean;
  params: Record<string, string>;
  requestJson: unknown;
  status: number;
  json: unknown;
  sentAt: number;
  receivedAt: number;
}

export interface StateOptions {
  /** Default 100,000. */
  maxTransactions?: number;
  /** The server's payment window (s); default x-state-machine's. */
  paymentWindowSeconds?: number;
  /** Difference allowed between the server's clock and the proxy's (ms); default 100 (one host, or NTP-synchronised hosts). */
  clockToleranceMs?: number;
  /** Whether events are expected (the webhook side is on), and within how long (ms). */
  webhookWindowMs?: number;
  /**
   * The port the webhook side listens on. A merchant whose sandbox webhook endpoint is answered
   * (sandboxGet/SetWebhookEndpoint) disabled, or pointing at another URL than the first one answered
   * (and not at this port), sends its events elsewhere, and is not judged on missing events while it does.
   */
  webhookPort?: number;
}

export const DEFAULT_MAX_TRANSACTIONS = 100_000;
export const DEFAULT_CLOCK_TOLERANCE_MS = 100;

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0 || 1;
}

export function fingerprint(rec: Json): number {
  const values = new Array<unknown>(RECORD_FIELDS.length);
  for (let i = 0; i < RECORD_FIELDS.length; i++) values[i] = rec[RECORD_FIELDS[i]!];
  return fnv(JSON.stringify(values));
}

const isRecord = (j: unknown): j is Json => typeof j === 'object' && j !== null && !Array.isArray(j);
const code = (j: unknown): string | undefined => {
  const c = isRecord(j) && isRecord(j.error) ? j.error.code : undefined;
  return typeof c === 'string' ? c : undefined;
};
/** A time for a message: ISO 8601, or what an unbounded end means. */
const iso = (ms: number): string =>
  Number.isFinite(ms) ? new Date(ms).toISOString() : ms > 0 ? 'unknown (a sandbox clock not answered yet)' : 'unknown';
/** A timestamp's ms, or null when absent or not a date (the response judge reports the schema). */
const time = (v: unknown): number | null => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : t;
};

/** Operations whose success answer is a partner transaction record, and whether they name it by id or reference. */
const RECORD_OPS: Record<string, 'id' | 'ref' | 'create' | 'sandbox'> = {
  createPartnerTransaction: 'create',
  getPartnerTransaction: 'id',
  getPartnerTransactionByVendorReference: 'ref',
  cancelPartnerTransactionByVendorReference: 'ref',
  sandboxConfirmTransaction: 'sandbox',
  sandboxCancelTransaction: 'sandbox',
  sandboxCompleteTransaction: 'sandbox',
};

export class StateTracker {
  readonly txs = new Map<string, TxState>();
  /** merchant + '\n' + vendorReference → transaction id. */
  readonly byRef = new Map<string, string>();
  /** Per merchant: the sandbox clock offsets (s) answered, with when ([from, to] wall ms). */
  private readonly clocks = new Map<string, { from: number; to: number; off: number }[]>();
  /** Per merchant: the largest sandbox clock offset (s) answered. */
  private readonly peaks = new Map<string, number>();
  private readonly merchants = new Map<string, string>();
  /** Merchants seen with a test key (their sandbox clock offset is unknown until answered). */
  private readonly testKeys = new Set<string>();
  readonly transitions = new Set<string>();
  readonly events = new Set<string>();
  /** Merchants whose events reach the webhook listener (one verified event seen): only they are judged on missing events. */
  readonly eventMerchants = new Set<string>();
  /** Merchants whose webhook endpoint was answered pointing elsewhere (or disabled). */
  readonly elsewhere = new Set<string>();
  /** Per merchant, the first webhook endpoint URL answered. */
  private readonly endpoints = new Map<string, string>();
  dropped = 0;
  /** Events about transactions the proxy never saw (made before it started, or not through it). */
  unknownEvents = 0;
  readonly max: number;
  /** The tracker's time origin (wall ms): change times are kept as small integers after it. */
  private readonly t0 = Date.now();
  readonly windowMs: number;
  readonly tol: number;

  constructor(readonly o: StateOptions) {
    this.max = o.maxTransactions ?? DEFAULT_MAX_TRANSACTIONS;
    this.windowMs = (o.paymentWindowSeconds ?? stateMachine.paymentWindow.defaultSeconds) * 1000;
    this.tol = o.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS;
  }

  private merchant(m: string): string {
    let s = this.merchants.get(m);
    if (!s) this.merchants.set(m, (s = m));
    return s;
  }

  /** The sandbox clock offset (ms) a merchant's server may have used during [from, to]: [lo, hi]. 0 until a clock answer is seen. */
  private offset(m: string, from: number, to: number): [number, number] {
    const list = this.clocks.get(m) ?? [];
    // before any clock answer: 0 for a live key; for a test key, anything from 0 up (a sandbox
    // clock only moves forward, and may have been advanced before the proxy started)
    let before: [number, number] = this.testKeys.has(m) ? [0, Infinity] : [0, 0];
    let lo = Infinity;
    let hi = -Infinity;
    for (const e of list) {
      if (e.to <= from) before = [e.off * 1000, e.off * 1000];
      else if (e.from <= to) {
        lo = Math.min(lo, e.off * 1000);
        hi = Math.max(hi, e.off * 1000);
      }
    }
    return [Math.min(lo, before[0]), Math.max(hi, before[1])];
  }

  /** The server's clock during [from, to] (wall ms), as far as the proxy can know it. */
  private serverTime(m: string, from: number, to: number): [number, number] {
    const [lo, hi] = this.offset(m, from, to);
    return [from + lo - this.tol, to + hi + this.tol];
  }

  /**
   * The latest the server's clock can have been at any moment up to `to`: what a change shown by an
   * answer (updatedAt, an expiry) may have been stamped with. A reset sets a sandbox clock back to
   * real time, and a record changed before it keeps the later instant.
   */
  private latest(m: string, to: number): number {
    const peak = this.peaks.get(m) ?? 0;
    return Math.max(this.serverTime(m, to, to)[1], to + peak * 1000 + this.tol);
  }

  private add(id: string, tx: TxState): void {
    this.txs.set(id, tx);
    if (tx.ref !== null) this.byRef.set(tx.m + '\n' + tx.ref, id);
    while (this.txs.size > this.max) {
      const [oldId, old] = this.txs.entries().next().value as [string, TxState];
      this.txs.delete(oldId);
      if (old.ref !== null && this.byRef.get(old.m + '\n' + old.ref) === oldId) this.byRef.delete(old.m + '\n' + old.ref);
      this.dropped++;
    }
  }

  /** Judges one answered exchange against what was seen before; updates the state. */
  observe(ob: Observation): StateFinding[] {
    const out: StateFinding[] = [];
    const m = ob.merchant === null ? null : this.merchant(ob.merchant);
    if (m !== null && ob.testKey) this.testKeys.add(m);
    const kind = RECORD_OPS[ob.opId];
    const json = ob.json;
    if (
      m !== null &&
      (ob.opId === 'sandboxGetClock' || ob.opId === 'sandboxAdvanceClock' || ob.opId === 'sandboxReset') &&
      ob.status === 200
    ) {
      if (isRecord(json) && typeof json.offsetSeconds === 'number') {
        const list = this.clocks.get(m) ?? [];
        list.push({ from: ob.sentAt, to: ob.receivedAt, off: json.offsetSeconds });
        this.peaks.set(m, Math.max(this.peaks.get(m) ?? 0, json.offsetSeconds));
        if (list.length > 8) list.splice(0, list.length - 8);
        this.clocks.set(m, list);
      }
      const deleted = isRecord(json) && isRecord(json.deleted) ? json.deleted.transactions : 0;
      if (ob.opId === 'sandboxReset' && typeof deleted === 'number' && deleted > 0) this.forgetMerchant(m);
      return out;
    }
    if (
      m !== null &&
      (ob.opId === 'sandboxGetWebhookEndpoint' || ob.opId === 'sandboxSetWebhookEndpoint') &&
      ob.status === 200 &&
      isRecord(json)
    ) {
      // the first URL answered is taken as the one reaching the proxy (directly, or through a public
      // address or a relay); another URL, or a disabled endpoint, sends the events elsewhere
      const url = typeof json.url === 'string' ? json.url : null;
      if (!this.endpoints.has(m) && url !== null) this.endpoints.set(m, url);
      let port: number | undefined;
      try {
        port = url === null ? undefined : Number(new URL(url).port);
      } catch {
        port = undefined;
      }
      const here = json.enabled === true && url !== null && (url === this.endpoints.get(m) || port === this.o.webhookPort);
      if (here) this.elsewhere.delete(m);
      else this.elsewhere.add(m);
      return out;
    }
    if (ob.opId === 'sandboxPaySession' && ob.status === 200 && m !== null && isRecord(json) && typeof json.transaction_id === 'string') {
      const id = json.transaction_id;
      if (!this.txs.has(id)) {
        this.add(id, { m, ref: null, st: bit(PENDING), kind: 1, c: NaN, u: null, fp: 0, first: ob.seq, last: ob.seq, pst: 0, at: 0 });
        this.transitions.add('checkout-pay');
      }
      const tx = this.txs.get(id)!;
      const reported = typeof json.status === 'string' ? json.status : undefined;
      for (const t of transitionsOf(ob.opId)) if (t.from && reported && t.to === reported) this.moved(tx, id, bit(t.to), ob, out, t);
      return out;
    }
    if (ob.opId === 'verifyTransaction' && m !== null) {
      const id = ob.params.transactionId ?? '';
      const tx = this.txs.get(id);
      if (ob.status === 404 && tx && tx.m === m && tx.kind === 1)
        out.push(
          this.finding('own-404', ob, id, tx, '$', `A3 answered 404 for checkout transaction ${id}, paid by this merchant's session`),
        );
      if (ob.status === 200 && tx && tx.m !== m)
        out.push(this.finding('other-merchant', ob, id, tx, '$.id', `A3 showed transaction ${id} of another merchant`));
      return out;
    }
    if (!kind || m === null) return out;
    if (ob.status >= 400) {
      this.refused(ob, m, kind, out);
      return out;
    }
    if (ob.status >= 300 || !isRecord(json) || typeof json.id !== 'string') return out;
    const id = json.id;
    const status = typeof json.status === 'string' ? json.status : '';
    let tx = this.txs.get(id);
    const ref = typeof json.vendorReference === 'string' ? json.vendorReference : null;

    if (tx && tx.m !== m) {
      out.push(
        this.finding(
          'other-merchant',
          ob,
          id,
          tx,
          '$.id',
          `${ob.opId} answered ${ob.status} with transaction ${id}, created by another merchant`,
        ),
      );
      return out;
    }
    if (kind === 'id' && ob.params.transactionId !== undefined && ob.params.transactionId !== id)
      out.push(
        this.finding(
          'b2-b3',
          ob,
          id,
          tx,
          '$.id',
          `B2 for ${ob.params.transactionId} answered transaction ${id}`,
          ob.params.transactionId,
          id,
        ),
      );
    if (kind === 'ref' && ob.params.vendorReference !== undefined) {
      const known = this.byRef.get(m + '\n' + ob.params.vendorReference);
      if (ref !== ob.params.vendorReference)
        out.push(
          this.finding(
            'b2-b3',
            ob,
            id,
            tx,
            '$.vendorReference',
            `${ob.opId} for vendorReference ${ob.params.vendorReference} answered a transaction with vendorReference ${String(ref)}`,
            ob.params.vendorReference,
            ref,
          ),
        );
      else if (known !== undefined && known !== id)
        out.push(
          this.finding(
            'b2-b3',
            ob,
            id,
            this.txs.get(known),
            '$.id',
            `vendorReference ${ref} answered transaction ${id}; B2/B1 showed it is transaction ${known}`,
            known,
            id,
          ),
        );
    }

    const c = time(json.createdAt);
    const u = json.updatedAt === null ? null : time(json.updatedAt);
    this.timestamps(ob, id, tx, json, status, c, u, out);

    if (kind === 'create') {
      if (ref !== null) {
        const earlier = this.byRef.get(m + '\n' + ref);
        if (earlier !== undefined && earlier !== id)
          out.push(
            this.finding(
              'duplicate-reference',
              ob,
              earlier,
              this.txs.get(earlier),
              '$.vendorReference',
              `vendorReference ${ref} reused and answered ${ob.status}: this merchant's transaction ${earlier} already has it`,
              'DUPLICATE_VENDOR_REFERENCE',
              ob.status,
            ),
          );
      }
      if (c !== null && !Number.isNaN(c)) {
        const [lo, hi] = this.serverTime(m, ob.sentAt, ob.receivedAt);
        if (c < lo || c > hi)
          out.push(
            this.finding(
              'timestamps',
              ob,
              id,
              tx,
              '$.createdAt',
              `createdAt ${String(json.createdAt)} is outside the exchange (server clock between ${iso(lo)} and ${iso(hi)})`,
            ),
          );
      }
      if (tx) {
        out.push(
          this.finding(
            'contradiction',
            ob,
            id,
            tx,
            '$.id',
            `B1 answered ${ob.status} with transaction ${id}, which an earlier answer already showed`,
          ),
        );
        return out;
      }
      tx = { m, ref, st: bit(PENDING), kind: 0, c: c ?? NaN, u, fp: fingerprint(json), first: ob.seq, last: ob.seq, pst: 0, at: 0 };
      this.add(id, tx);
      for (const t of transitionsOf(ob.opId)) if (!t.from) this.transitions.add(t.id);
      if (status !== PENDING)
        out.push(
          this.finding(
            'no-transition',
            ob,
            id,
            tx,
            '$.status',
            `created with status ${status}; x-state-machine creates ${PENDING}`,
            PENDING,
            status,
          ),
        );
      return out;
    }

    if (!tx) {
      // first sight of a transaction made before the proxy started (or not through it)
      tx = { m, ref, st: bit(status) || ALL, kind: 0, c: c ?? NaN, u, fp: fingerprint(json), first: ob.seq, last: ob.seq, pst: 0, at: 0 };
      this.add(id, tx);
      return out;
    }
    const fp = fingerprint(json);
    if (tx.fp !== 0 && fp !== tx.fp)
      out.push(
        this.finding(
          'contradiction',
          ob,
          id,
          tx,
          '$',
          `${ob.opId} answered transaction ${id} with fields (${RECORD_FIELDS.join(', ')}) other than an earlier answer showed`,
        ),
      );
    tx.fp = fp;
    if (tx.ref === null && ref !== null) {
      tx.ref = ref;
      this.byRef.set(m + '\n' + ref, id);
    }
    if (tx.u !== null && u !== null && u !== tx.u && status !== '' && tx.st === bit(status) && !this.overlaps(tx, ob))
      out.push(
        this.finding(
          'timestamps',
          ob,
          id,
          tx,
          '$.updatedAt',
          `updatedAt changed from ${new Date(tx.u).toISOString()} to ${String(json.updatedAt)} with the status still ${status}`,
        ),
      );
    if (c !== null && !Number.isNaN(tx.c) && c !== tx.c) {
      // reported by the fingerprint (createdAt is one of the immutable fields)
    }
    // a read sent before the answer showing the latest change ended may show the status before it
    if (this.overlaps(tx, ob) && !(reach(tx.st) & bit(status)) && reach(tx.pst) & bit(status)) {
      tx.last = ob.seq;
      return out;
    }
    const triggered = transitionsOf(ob.opId).filter((t) => t.from && t.to === status);
    if (kind === 'sandbox' || ob.opId === 'cancelPartnerTransactionByVendorReference') {
      // a transition the operation itself makes: the status before must be one it starts from
      const ok = triggered.find((t) => t.from!.some((f) => reach(tx.st) & bit(f)));
      if (!ok) {
        out.push(
          this.finding(
            'no-transition',
            ob,
            id,
            tx,
            '$.status',
            `${ob.opId} answered ${ob.status} with status ${status}, from ${names(tx.st).join(' or ')}: x-state-machine has no such transition of ${ob.opId}`,
            triggered.map((t) => `${t.from!.join('|')} -> ${t.to}`),
            `${names(tx.st).join('|')} -> ${status}`,
          ),
        );
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

  /** Sets what a transaction may be now, remembering what it was and when the answer showing the change ended. */
  private setSt(tx: TxState, mask: number, ob: Observation): void {
    if (mask === tx.st) return;
    tx.pst = tx.st;
    tx.at = Math.round(ob.receivedAt - this.t0);
    tx.st = mask;
  }

  /** Whether an exchange was sent before the answer that showed the transaction's latest change ended (the two overlapped). */
  private overlaps(tx: TxState, ob: Observation): boolean {
    return ob.sentAt - this.t0 < tx.at;
  }

  /** A refusal: a 404 for one's own transaction, or a rejection by state that narrows the statuses. */
  private refused(ob: Observation, m: string, kind: string, out: StateFinding[]): void {
    const c = code(ob.json);
    const id = kind === 'ref' ? this.byRef.get(m + '\n' + (ob.params.vendorReference ?? '')) : ob.params.transactionId;
    const tx = id === undefined ? undefined : this.txs.get(id);
    if (!tx || tx.m !== m) return;
    if (ob.status === 404 && c === 'TRANSACTION_NOT_FOUND' && tx.kind === 0 && kind !== 'sandbox')
      out.push(
        this.finding(
          'own-404',
          ob,
          id!,
          tx,
          '$',
          `${ob.opId} answered 404 ${c} for transaction ${id}${tx.ref ? ` (vendorReference ${tx.ref})` : ''}, which this merchant created`,
        ),
      );
    const rejection = stateMachine.rejections.find((r) => r.trigger.operationId === ob.opId && r.status === ob.status && r.code === c);
    if (rejection) {
      let allowed = 0;
      for (const f of rejection.from) allowed |= bit(f);
      const now = reach(tx.st) & allowed;
      if (!now && !(this.overlaps(tx, ob) && reach(tx.pst) & allowed))
        out.push(
          this.finding(
            'contradiction',
            ob,
            id!,
            tx,
            '$.error.code',
            `${ob.opId} refused with ${c} (status one of ${rejection.from.join(', ')}), but the transaction was ${names(tx.st).join(' or ')} and no transition leads there`,
            names(tx.st),
            c,
          ),
        );
      else if (now) this.setSt(tx, now, ob);
      tx.last = ob.seq;
    }
  }

  /** createdAt/updatedAt rules of one record (ADR-013): updatedAt null exactly while PENDING, never before createdAt. */
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
    const pending = status === PENDING;
    if (pending ? json.updatedAt !== null : typeof json.updatedAt !== 'string')
      out.push(
        this.finding(
          'timestamps',
          ob,
          id,
          tx,
          '$.updatedAt',
          pending
            ? `updatedAt is ${JSON.stringify(json.updatedAt)} while ${status}`
            : `updatedAt is ${JSON.stringify(json.updatedAt)} after a change to ${status}`,
          pending ? null : 'a timestamp',
          json.updatedAt,
        ),
      );
    else if (u !== null && c !== null && u < c)
      out.push(
        this.finding(
          'timestamps',
          ob,
          id,
          tx,
          '$.updatedAt',
          `updatedAt ${String(json.updatedAt)} is before createdAt ${String(json.createdAt)}`,
        ),
      );
    else if (u !== null && ob.merchant !== null) {
      const hi = this.latest(ob.merchant, ob.receivedAt);
      if (u > hi)
        out.push(
          this.finding(
            'timestamps',
            ob,
            id,
            tx,
            '$.updatedAt',
            `updatedAt ${String(json.updatedAt)} is later than the server's clock can have been when it answered (${iso(hi)})`,
          ),
        );
    }
  }

  /**
   * The transaction is now `now` (one status): it must be reachable from what it was, by a
   * transition whose guard may have held (expiry only once the window may have passed), and a
   * PENDING one whose window has certainly passed should read EXPIRED.
   */
  private moved(tx: TxState, id: string, now: number, ob: Observation, out: StateFinding[], via?: Transition): void {
    const before = tx.st;
    tx.last = ob.seq;
    if (!now) return;
    const [lo] = this.serverTime(tx.m, ob.sentAt, ob.receivedAt);
    const hi = this.latest(tx.m, ob.receivedAt);
    if (!(reach(before) & now)) {
      out.push(
        this.finding(
          'no-transition',
          ob,
          id,
          tx,
          '$.status',
          `status ${names(now)[0]} after ${names(before).join(' or ')}: x-state-machine has no transition leading there`,
          names(reach(before)),
          names(now)[0],
        ),
      );
      this.setSt(tx, now, ob);
      return;
    }
    if (!Number.isNaN(tx.c)) {
      if (now === bit(PENDING) && lo >= tx.c + this.windowMs)
        out.push(
          this.finding(
            'expiry-time',
            ob,
            id,
            tx,
            '$.status',
            `still ${PENDING} after its payment window (${this.windowMs / 1000} s from createdAt ${new Date(tx.c).toISOString()}; the server's clock was at least ${iso(lo)})`,
            'EXPIRED',
            PENDING,
          ),
        );
      if (now === bit(EXPIRE.to) && before === bit(PENDING) && hi < tx.c + this.windowMs)
        out.push(
          this.finding(
            'expiry-time',
            ob,
            id,
            tx,
            '$.status',
            `${EXPIRE.to} before its payment window passed (${this.windowMs / 1000} s from createdAt ${new Date(tx.c).toISOString()}; the server's clock was at most ${iso(hi)})`,
            PENDING,
            EXPIRE.to,
          ),
        );
    }
    if (before !== now) {
      const steps = via ? [via] : names(before).length === 1 ? (path(names(before)[0]!, names(now)[0]!) ?? []) : [];
      for (const t of steps) {
        this.transitions.add(t.id);
        if (t.emits) this.expect(tx, t.emits, t.id, ob.receivedAt);
      }
    }
    // an event received earlier whose transition this answer rules out: an event with no transition
    if (tx.ev)
      for (const e of tx.ev.filter((x) => x.received && x.transition === undefined)) {
        const t = stateMachine.transitions.find((x) => x.emits === e.name)!;
        if (!(REACH.get(bit(t.to))! & now) && e.at < ob.sentAt) {
          out.push(
            this.finding(
              'webhook-no-transition',
              ob,
              id,
              tx,
              '$',
              `event ${e.name} (webhook-id ${e.id ?? '?'}) came for transaction ${id}, but a later answer shows ${names(now)[0]}: no ${t.id} happened`,
              t.to,
              names(now)[0],
            ),
          );
          tx.ev.splice(tx.ev.indexOf(e), 1);
        }
      }
    this.setSt(tx, now, ob);
  }

  // ---- webhooks ---------------------------------------------------------------------
  private expect(tx: TxState, event: string, transition: string, at: number): void {
    // while the merchant's endpoint is answered pointing elsewhere, its events go there
    if (this.o.webhookWindowMs === undefined || this.elsewhere.has(tx.m)) return;
    tx.ev ??= [];
    const got = tx.ev.findIndex((e) => e.received && e.transition === undefined && e.name === event);
    if (got >= 0) {
      tx.ev[got]!.transition = transition;
      this.events.add(event);
      return;
    }
    tx.ev.push({ name: event, transition, at, received: false });
  }

  /**
   * A verified event about transaction `id`: matched to the transition seen that emits it, held
   * until a transition shows (or rules it out), or a finding when the transaction's state excludes it.
   */
  event(name: string, id: string, webhookId: string, at: number, seq: number): StateFinding[] {
    const tx = this.txs.get(id);
    if (!tx) {
      this.unknownEvents++;
      return [];
    }
    this.eventMerchants.add(tx.m);
    // its events reach the proxy whatever its endpoint was answered as (a relay in between)
    this.elsewhere.delete(tx.m);
    tx.ev ??= [];
    if (tx.ev.some((e) => e.received && e.id === webhookId)) return []; // a retry of one delivery
    const waiting = tx.ev.findIndex((e) => !e.received && e.name === name);
    if (waiting >= 0) {
      const e = tx.ev[waiting]!;
      e.received = true;
      e.id = webhookId;
      this.events.add(name);
      return [];
    }
    const second = tx.ev.some((e) => e.received && e.name === name);
    const t = stateMachine.transitions.filter((x) => x.emits === name);
    if (!second) {
      // its transition may still come (a customer's confirmation the proxy has not seen yet): held
      if (t.some((x) => x.from!.some((f) => reach(tx.st) & bit(f)) && !(tx.st & bit(x.to)))) {
        tx.ev.push({ name, at, received: true, id: webhookId });
        if (tx.ev.length > 6) tx.ev.shift();
        return [];
      }
      // the transaction may have passed through the transition's status (seen before events were
      // expected of this merchant): the event of that transition
      if (t.some((x) => REACH.get(bit(x.to))! & tx.st)) {
        tx.ev.push({ name, transition: t[0]!.id, at, received: true, id: webhookId });
        if (tx.ev.length > 6) tx.ev.shift();
        this.events.add(name);
        return [];
      }
    }
    const ob: Observation = {
      seq,
      opId: `webhook ${name}`,
      merchant: tx.m,
      params: {},
      requestJson: undefined,
      status: 0,
      json: undefined,
      sentAt: at,
      receivedAt: at,
    };
    return [
      this.finding(
        'webhook-no-transition',
        ob,
        id,
        tx,
        '$',
        second
          ? `a second ${name} for transaction ${id} under a new webhook-id ${webhookId}: x-state-machine emits one per transition`
          : `event ${name} (webhook-id ${webhookId}) for transaction ${id}, which is ${names(tx.st).join(' or ')}: no transition seen or possible emits it`,
        'no event',
        name,
      ),
    ];
  }

  /** Transitions whose event did not come within the window, as of `now` (wall ms). */
  sweep(now: number): StateFinding[] {
    const w = this.o.webhookWindowMs;
    if (w === undefined) return [];
    const out: StateFinding[] = [];
    for (const [id, tx] of this.txs) {
      if (!tx.ev || !this.eventMerchants.has(tx.m)) continue;
      if (this.elsewhere.has(tx.m)) {
        tx.ev = tx.ev.filter((e) => e.received);
        if (!tx.ev.length) delete tx.ev;
        continue;
      }
      for (const e of [...tx.ev]) {
        if (e.received || e.at + w > now) continue;
        const ob: Observation = {
          seq: tx.last,
          opId: `webhook ${e.name}`,
          merchant: tx.m,
          params: {},
          requestJson: undefined,
          status: 0,
          json: undefined,
          sentAt: e.at,
          receivedAt: e.at,
        };
        out.push(
          this.finding(
            'webhook-missing',
            ob,
            id,
            tx,
            '$',
            `transition ${e.transition} of transaction ${id} emitted no ${e.name} within ${w} ms`,
            e.name,
            'no delivery',
          ),
        );
        tx.ev.splice(tx.ev.indexOf(e), 1);
      }
      if (!tx.ev.length) delete tx.ev;
    }
    return out;
  }

  forgetMerchant(m: string): void {
    for (const [id, tx] of this.txs)
      if (tx.m === m) {
        this.txs.delete(id);
        if (tx.ref !== null) this.byRef.delete(m + '\n' + tx.ref);
      }
  }

  private finding(
    kind: FindingKind,
    ob: Observation,
    txId: string,
    tx: TxState | undefined,
    jsonPath: string,
    message: string,
    expected?: unknown,
    actual?: unknown,
  ): StateFinding {
    const exchanges = [...new Set([tx?.first, tx?.last, ob.seq].filter((x): x is number => x !== undefined))].sort((a, b) => a - b);
    return { kind, operation: ob.opId, jsonPath, message, txId, exchanges, expected, actual };
  }
}
