/**
 * What the proxy remembers between requests, per merchant (a digest of its key, never the key):
 * every transaction it saw, by id and by vendorReference, in a few numbers each; each merchant's
 * sandbox clock as answered; where its webhooks go. The rules judged on it are state.ts's and
 * state-events.ts's, through the model (model/).
 *
 * The bound (docs/proxy.md): at most `maxTransactions` transactions are kept (default 100,000); past it
 * the oldest seen is dropped first, with its vendorReference. What is kept per transaction is a
 * fixed handful of fields (see TxState), not the record: the immutable fields are kept as a
 * 32-bit fingerprint of their canonical JSON (member order never counts, the model's sameJson form),
 * so a later read that differs is found (and the earlier exchange, while the exchange ring still
 * holds it, shows which field).
 */
import { stateMachine } from '../generated/index.ts';
import { stableJson } from '../lib/json.ts';
import { IMMUTABLE_FIELDS, type Interval } from '../model/index.ts';
import type { Observation } from './finding.ts';

/** One transaction, as small as it can be. */
export interface TxState {
  /** Merchant digest (one shared string per merchant). */
  m: string;
  ref: string | null;
  /** The statuses it may be in now (a bit per status, statuses.ts): one after an answer showed it. */
  st: number;
  /** 0 partner (B1), 1 checkout (paid session). */
  kind: 0 | 1;
  /** createdAt and updatedAt on the server's clock (ms), NaN when not seen. */
  c: number;
  u: number | null;
  /** Fingerprint of the immutable fields (FNV-1a of their canonical JSON); 0 when not seen. */
  fp: number;
  /** `quickPrint` of the latest answer showing them (as written, member order kept): equal, fp is too. */
  q: number;
  /** Exchange numbers: the first and the latest about this transaction. */
  first: number;
  last: number;
  /**
   * The statuses before the latest change, and when (ms since the tracker started) the answer
   * showing the change ended: a read sent before then may still show the earlier status.
   */
  pst: number;
  at: number;
  /** When (ms since the tracker started) the B1 answer that made it through the proxy ended; NOT_MADE when not made so. */
  b1: number;
  /** Its customerPhone's `smallHash` as B1 answered it or the paying request named it; 0 when not known. */
  ph: number;
  /**
   * A checkout transaction made by a paid session the proxy saw: the earliest its server's clock can
   * have read at creation (ms since the tracker started; NOT_MADE when not known), and how much later
   * the latest (the paying exchange's length, ms).
   */
  p0: number;
  pd: number;
  /** Events expected from transitions seen, and events received with no transition yet (webhooks on). */
  ev?: { name: string; transition?: string; at: number; received: boolean; id?: string }[];
}

export interface StateOptions {
  /** Default 100,000. */
  maxTransactions?: number;
  /** The server's payment window (s); default x-state-machine's. */
  paymentWindowSeconds?: number;
  /** Difference allowed between the server's clock and the proxy's (ms): the model's slack; default 100 (one host, or NTP-synchronised hosts). */
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

/** TxState.b1 of a transaction not made through the proxy's B1 (the least small integer V8 holds unboxed). */
export const NOT_MADE = -0x40000000;

/** A small number for a value (30 bits: held unboxed in an object), equal for equal canonical JSON. */
export const smallHash = (v: unknown): number => fnv(stableJson(v)) & 0x3fffffff;

/** The immutable fields as an answer wrote them (JSON.stringify: member order kept), hashed to a small integer; no canonical form made. */
export function quickPrint(rec: Record<string, unknown>): number {
  const values = new Array<unknown>(IMMUTABLE_FIELDS.length);
  for (let i = 0; i < IMMUTABLE_FIELDS.length; i++) values[i] = rec[IMMUTABLE_FIELDS[i]!];
  return fnv(JSON.stringify(values)) & 0x3fffffff;
}

/** The immutable fields' fingerprint: equal for semantically equal records, whatever their members' order. */
export function fingerprint(rec: Record<string, unknown>): number {
  const values = new Array<string>(IMMUTABLE_FIELDS.length);
  for (let i = 0; i < IMMUTABLE_FIELDS.length; i++) values[i] = stableJson(rec[IMMUTABLE_FIELDS[i]!]);
  return fnv(values.join('\n'));
}

/** A transaction as first seen: its merchant, reference, statuses, kind (0 partner, 1 checkout), timestamps, fingerprint, exchange. */
export const newTx = (
  m: string,
  ref: string | null,
  st: number,
  kind: 0 | 1,
  c: number,
  u: number | null,
  fp: number,
  seq: number,
): TxState => ({
  m,
  ref,
  st,
  kind,
  c,
  u,
  fp,
  q: 0,
  first: seq,
  last: seq,
  pst: 0,
  at: 0,
  b1: NOT_MADE,
  ph: 0,
  p0: NOT_MADE,
  pd: 0,
});

export type Json = Record<string, unknown>;
export const isRecord = (j: unknown): j is Json => typeof j === 'object' && j !== null && !Array.isArray(j);

export const code = (j: unknown): string | undefined => {
  const c = isRecord(j) && isRecord(j.error) ? j.error.code : undefined;
  return typeof c === 'string' ? c : undefined;
};
/** A timestamp's ms, or null when absent or not a date (the response judge reports the schema). */
export const time = (v: unknown): number | null => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : t;
};

