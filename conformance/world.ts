/**
 * The model of the contract, kept small and obvious: transactions by merchant with their
 * status, the vendorReferences used, the sessions and their tokens, the rate-limit count per
 * key and window, and the sandbox clock offset. Time is tracked as intervals (the suite cannot
 * know when exactly the server read its clock), so an expectation is certain or left open.
 */
import { randomUUID } from 'node:crypto';
import { stateMachine, tokenLifetimeSeconds, variants } from '../generated/index.ts';
import { bodyGen } from './gen.ts';
import { Client, type Exchange } from './http.ts';
import { Contract, transitionById, type Transition } from './spec.ts';
import type { WebhookReceiver } from './webhooks.ts';

export type Who = 'main' | 'other';
export type Status = keyof typeof stateMachine.states;
type Json = Record<string, unknown>;

export interface SuiteConfig {
  baseUrl: string;
  apiKey: string;
  otherApiKey: string;
  variant: 1 | 2;
  profile: 'core' | 'sandbox';
  paymentWindowSeconds: number;
  webhookSecret?: string;
  /**
   * The variant's bundled OpenAPI document the suite judges by (default: the one in generated/);
   * e.g. an edited copy, to see the suite follow a spec change.
   */
  document?: Record<string, unknown>;
  /** A request unanswered this long (ms) ends the run with a finding (default: the client's). */
  requestTimeoutMs?: number;
  /** Aborted (its reason the signal's name) to interrupt the run. */
  signal?: AbortSignal;
}

export interface Tx {
  id: string;
  who: Who;
  kind: 'partner' | 'checkout';
  status: Status;
  vendorReference: string | null;
  created: Json;
  sentAt: number;
  receivedAt: number;
  advAtCreation: number;
  session?: Session;
  runId: number;
  /** The instant of its last change as the API answered it (the change's own answer), once the suite made one. */
  changedAt?: string;
  /** The events its transitions in the model emitted (x-state-machine), in order. */
  emitted?: string[];
}

export interface Session {
  token: string;
  who: Who;
  total: number;
  sentAt: number;
  receivedAt: number;
  advAtCreation: number;
  tx?: Tx;
}

export interface ExpectedEvent {
  txId: string;
  event: string;
  transition: string;
  runId: number;
  /** performance.now() when the suite saw the transition (its answer read). */
  at: number;
}

const SLACK_MS = 25;

/**
 * A1 requests the core profile's coverage tour needs besides its boundary probes (its sessions and
 * probes, before its burst):
 * the random search leaves them in the rate-limit window, which only the sandbox clock can reset.
 */
const A1_TOUR_RESERVE = 15;

export class World {
  readonly client: Client;
  readonly contract: Contract;
  readonly txs = new Map<string, Tx>();
  readonly expected: ExpectedEvent[] = [];
  /** Seconds the suite advanced each merchant's sandbox clock. */
  readonly advanced: Record<Who, number> = { main: 0, other: 0 };
  readonly rate: Record<Who, { usedLo: number; usedHi: number; endLo: number; endHi: number }>;
  readonly coverage = { transitions: new Set<string>(), codes: new Set<string>() };
  readonly usedVendorRefs: Record<Who, Set<string>> = { main: new Set(), other: new Set() };
  runId = 0;
  receiver: WebhookReceiver | undefined;
  /** Deliveries already judged (index into receiver.deliveries). */
  judged = 0;
  /** webhook-id → its first body, canonical (`canonicalText`): a repeat must carry the same value. */
  readonly seenWebhookIds = new Map<string, string>();
  ignoredEvents = 0;
  suiteStartIso = '';
  /**
   * The main merchant's sandbox clock (ms since the epoch) read at `perf` (performance.now), after the
   * setup's advance, known within ± `halfWidthMs` (half the exchange that read it, and its precision).
   */
  clockAnchor: { serverMs: number; perf: number; halfWidthMs: number } | undefined;
  /** Names learned once per merchant (from its first created record) and checked everywhere they appear. */
  readonly names: Record<Who, { merchantName?: unknown; storeName?: unknown }> = { main: {}, other: {} };
  /** offsetSeconds of the main merchant's sandbox clock when the suite started. */
  clockBase: number | undefined;
  /** toString of the commands run in the current run. */
  executed: string[] = [];
  bursts = 0;
  /** A1 answers that were 429. */
  rate429 = 0;
  /** Whether the coverage tour (not the random search) is running. */
  inTour = false;
  /** The longest a matched event took to arrive after the suite saw its transition (ms); null before the first. */
  slowestDelivery: number | null = null;
  /** Runs that failed: their late webhook deliveries are ignored. */
  readonly abandonedRuns = new Set<number>();

