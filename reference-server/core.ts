/**
 * The server core: merchants, per-merchant time, the store, state changes with their
 * outbox events written in the same store write, expiry (lazy on read and swept), and
 * the webhook seam implementations (`WebhookRepository`, `MerchantDirectory`, `MerchantClock`).
 */
import { webhookDelivery } from '../generated/contract.ts';
import { MerchantTime, iso, type Clock } from './domain/clock.ts';
import { isDueToExpire } from './domain/stateMachine.ts';
import { buildOutboxEvent, dueScenarioAction, expireIfDue, expiryEvent, type MerchantView } from './domain/transactions.ts';
import type { Change, MerchantStateRecord, TransactionRecord } from './domain/types.ts';
import type { MerchantConfig, ServerConfig } from './config.ts';
import type { Store } from './store/store.ts';
import { generateMessageId } from './webhooks/signing.ts';
import type {
  MerchantClock,
  MerchantDirectory,
  OutboxEvent,
  WebhookDispatcher,
  WebhookDispatcherDeps,
  WebhookEventName,
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

export class Core {
  readonly merchantsById = new Map<string, MerchantConfig>();
  readonly time: MerchantTime;
  readonly log: (line: string) => void;
  dispatcher: WebhookDispatcher | null = null;
  /** What else forgets a merchant's state on a sandbox reset (the rate limiter's windows). */
  readonly onSandboxReset: Array<(merchantId: string) => void> = [];

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    readonly config: ServerConfig,
    readonly smsSender: SmsSender,
  ) {
    for (const m of config.merchants) this.merchantsById.set(m.id, m);
    this.log = config.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.time = new MerchantTime(clock, (id) =>
      config.mode === 'sandbox' ? (store.get('merchantState', id)?.clockOffsetSeconds ?? 0) : 0,
    );
  }

  get sandbox(): boolean {
    return this.config.mode === 'sandbox';
  }
  now(merchantId: string): number {
    return this.time.now(merchantId);
  }
  merchantState(id: string): MerchantStateRecord {
    return this.store.get('merchantState', id) ?? { id, clockOffsetSeconds: 0, endpointEnabled: true };
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

  /** Writes a batch (on disk before it resolves) and wakes the dispatcher when it carries events. */
  async commit(changes: Change[]): Promise<void> {
    await this.store.commit(changes);
    if (changes.some((c) => c.c === 'outbox' || c.c === 'merchantState')) this.dispatcher?.kick();
  }

  /** Ids of transactions with a scheduled sandbox scenario action (built from the store on first use). */
  private scenarioIds: Set<string> | null = null;
  /** Notes a transaction created with a scenario action, for the sweep. */
  scheduleScenario(id: string): void {
    this.scenarioIndex().add(id);
  }
  private scenarioIndex(): Set<string> {
    if (!this.scenarioIds) {
      this.scenarioIds = new Set();
      for (const t of this.store.values('transactions')) if (t.scenario && t.status === 'PENDING') this.scenarioIds.add(t.id);
    }
    return this.scenarioIds;
  }

  /** Expires every PENDING transaction whose window has passed and applies the due scenario actions (one merchant, or all). */
  sweepChanges(merchantId?: string): Change[] {
    const changes: Change[] = [];
    const acted = new Set<string>();
    if (this.sandbox) {
      const index = this.scenarioIndex();
      for (const id of index) {
        const t = this.store.get('transactions', id);
        if (!t || t.status !== 'PENDING' || !this.merchantsById.has(t.merchantId)) {
          index.delete(id);
          continue;
        }
        if (merchantId !== undefined && t.merchantId !== merchantId) continue;
        const after = this.fresh(t, this.now(t.merchantId), changes);
        if (after.status !== 'PENDING') {
          index.delete(id);
          acted.add(id);
        }
      }
    }
    for (const mid of merchantId ? [merchantId] : this.store.pendingMerchants()) {
      if (!this.merchantsById.has(mid)) continue;
      const now = this.now(mid);
      for (const tx of this.store.pendingTransactions(mid)) {
        if (!isDueToExpire(tx.status, now, Date.parse(tx.expiresAt))) break; // oldest window first
        if (acted.has(tx.id)) continue; // moved by its scenario action above
        this.fresh(tx, now, changes);
      }
    }
    return changes;
  }

  async sweep(merchantId?: string): Promise<void> {
    const changes = this.sweepChanges(merchantId);
    if (changes.length > 0) await this.commit(changes);
  }

  // ---- the webhook seam ----

  readonly repository: WebhookRepository = {
    listDue: async (limit) => {
      const due = this.store
        .pendingOutbox()
        .filter(
          (e) => e.nextAttemptAt !== null && this.merchantsById.has(e.merchantId) && Date.parse(e.nextAttemptAt) <= this.now(e.merchantId),
        );
      due.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
      return due.slice(0, limit);
    },
    get: async (merchantId, id) => {
      const e = this.store.get('outbox', id);
      return e && e.merchantId === merchantId ? e : undefined;
    },
    list: async (merchantId) => this.store.outboxOf(merchantId).slice().reverse(),
    recordAttempt: async (merchantId, id, attempt, next) => {
      const e = this.mustEvent(merchantId, id);
      const v: OutboxEvent = { ...e, attempts: [...e.attempts, attempt], state: next.state, nextAttemptAt: next.nextAttemptAt };
      await this.store.commit([{ c: 'outbox', k: id, v }]);
      return v;
    },
    setState: async (merchantId, id, next) => {
      const e = this.mustEvent(merchantId, id);
      const v: OutboxEvent = { ...e, state: next.state, nextAttemptAt: next.nextAttemptAt };
      await this.store.commit([{ c: 'outbox', k: id, v }]);
      return v;
    },
    requeue: async (merchantId, id, nextAttemptAt) => {
      const e = this.mustEvent(merchantId, id);
      const v: OutboxEvent = { ...e, state: 'pending', nextAttemptAt };
      await this.store.commit([{ c: 'outbox', k: id, v }]);
      return v;
    },
  };

  private mustEvent(merchantId: string, id: string): OutboxEvent {
    const e = this.store.get('outbox', id);
    if (!e || e.merchantId !== merchantId) throw new Error(`webhook event ${id} not found for merchant ${merchantId}`);
    return e;
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
      const s = this.merchantState(merchantId);
      await this.store.commit([{ c: 'merchantState', k: merchantId, v: { ...s, endpointEnabled: enabled } }]);
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