/** Operations whose success answer is a partner transaction record, and whether they name it by id or reference. */
export const RECORD_OPS: Record<string, 'id' | 'ref' | 'create' | 'sandbox'> = {
  createPartnerTransaction: 'create',
  getPartnerTransaction: 'id',
  getPartnerTransactionByVendorReference: 'ref',
  cancelPartnerTransactionByVendorReference: 'ref',
  sandboxConfirmTransaction: 'sandbox',
  sandboxCancelTransaction: 'sandbox',
  sandboxCompleteTransaction: 'sandbox',
};

/** The model's view of a kept transaction: its merchant and kind (ownership). */
export const owned = (tx: TxState | undefined) =>
  tx ? { merchantId: tx.m, kind: tx.kind === 0 ? ('partner' as const) : ('checkout' as const) } : undefined;

/** A time for a message: ISO 8601, or what an unbounded end means. */
export const iso = (ms: number): string =>
  Number.isFinite(ms) ? new Date(ms).toISOString() : ms > 0 ? 'unknown (a sandbox clock not answered yet)' : 'unknown';

export class TrackerStore {
  readonly txs = new Map<string, TxState>();
  /** merchant + '\n' + vendorReference → transaction id. */
  readonly byRef = new Map<string, string>();
  /** Per merchant: the sandbox clock offsets (s) answered, with when ([from, to] wall ms). */
  private readonly clocks = new Map<string, { from: number; to: number; off: number }[]>();
  /** Per merchant: the largest sandbox clock offset (s) answered. */
  private readonly peaks = new Map<string, number>();
  private readonly merchants = new Map<string, string>();
  /** Merchants seen with a test key (their sandbox clock offset is unknown until answered). */
  protected readonly testKeys = new Set<string>();
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
  /** The model's slack: how far the server's clock may be from the proxy's (ms). */
  readonly tol: number;

  constructor(readonly o: StateOptions) {
    this.max = o.maxTransactions ?? DEFAULT_MAX_TRANSACTIONS;
    this.windowMs = (o.paymentWindowSeconds ?? stateMachine.paymentWindow.defaultSeconds) * 1000;
    this.tol = o.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS;
  }