  constructor(
    readonly cfg: SuiteConfig,
    fetchImpl?: typeof fetch,
    onExchange?: (ex: Exchange) => void | Promise<void>,
  ) {
    this.contract = cfg.document ? new Contract(cfg.variant, cfg.document) : Contract.for(cfg.variant);
    this.client = new Client(cfg.baseUrl, this.contract, fetchImpl, onExchange, {
      timeoutMs: cfg.requestTimeoutMs,
      signal: cfg.signal,
      knownKeys: [cfg.apiKey, cfg.otherApiKey],
    });
    const limit = this.rateLimit().limit;
    this.rate = {
      main: { usedLo: 0, usedHi: limit, endLo: -Infinity, endHi: Infinity },
      other: { usedLo: 0, usedHi: limit, endLo: -Infinity, endHi: Infinity },
    };
  }

  key(who: Who): string {
    return who === 'main' ? this.cfg.apiKey : this.cfg.otherApiKey;
  }

  /** The header an operation takes its credential in (`authHeader`, from its security scheme). */
  authHeader(opId: string): string {
    const ops: Record<string, { authHeader: string | null }> = (this.cfg.variant === 1 ? variants.v1 : variants.v2).operations;
    const o = ops[opId];
    if (!o) throw new Error(`operation ${opId} is not in variant ${this.cfg.variant}`);
    if (o.authHeader === null) throw new Error(`operation ${opId} takes no credential`);
    return o.authHeader;
  }

  /** The credential (a merchant's key or a session token) in the operation's auth header. */
  auth(opId: string, credential: string): Record<string, string> {
    return { [this.authHeader(opId)]: credential };
  }

  rateLimit(): { limit: number; windowSeconds: number } {
    return this.contract.rateLimits.createSession!;
  }

  /**
   * Core profile: the random search stops sending A1 requests once the window's budget is down to
   * what the coverage tour needs.
   */
  a1Reserved(): boolean {
    const reserve = A1_TOUR_RESERVE + bodyGen(this.contract, 'createSession').probes.length;
    return !this.sandbox && !this.inTour && (this.client.sent.get('createSession') ?? 0) >= this.rateLimit().limit - reserve;
  }

  get sandbox(): boolean {
    return this.cfg.profile === 'sandbox';
  }

  check(ok: boolean, op: string, path: string, msg: string, expected?: unknown, actual?: unknown): void {
    this.client.check(ok, op, path, msg, expected, actual);
  }

  /** The answer an operation gives on success: its declared success status. */
  success(opId: string): { status: number } {
    return { status: this.contract.op(opId).successStatus };
  }

  /** Whether an exchange got its operation's success status. */
  succeeded(ex: Exchange): boolean {
    return ex.status === this.contract.op(ex.opId).successStatus;
  }

  /** Asserts the (status, code) of an answer is one of the allowed outcomes; records coverage. */
  expectOutcome(ex: Exchange, allowed: { status: number; code?: string }[]): void {
    const code = (ex.json as { error?: { code?: string } } | undefined)?.error?.code;
    const ok = allowed.some((a) => a.status === ex.status && (a.code === undefined || a.code === code));
    // the message is built only for a finding (new URL and the join cost more than the check)
    if (ok) this.client.checks++;
    else {
      this.check(
        false,
        ex.opId,
        ex.status >= 400 ? '$.error.code' : '$',
        `${ex.method} ${new URL(ex.url).pathname} answered ${ex.status}${code ? ' ' + code : ''}; the model expects ${allowed
          .map((a) => `${a.status}${a.code ? ' ' + a.code : ''}`)
          .join(' or ')}`,
        allowed,
        { status: ex.status, code },
      );
    }
    if (ex.status >= 400 && code) this.coverage.codes.add(`${ex.opId} ${ex.status} ${code}`);
  }

