/**
 * The Real side of the model-based run: the HTTP client, the webhook receiver and the verdicts.
 * What the model knows is plain data in `state` (`model-state.ts`), kept by pure functions: time
 * as intervals (`model-time.ts`), the transitions and the events they make it expect
 * (`model-events.ts`); a rule's own expectation (the rate limit's window, the expiry) is computed in
 * the command file that checks it (`spec/RULES.md`). The World writes what it observed into the model
 * (each answer's arrival, the A1 requests sent) and judges answers against it; the commands'
 * preconditions read the model alone.
 */
import { randomUUID } from 'node:crypto';
import { variants } from '../generated/index.ts';
import { Client, type Exchange, type Transport } from './http.ts';
import { createJudge } from '../judge/index.ts';
import type { Finding as JudgeFinding } from '../judge/exchange.ts';
import * as events from './model-events.ts';
import { newModelState, type ModelState, type Tx, type Who } from './model-state.ts';
import * as time from './model-time.ts';
import { Contract } from '../judge/contract.ts';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, type WebhookReceiver } from './webhooks.ts';
import { noteWrite } from './writes.ts';

export type { ExpectedEvent, Session, Status, Tx, Who } from './model-state.ts';

export interface SuiteConfig {
  baseUrl: string;
  apiKey: string;
  otherApiKey: string;
  variant: 1 | 2;
  profile: 'core' | 'sandbox';
  /** The server's payment window when it is configured with another than the spec's default (`--payment-window`). */
  paymentWindowSeconds?: number;
  webhookSecret?: string;
  /** The suite's webhook receiver listens on 127.0.0.1 at this port (with `webhookSecret`). */
  webhookPort?: number;
  /** An expected webhook missing after this long (ms) is a finding. Default DEFAULT_WEBHOOK_TIMEOUT_MS. */
  webhookTimeoutMs?: number;
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

export class World {
  readonly client: Client;
  readonly contract: Contract;
  /** What the model knows (pure data; outlives a run). */
  readonly state: ModelState;
  #receiver: WebhookReceiver | undefined;
  /** The suite's webhook receiver, when it receives webhooks (the model then expects events). */
  get receiver(): WebhookReceiver | undefined {
    return this.#receiver;
  }
  set receiver(r: WebhookReceiver | undefined) {
    this.#receiver = r;
    this.state.receivesWebhooks = r !== undefined;
    // each delivery goes to the judge as it comes (as the proxy's do), numbered with the exchanges
    if (r)
      r.onDelivery = (body, headers, receivedAt) =>
        void this.deliveryFindings.push(...this.client.judge.delivery({ seq: this.client.nextSeq(), receivedAt, headers, body }));
  }
  /** What the judge found in webhook deliveries (they come between exchanges): thrown at the run's webhook checkpoint. */
  readonly deliveryFindings: JudgeFinding[] = [];
  /** Deliveries already judged (index into receiver.deliveries). */
  judged = 0;
  /** webhook-id → its first body, canonical (`canonicalText`): a repeat must carry the same value. */
  readonly seenWebhookIds = new Map<string, string>();
  ignoredEvents = 0;
  suiteStartIso = '';
  /** toString of the commands run in the current run. */
  executed: string[] = [];
  /** How long each of the latest matched events took to arrive after the suite saw its transition (ms), oldest first (at most `DELIVERY_SAMPLE`). */
  readonly deliveryLatencies: number[] = [];

  constructor(
    readonly cfg: SuiteConfig,
    fetchImpl?: Transport,
    onExchange?: (ex: Exchange) => void | Promise<void>,
  ) {
    this.contract = cfg.document ? new Contract(cfg.variant, cfg.document) : Contract.for(cfg.variant);
    this.state = newModelState(this.contract, cfg.profile, cfg.paymentWindowSeconds);
    // every answer tells the model the latest instant it knows the time at, and how many A1 requests
    // went; every write is noted, to be read back from the other merchant (witness.ts)
    const keys = { main: cfg.apiKey, other: cfg.otherApiKey };
    const observed = (ex: Exchange): void | Promise<void> => {
      this.state.observedAt = Math.max(this.state.observedAt, ex.receivedAt);
      this.state.roundTripMs = Math.max(ex.receivedAt - ex.sentAt, this.state.roundTripMs * 0.9);
      this.state.a1Sent = this.client.sent.get('createSession') ?? 0;
      noteWrite(this.state, this.contract, keys, ex);
      return onExchange?.(ex);
    };
    // one judge per run of the suite, of its variant, with one memory: the one `paylater proxy` and HAR judging use
    const judge = createJudge({
      variant: cfg.variant,
      contract: this.contract,
      paymentWindowSeconds: cfg.paymentWindowSeconds,
      timeOrigin: performance.timeOrigin,
      // a run is its keys' only client (its model holds them to what it did): every call that moves
      // their clocks, deliveries, endpoints or data is one of its own (ADR-087). Its exchanges carry
      // no `othersOpen`, so the judge's no-cause rules stay off: the suite's own model judges those.
      soleClient: true,
      // the receiver verifies signatures and payloads itself: it may serve the other merchant too, with another secret
      webhooks:
        cfg.webhookPort !== undefined && cfg.webhookSecret
          ? { windowMs: cfg.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS, port: cfg.webhookPort }
          : undefined,
    });
    this.client = new Client(cfg.baseUrl, this.contract, fetchImpl, observed, {
      timeoutMs: cfg.requestTimeoutMs,
      signal: cfg.signal,
      knownKeys: [cfg.apiKey, cfg.otherApiKey],
      judge,
    });
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

  get sandbox(): boolean {
    return this.state.sandbox;
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
    if (ex.status >= 400 && code) this.state.coverage.codes.add(`${ex.opId} ${ex.status} ${code}`);
  }

  // ---- time (the model's intervals, at an instant of the real clock) ------------------
  /** Bounds of the age (ms, on the merchant's sandbox clock) of something created in [sentAt, receivedAt]. */
  age(o: { sentAt: number; receivedAt: number; advAtCreation: number }, who: Who, now = performance.now()): [number, number] {
    return time.age(this.state, o, who, now);
  }

  /** Records a transition read from x-state-machine, seen now (see model-events.ts). */
  transition(tx: Tx, id: string): void {
    events.transition(this.state, tx, id, performance.now());
  }

  /** The observed status resolves an open expiry. */
  observe(tx: Tx, status: string): void {
    events.observe(this.state, tx, status, performance.now());
  }

  sandboxTimeAt(perf: number, advanced: number): number | undefined {
    return time.sandboxTimeAt(this.state, perf, advanced);
  }

  instantOf(ex: { sentAt: number; receivedAt: number }): [number, number] | undefined {
    return time.instantOf(this.state, ex);
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

  /** A merchant's names: learned from its first record, then every record and event must carry the same. */
  checkNames(who: Who, op: string, base: string, rec: Record<string, unknown>): void {
    const known = this.state.names[who];
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