  protected merchant(m: string): string {
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

  /** The server's clock during [from, to] (wall ms), as far as the proxy can know it (the model's slack not added). */
  protected serverTime(m: string, from: number, to: number): Interval {
    const [lo, hi] = this.offset(m, from, to);
    return { from: from + lo, to: to + hi };
  }

  /**
   * The latest the server's clock can have been at any moment up to `to` (slack not added): what a
   * change shown by an answer (updatedAt, an expiry) may have been stamped with. A reset sets a
   * sandbox clock back to real time, and a record changed before it keeps the later instant.
   */
  protected latest(m: string, to: number): number {
    return Math.max(this.serverTime(m, to, to).to, to + (this.peaks.get(m) ?? 0) * 1000);
  }

  protected add(id: string, tx: TxState): void {
    this.txs.set(id, tx);
    if (tx.ref !== null) this.byRef.set(tx.m + '\n' + tx.ref, id);
    while (this.txs.size > this.max) {
      const [oldId, old] = this.txs.entries().next().value as [string, TxState];
      this.txs.delete(oldId);
      if (old.ref !== null && this.byRef.get(old.m + '\n' + old.ref) === oldId) this.byRef.delete(old.m + '\n' + old.ref);
      this.dropped++;
    }
  }

  /** Sets what a transaction may be now, remembering what it was and when the answer showing the change ended. */
  protected setSt(tx: TxState, mask: number, ob: Observation): void {
    if (mask === tx.st) return;
    tx.pst = tx.st;
    tx.at = Math.round(ob.receivedAt - this.t0);
    tx.st = mask;
  }

  /** A paid session made `tx` in exchange `ob`: when its server's clock may have read at creation (unknown while a test key's offset is). */
  protected madeByPay(tx: TxState, ob: Observation): void {
    // the shopper's phone as the payment named it: its events carry it
    const phone = isRecord(ob.requestJson) ? ob.requestJson.customerPhone : undefined;
    if (typeof phone === 'string') tx.ph = smallHash(phone);
    const t = this.serverTime(tx.m, ob.sentAt, ob.receivedAt);
    if (!Number.isFinite(t.to)) return;
    tx.p0 = this.sinceStart(t.from);
    tx.pd = Math.round(t.to - t.from);
  }

  /** A wall time (ms) as a small integer after the tracker's start, and back. */
  protected sinceStart(wall: number): number {
    return Math.round(wall - this.t0);
  }
  protected wall(sinceStart: number): number {
    return this.t0 + sinceStart;
  }

  /** Whether an exchange was sent before the answer that showed the transaction's latest change ended (the two overlapped). */
  protected overlaps(tx: TxState, ob: Observation): boolean {
    return ob.sentAt - this.t0 < tx.at;
  }

  /** A sandbox clock or webhook endpoint answer: what the merchant's clock is, where its events go. True when `ob` was one. */
  protected sandboxSettings(ob: Observation, m: string): boolean {
    const json = ob.json;
    if (ob.status !== 200) return false;
    if (ob.opId === 'sandboxGetClock' || ob.opId === 'sandboxAdvanceClock' || ob.opId === 'sandboxReset') {
      // the exact offset in milliseconds where the answer gives it (ADR-085), else whole seconds
      const off = isRecord(json)
        ? typeof json.offsetMilliseconds === 'number'
          ? json.offsetMilliseconds / 1000
          : typeof json.offsetSeconds === 'number'
            ? json.offsetSeconds
            : undefined
        : undefined;
      if (off !== undefined) {
        const list = this.clocks.get(m) ?? [];
        list.push({ from: ob.sentAt, to: ob.receivedAt, off });
        this.peaks.set(m, Math.max(this.peaks.get(m) ?? 0, off));
        if (list.length > 8) list.splice(0, list.length - 8);
        this.clocks.set(m, list);
      }
      const deleted = isRecord(json) && isRecord(json.deleted) ? json.deleted.transactions : 0;
      if (ob.opId === 'sandboxReset' && typeof deleted === 'number' && deleted > 0) this.forgetMerchant(m);
      return true;
    }
    if ((ob.opId === 'sandboxGetWebhookEndpoint' || ob.opId === 'sandboxSetWebhookEndpoint') && isRecord(json)) {
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
      return true;
    }
    return false;
  }

  forgetMerchant(m: string): void {
    for (const [id, tx] of this.txs)
      if (tx.m === m) {
        this.txs.delete(id);
        if (tx.ref !== null) this.byRef.delete(m + '\n' + tx.ref);
      }
  }
}