  // ---- time -------------------------------------------------------------------------
  /** Bounds of the age (ms, on the merchant's sandbox clock) of something created in [sentAt, receivedAt]. */
  age(o: { sentAt: number; receivedAt: number; advAtCreation: number }, who: Who, now = performance.now()): [number, number] {
    const adv = (this.advanced[who] - o.advAtCreation) * 1000;
    return [now - o.receivedAt + adv - SLACK_MS, now - o.sentAt + adv + SLACK_MS];
  }

  /** 'yes' | 'no' | 'maybe': has the payment window of a tx passed? */
  windowPassed(tx: Tx, now: number = performance.now()): 'yes' | 'no' | 'maybe' {
    const [lo, hi] = this.age(tx, tx.who, now);
    const w = this.cfg.paymentWindowSeconds * 1000;
    return lo >= w ? 'yes' : hi < w ? 'no' : 'maybe';
  }

  tokenExpired(s: Session, now: number = performance.now()): 'yes' | 'no' | 'maybe' {
    const [lo, hi] = this.age(s, s.who, now);
    const w = tokenLifetimeSeconds * 1000;
    return lo >= w ? 'yes' : hi < w ? 'no' : 'maybe';
  }

  /** Applies the expiry that certainly happened (now >= createdAt + window). */
  settle(tx: Tx): void {
    if (tx.status === 'PENDING' && this.windowPassed(tx) === 'yes') this.transition(tx, 'expire');
  }

  /**
   * Statuses an answer may show: PENDING may already be EXPIRED near the window's end. With the
   * exchange that asked, the server may have read its clock at any time while the request was in
   * flight: the expiry is certain only if it passed before the request was sent, and excluded only
   * if it had not passed when the answer came (a slow answer near the window's end may show either).
   */
  possibleStatuses(tx: Tx, during?: { sentAt: number; receivedAt: number }): string[] {
    if (tx.status === 'PENDING' && this.windowPassed(tx, during?.sentAt) === 'yes') this.transition(tx, 'expire');
    if (tx.status === 'PENDING' && this.windowPassed(tx, during?.receivedAt) !== 'no') return ['PENDING', 'EXPIRED'];
    return [tx.status];
  }

  /** Whether a session's token had expired when the server read its clock, during an exchange (see possibleStatuses). */
  tokenExpiredDuring(s: Session, during: { sentAt: number; receivedAt: number }): 'yes' | 'no' | 'maybe' {
    if (this.tokenExpired(s, during.sentAt) === 'yes') return 'yes';
    return this.tokenExpired(s, during.receivedAt) === 'no' ? 'no' : 'maybe';
  }

  /**
   * Records a transition read from x-state-machine; expects its event, unless the transaction's run
   * was abandoned (its deliveries are not judged, so its later events are never expected either:
   * left out of every later verdict, never judged half-way).
   */
  transition(tx: Tx, id: string): void {
    const t: Transition = transitionById(id);
    if (t.from !== null && !(t.from as readonly string[]).includes(tx.status)) {
      throw new Error(`model bug: transition ${id} from ${tx.status}`);
    }
    tx.status = t.to;
    this.coverage.transitions.add(id);
    if (t.emits) (tx.emitted ??= []).push(t.emits);
    if (t.emits && tx.who === 'main' && this.receiver && !this.abandonedRuns.has(tx.runId)) {
      this.expected.push({ txId: tx.id, event: t.emits, transition: id, runId: tx.runId, at: performance.now() });
    }
  }

  /** The observed status resolves an open expiry. */
  observe(tx: Tx, status: string): void {
    if (tx.status === 'PENDING' && status === 'EXPIRED') this.transition(tx, 'expire');
  }

  /**
   * The main merchant's sandbox time (ms since the epoch) at `perf`, with `advanced` seconds advanced
   * since the setup; undefined outside the sandbox profile.
   */
  sandboxTimeAt(perf: number, advanced: number): number | undefined {
    return this.clockAnchor ? this.clockAnchor.serverMs + (perf - this.clockAnchor.perf) + advanced * 1000 : undefined;
  }

