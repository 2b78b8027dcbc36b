/**
 * The server core: merchants, per-merchant time, the repository, state changes with their
 * outbox events written in the same transaction, expiry (lazy on read and swept), and
 * the webhook seam implementations (`WebhookRepository`, `MerchantDirectory`, `MerchantClock`).
 *
 * The merchants' sandbox state (clock offset, run-time webhook endpoint) is cached here for
 * the synchronous merchant clock: loaded at start, replaced after each write of it and on
 * change notices, and read again at the start of every authenticated request and every
 * sweep and dispatcher tick, so a change made by another instance is seen by the next one.
 */
import { webhookDelivery } from '../generated/contract.ts';
import { MerchantTime, iso, type Clock } from './domain/clock.ts';
import { buildOutboxEvent, dueScenarioAction, expireIfDue, expiryEvent, type MerchantView } from './domain/transactions.ts';
import type { Change, MerchantStateRecord, TransactionRecord } from './domain/types.ts';
import type { MerchantConfig, ServerConfig } from './config.ts';
import type { Repository } from './store/repository.ts';
import { generateMessageId } from './webhooks/signing.ts';
import type { OutboxEvent, WebhookEventName } from './domain/outbox-event.ts';
import type {
  MerchantClock,
  MerchantDirectory,
  WebhookDispatcher,
  WebhookDispatcherDeps,
  WebhookRepository,
} from './webhooks/contracts.ts';

/** Sends the confirmation SMS in production mode. */
export interface SmsSender {
  send(message: { merchantId: string; to: string; body: string; transactionId: string }): Promise<void>;
}

export function loggingSmsSender(log: (line: string) => void): SmsSender {
  return {
    async send(m) {
      log(`sms → ${m.to} (transaction ${m.transactionId}): ${m.body}`);
    },
  };
}

/** Records moved per sweep transaction (a sweep repeats until nothing more is due). */
const SWEEP_BATCH = 500;

/** A merchant's state before anything was written for it. */
export const defaultMerchantState = (id: string): MerchantStateRecord => ({ id, clockOffsetMs: 0, endpointEnabled: true });
/**
 * How long a claimed delivery stays with this instance: an attempt's timeout and a margin for
 * recording it. Also how long the deliveries an instance had claimed wait when it dies.
 */
export const DELIVERY_LEASE_MS = (webhookDelivery.retry.timeoutSeconds + 5) * 1000;

export class Core {
  readonly merchantsById = new Map<string, MerchantConfig>();
  readonly time: MerchantTime;
  readonly log: (line: string) => void;
  dispatcher: WebhookDispatcher | null = null;
  /** The merchants' sandbox state as last read or written (see the top of this file). */
  private readonly states = new Map<string, MerchantStateRecord>();
  /** Per merchant, bumped by each write of its state: a read started before a write does not replace it. */
  private readonly stateWrites = new Map<string, number>();
  /** Per merchant, the change notices of its state received from the repository. */
  private readonly stateNotices = new Map<string, number>();
  /** Per merchant, the notices received when its last completed read began: no change since, when equal (`refreshMerchant`). */
  private readonly stateReadAt = new Map<string, number>();
  private readonly unsubscribe: () => void;
  /** Told of the repository's changes (until `stop`). */
  private listening = true;

  constructor(
    readonly repo: Repository,
    readonly clock: Clock,
    readonly config: ServerConfig,
    readonly smsSender: SmsSender,
  ) {
    for (const m of config.merchants) this.merchantsById.set(m.id, m);
    this.log = config.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.time = new MerchantTime(clock, (id) => (config.mode === 'sandbox' ? (this.states.get(id)?.clockOffsetMs ?? 0) : 0));
    this.unsubscribe = repo.subscribe((n) => {
      if (n.collection === 'merchantState' && this.merchantsById.has(n.merchantId)) {
        this.stateNotices.set(n.merchantId, (this.stateNotices.get(n.merchantId) ?? 0) + 1);
        this.refreshMerchant(n.merchantId).catch((e: Error) => this.log(`merchant state read failed: ${e.message}`));
      }
      if (n.collection === 'outbox' || n.collection === 'merchantState') this.dispatcher?.kick();
    });
  }

  /** Stops listening to change notices (the repository is closed by its owner). */
  stop(): void {
    this.unsubscribe();
    this.listening = false;
  }

  get sandbox(): boolean {
    return this.config.mode === 'sandbox';
  }
  now(merchantId: string): number {
    return this.time.now(merchantId);
  }
  /** The merchant's state as cached (defaults when none was ever written). */
  merchantState(id: string): MerchantStateRecord {
    return this.states.get(id) ?? defaultMerchantState(id);
  }

  /** Caches a merchant state just written (or read); a clock moved back forgets its monotonic floor. */
  private cacheState(id: string, next: MerchantStateRecord | undefined): void {
    const before = this.merchantState(id).clockOffsetMs;
    if (next) this.states.set(id, next);
    else this.states.delete(id);
    if ((next?.clockOffsetMs ?? 0) < before) this.time.forget(id);
  }

  /** Call after a transaction that wrote `next` committed. */
  stateWritten(next: MerchantStateRecord): void {
    this.stateWrites.set(next.id, (this.stateWrites.get(next.id) ?? 0) + 1);
    this.cacheState(next.id, next);
  }

  /** True when `refreshMerchant(id)` would read nothing: the cache holds what the store holds (see below). */
  merchantStateCurrent(id: string): boolean {
    return this.listening && this.repo.soleWriter === true && this.stateReadAt.get(id) === (this.stateNotices.get(id) ?? 0);
  }

  /**
   * Reads merchant `id`'s state from the repository (one primary-key read) into the cache. On a
   * store that is its database's only writer (`repo.soleWriter`: SQLite) and tells each change
   * before the transaction that made it resolves, the read is skipped while this core listens
   * and no change of that state was told since the last read began: the cache then holds what
   * the store holds. A store other instances write (PostgreSQL) is read every time: their
   * notices come late.
   */
  async refreshMerchant(id: string): Promise<void> {
    if (this.merchantStateCurrent(id)) return;
    const notices = this.stateNotices.get(id) ?? 0;
    const writes = this.stateWrites.get(id) ?? 0;
    const st = await this.repo.get('merchantState', id);
    if ((this.stateWrites.get(id) ?? 0) === writes) this.cacheState(id, st);
    // A write of ours meanwhile is cached by stateWritten, and its notice comes after it commits.
    this.stateReadAt.set(id, notices);
  }

  /** Reads every configured merchant's state (at start and at each sweep and dispatcher tick). */
  async refreshMerchants(): Promise<void> {
    await Promise.all([...this.merchantsById.keys()].map((id) => this.refreshMerchant(id)));
  }

  view(m: MerchantConfig): MerchantView {
    const w = this.merchantState(m.id).webhook;
    return {
      id: m.id,
      name: m.name,
      storeName: m.storeName,
      webhookUrl: w ? w.url : m.webhookUrl,
      webhookSecret: w ? w.secret : m.webhookSecret,
    };
  }
  /** The previous webhook secret of `merchantId` while its rotation window is open (ADR-042), else null. */
  previousWebhookSecret(merchantId: string): string | null {
    const w = this.merchantState(merchantId).webhook;
    if (!w?.previousSecret || !w.previousSecretExpiresAt) return null;
    return this.now(merchantId) < Date.parse(w.previousSecretExpiresAt) ? w.previousSecret : null;
  }
  merchantOf(tx: { merchantId: string }): MerchantConfig {
    const m = this.merchantsById.get(tx.merchantId);
    if (!m) throw new Error(`record of unknown merchant ${tx.merchantId}`);
    return m;
  }