  /**
   * The interval (ms since the epoch, on the main merchant's sandbox clock) within which the server
   * read its clock while it handled `ex`: between the request's sending and the answer's arrival,
   * widened by the anchor's uncertainty; a timestamp may be truncated to the second, never rounded
   * up. Undefined outside the sandbox profile (the suite does not know the server's clock).
   */
  instantOf(ex: { sentAt: number; receivedAt: number }): [number, number] | undefined {
    const a = this.clockAnchor;
    if (!a) return undefined;
    const lo = this.sandboxTimeAt(ex.sentAt, this.advanced.main)! - a.halfWidthMs - SLACK_MS;
    const hi = this.sandboxTimeAt(ex.receivedAt, this.advanced.main)! + a.halfWidthMs + SLACK_MS;
    return [Math.floor(lo / 1000) * 1000, hi];
  }

  /**
   * A timestamp of an answer is the instant of its event: `offsetMs` after the instant the server
   * handled `ex` (0 for the creation or change itself; a lifetime for an expiry). Main merchant, sandbox only.
   */
  checkInstant(ex: { sentAt: number; receivedAt: number; opId: string }, path: string, value: unknown, what: string, offsetMs = 0): void {
    const iv = this.instantOf(ex);
    if (!iv || typeof value !== 'string') return;
    const t = Date.parse(value);
    const [lo, hi] = [iv[0] + offsetMs, iv[1] + offsetMs];
    this.check(
      t >= lo && t <= hi,
      ex.opId,
      path,
      `${path.slice(2)} ${value} is not ${what}: the server handled the request between ${new Date(lo).toISOString()} and ${new Date(hi).toISOString()} on the merchant's sandbox clock${offsetMs ? ` (+ ${offsetMs / 1000} s)` : ''}`,
      [new Date(lo).toISOString(), new Date(hi).toISOString()],
      value,
    );
  }

  /**
   * The interval (ms since the epoch, main merchant's sandbox clock) within which its payment window
   * ended: the creation instant's interval (the B1 exchange, widened like `instantOf`) plus the
   * window (ADR-010: it expires exactly at createdAt + window). Undefined outside the sandbox profile
   * or for the other merchant (its clock is not anchored).
   */
  expiryInstant(tx: Tx): [number, number] | undefined {
    const a = this.clockAnchor;
    if (!a || tx.who !== 'main') return undefined;
    const w = this.cfg.paymentWindowSeconds * 1000;
    const lo = this.sandboxTimeAt(tx.sentAt, tx.advAtCreation)! - a.halfWidthMs - SLACK_MS;
    const hi = this.sandboxTimeAt(tx.receivedAt, tx.advAtCreation)! + a.halfWidthMs + SLACK_MS;
    return [Math.floor(lo / 1000) * 1000 + w, hi + w];
  }

  /**
   * A timestamp that must carry the instant a transaction expired (a record's `updatedAt`, an event's
   * `expiredAt`): the end of its payment window on the sandbox clock, never the time a read noticed it.
   * @checks expiry
   */
  checkExpiryInstant(tx: Tx, op: string, path: string, value: unknown): void {
    const iv = this.expiryInstant(tx);
    if (!iv) return;
    const t = typeof value === 'string' ? Date.parse(value) : NaN;
    this.check(
      t >= iv[0] && t <= iv[1],
      op,
      path,
      `${path.slice(2)} ${String(value)} of expired transaction ${tx.id} is not the instant its payment window ended: between ${new Date(iv[0]).toISOString()} and ${new Date(iv[1]).toISOString()} on the merchant's sandbox clock (created then + ${this.cfg.paymentWindowSeconds} s, ADR-010)`,
      [new Date(iv[0]).toISOString(), new Date(iv[1]).toISOString()],
      value,
    );
  }

  /** A merchant's names: learned from its first record, then every record and event must carry the same. */
  checkNames(who: Who, op: string, base: string, rec: Record<string, unknown>): void {
    const known = this.names[who];
    for (const f of ['merchantName', 'storeName'] as const) {
      if (!(f in rec)) continue;
      if (known[f] === undefined) known[f] = rec[f];
      else
        this.check(
          rec[f] === known[f],
          op,
          `${base}.${f}`,
          `${f} ${JSON.stringify(rec[f])}, the merchant's ${f} is ${JSON.stringify(known[f])} everywhere else`,
          known[f],
          rec[f],
        );
    }
  }