  /**
   * The outbox record of `event` for `tx`, to be written with the state change.
   * @rule webhook-events
   */
  eventChange(event: WebhookEventName, tx: TransactionRecord, nowMs: number): Change {
    const m = this.merchantOf(tx);
    const ev = buildOutboxEvent(
      event,
      tx,
      this.view(m),
      nowMs,
      this.merchantState(m.id).endpointEnabled,
      generateMessageId(new Date(nowMs)),
    );
    return { c: 'outbox', k: ev.id, v: ev };
  }

  /** `tx` as it must read now: its due sandbox scenario action applied, or expired (with its event added to `changes`) once its window passed. */
  fresh(tx: TransactionRecord, nowMs: number, changes: Change[]): TransactionRecord {
    const acted = dueScenarioAction(tx, nowMs);
    if (acted) {
      changes.push({ c: 'transactions', k: acted.tx.id, v: acted.tx });
      if (acted.emits) changes.push(this.eventChange(acted.emits, acted.tx, acted.at));
      return acted.tx;
    }
    const expired = expireIfDue(tx, nowMs);
    if (!expired) return tx;
    changes.push({ c: 'transactions', k: expired.id, v: expired });
    if (expiryEvent) changes.push(this.eventChange(expiryEvent, expired, nowMs));
    return expired;
  }

  /** Writes `changes` in a transaction of their own (records nobody else changes: new sessions, intents, test events). */
  async commit(changes: Change[]): Promise<void> {
    await this.repo.transaction(async (tx) => tx.write(changes));
  }

  /**
   * Expires every PENDING transaction whose window has passed and applies the due sandbox
   * scenario actions (one merchant, or all), each row locked and checked again before it moves,
   * so it moves and emits once even when several instances sweep.
   */
  async sweep(merchantId?: string): Promise<void> {
    for (const mid of merchantId !== undefined ? [merchantId] : await this.repo.pendingMerchants()) {
      if (!this.merchantsById.has(mid)) continue;
      for (;;) {
        const now = this.now(mid);
        const scenarios = this.sandbox ? await this.repo.dueScenarios(mid, now, SWEEP_BATCH) : [];
        const expiring = await this.repo.dueTransactions(mid, now, SWEEP_BATCH);
        const ids = [...new Set([...scenarios, ...expiring].map((t) => t.id))];
        if (ids.length === 0) break;
        const moved = await this.repo.transaction(async (tx) => {
          const changes: Change[] = [];
          for (const id of ids) {
            const t = await tx.lock('transactions', id);
            if (t?.status === 'PENDING') this.fresh(t, now, changes);
          }
          tx.write(changes);
          return changes.length;
        });
        if (moved === 0 || (scenarios.length < SWEEP_BATCH && expiring.length < SWEEP_BATCH)) break;
      }
    }
  }

  // ---- the webhook seam ----

  /** Applies `update` to the merchant's outbox event `id`, locked, in one transaction. */
  /** Changes webhook event `id` with `update` and, when given, the merchant's state with `state`, in one transaction. */
  private async updateEvent(
    merchantId: string,
    id: string,
    update: (e: OutboxEvent) => OutboxEvent,
    state?: (s: MerchantStateRecord) => MerchantStateRecord,
  ): Promise<OutboxEvent> {
    const { event, merchant } = await this.repo.transaction(async (tx) => {
      const e = await tx.lock('outbox', id);
      if (!e || e.merchantId !== merchantId) throw new Error(`webhook event ${id} not found for merchant ${merchantId}`);
      const v = update(e);
      const changes: Change[] = [{ c: 'outbox', k: id, v }];
      const m = state ? state((await tx.lock('merchantState', merchantId)) ?? defaultMerchantState(merchantId)) : null;
      if (m) changes.push({ c: 'merchantState', k: merchantId, v: m });
      tx.write(changes);
      return { event: v, merchant: m };
    });
    if (merchant) this.stateWritten(merchant);
    return event;
  }

  readonly repository: WebhookRepository = {
    claimDue: async (limit) => {
      await this.refreshMerchants();
      // An unknown merchant's events are never due (epoch 0 is before any of them).
      const nowOf = (merchantId: string) => (this.merchantsById.has(merchantId) ? this.now(merchantId) : 0);
      return this.repo.claimDue(nowOf, limit, DELIVERY_LEASE_MS);
    },
    get: async (merchantId, id) => {
      const e = await this.repo.get('outbox', id);
      return e && e.merchantId === merchantId ? e : undefined;
    },
    list: async (merchantId) => {
      const out: OutboxEvent[] = [];
      let cursor: string | null = null;
      do {
        const page = await this.repo.outboxPage(merchantId, 1000, cursor);
        out.push(...page.items);
        cursor = page.next;
      } while (cursor !== null);
      return out;
    },
    recordAttempt: (merchantId, id, attempt, next) =>
      this.updateEvent(
        merchantId,
        id,
        (e) => ({ ...e, attempts: [...e.attempts, attempt], state: next.state, nextAttemptAt: next.nextAttemptAt }),
        // A 410 disables the endpoint in the same transaction (see WebhookRepository.recordAttempt).
        next.state === 'disabled' ? (s) => ({ ...s, endpointEnabled: false }) : undefined,
      ),
    setState: (merchantId, id, next) =>
      this.updateEvent(merchantId, id, (e) => ({ ...e, state: next.state, nextAttemptAt: next.nextAttemptAt })),
    requeue: (merchantId, id, nextAttemptAt) => this.updateEvent(merchantId, id, (e) => ({ ...e, state: 'pending', nextAttemptAt })),
  };

  /**
   * Changes the merchant's state with `update`, locked, in one transaction; the cache follows. Its
   * sandbox (clock, fault rule, webhook endpoint, API log) changes only here, keyed by the caller's
   * merchant: no call changes another merchant's.
   * @rule ADR-087
   */
  async updateMerchantState(merchantId: string, update: (s: MerchantStateRecord) => MerchantStateRecord): Promise<MerchantStateRecord> {
    const next = await this.repo.transaction(async (tx) => {
      const s = (await tx.lock('merchantState', merchantId)) ?? defaultMerchantState(merchantId);
      const v = update(s);
      tx.write([{ c: 'merchantState', k: merchantId, v }]);
      return v;
    });
    this.stateWritten(next);
    return next;
  }

  readonly directory: MerchantDirectory = {
    endpoint: (merchantId) => {
      const m = this.merchantsById.get(merchantId);
      if (!m) return undefined;
      const v = this.view(m);
      const previous = this.previousWebhookSecret(merchantId);
      return {
        merchantId,
        url: v.webhookUrl,
        secret: v.webhookSecret,
        ...(previous ? { previousSecrets: [previous] } : {}),
        enabled: this.merchantState(merchantId).endpointEnabled,
      };
    },
    setEndpointEnabled: async (merchantId, enabled) => {
      await this.updateMerchantState(merchantId, (s) => ({ ...s, endpointEnabled: enabled }));
    },
  };

  readonly merchantClock: MerchantClock = { now: (merchantId) => new Date(this.now(merchantId)) };

  dispatcherDeps(): WebhookDispatcherDeps {
    return {
      repository: this.repository,
      merchants: this.directory,
      clock: this.merchantClock,
      mode: this.config.mode,
      compression: this.sandbox ? webhookDelivery.retry.sandboxCompression : 1,
      log: this.log,
    };
  }

  /** Redelivery without an engine: queue the event again now and re-enable the endpoint. */
  async requeueWithoutEngine(merchantId: string, id: string): Promise<OutboxEvent> {
    await this.directory.setEndpointEnabled(merchantId, true);
    return this.repository.requeue(merchantId, id, iso(this.now(merchantId)));
  }
}