  // ---- rate limit -------------------------------------------------------------------
  /** 'yes' | 'no' | 'maybe': will the next counted A1 request of `who` be refused with 429? */
  rateLimited(who: Who): 'yes' | 'no' | 'maybe' {
    const r = this.rate[who];
    const now = performance.now();
    const adv = this.advanced[who] * 1000;
    if (r.endHi - adv <= now) {
      r.usedLo = 0;
      r.usedHi = 0;
      r.endLo = -Infinity;
      r.endHi = Infinity;
    } else if (r.endLo - adv <= now) r.usedLo = 0;
    const limit = this.rateLimit().limit;
    return r.usedLo >= limit ? 'yes' : r.usedHi < limit ? 'no' : 'maybe';
  }

  /** After an A1 answer counted against the key: sync from RateLimit-* headers when present. */
  countRate(who: Who, ex: Exchange): void {
    const r = this.rate[who];
    const limit = this.rateLimit().limit;
    if (ex.status === 429) this.rate429++;
    const rem = ex.responseHeaders['ratelimit-remaining'];
    const reset = ex.responseHeaders['ratelimit-reset'];
    const lim = ex.responseHeaders['ratelimit-limit'];
    if (lim !== undefined)
      this.check(
        Number(lim) === limit,
        ex.opId,
        'header RateLimit-Limit',
        `RateLimit-Limit ${lim}, x-rate-limit says ${limit}`,
        limit,
        lim,
      );
    if (rem !== undefined && reset !== undefined) {
      const used = limit - Number(rem);
      if (ex.status !== 429) {
        this.check(
          used >= r.usedLo + 1,
          ex.opId,
          'header RateLimit-Remaining',
          `RateLimit-Remaining ${rem}, the model counted at least ${r.usedLo + 1} requests in this window`,
          limit - r.usedLo - 1,
          Number(rem),
        );
        this.check(
          used <= r.usedHi + 1,
          ex.opId,
          'header RateLimit-Remaining',
          `RateLimit-Remaining ${rem}, the model counted at most ${r.usedHi + 1} requests in this window`,
          limit - r.usedHi - 1,
          Number(rem),
        );
      } else {
        this.check(Number(rem) === 0, ex.opId, 'header RateLimit-Remaining', `429 with RateLimit-Remaining ${rem}`, 0, Number(rem));
      }
      this.check(
        Number(reset) <= this.rateLimit().windowSeconds,
        ex.opId,
        'header RateLimit-Reset',
        `RateLimit-Reset ${reset} exceeds the ${this.rateLimit().windowSeconds} s window`,
      );
      r.usedLo = r.usedHi = Math.min(used, limit);
      const adv = this.advanced[who] * 1000;
      r.endLo = ex.sentAt + (Number(reset) - 1) * 1000 + adv - SLACK_MS;
      r.endHi = ex.receivedAt + (Number(reset) + 1) * 1000 + adv + SLACK_MS;
    } else {
      r.usedLo = Math.min(r.usedLo + 1, limit);
      r.usedHi = Math.min(r.usedHi + 1, limit);
    }
  }

  /** A request that the server may or may not have counted (refused before routing). */
  countRateMaybe(who: Who, ex: Exchange): void {
    if (ex.status === 429 || ex.responseHeaders['ratelimit-remaining'] !== undefined) return this.countRate(who, ex);
    const r = this.rate[who];
    r.usedHi = Math.min(r.usedHi + 1, this.rateLimit().limit);
  }

  // ---- helpers ----------------------------------------------------------------------
  freshVendorRef(): string {
    return `cf-${randomUUID().slice(0, 18)}`;
  }

  /**
   * A valid generated vendorReference made unique: its last 12 characters replaced; undefined when
   * it is shorter than 16 (too short to hold a unique part: it is sent as generated).
   */
  uniqueVendorRef(v: string): string | undefined {
    return v.length >= 16 ? v.slice(0, -12) + randomUUID().replace(/-/g, '').slice(0, 12) : undefined;
  }
}
