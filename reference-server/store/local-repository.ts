/**
 * The repository over the single-process `Store` (memory or the lowdb file store).
 *
 * Transactions run one at a time in this process (an async mutex chained on a promise): that
 * is the whole isolation of these stores, so two instances must never share one data file
 * (the data lock sees to it). A transaction reads the Store's memory, buffers its writes and
 * applies them with one `store.commit`; the mutex is released as soon as the changes are in
 * memory, so concurrent transactions keep joining one group commit, and `transaction`
 * resolves once its batch (and everything before it) is durable.
 *
 * Reads outside a transaction resolve once what they read is durable (a write still in
 * flight may be rolled back, ADR-026). Rate-limit windows and delivery leases live in this
 * process's memory: exact for its single instance.
 */
import type { Change, CollectionName, Collections, OutboxEvent, SessionRecord, TransactionRecord } from '../domain/types.ts';
import type { ChangeNotice, Page, Repository, RepositoryReads, RepositoryTx, WindowCount } from './repository.ts';
import type { Store } from './store.ts';

/** Rate-limit windows kept at most (one per merchant and per failing client address). */
const MAX_WINDOWS = 100_000;

/** Reads of the Store's memory as they are now. */
class StoreReads implements RepositoryReads {
  constructor(
    protected readonly store: Store,
    private readonly scenarioIds: () => Set<string>,
  ) {}

  async get<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    return this.store.get(c, k);
  }
  async transactionByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined> {
    return this.store.transactionByVendorReference(merchantId, vendorReference);
  }
  async sessionByTokenDigest(digest: string): Promise<SessionRecord | undefined> {
    return this.store.sessionByTokenDigest(digest);
  }
  async openTransactions(merchantId: string): Promise<TransactionRecord[]> {
    return [...this.store.openTransactions(merchantId)];
  }
  async transactionsPage(merchantId: string, limit: number, cursor: string | null): Promise<Page<TransactionRecord>> {
    const { items, more } = this.store.transactionsPage(merchantId, limit, cursor);
    return { items, next: more ? (items.at(-1)?.id ?? null) : null };
  }
  async smsPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<Collections['sms']>> {
    const ids = this.store.smsIds(merchantId);
    return this.pageOf('sms', transactionId === undefined ? ids : this.ofTransaction('sms', ids, transactionId), limit, cursor);
  }
  async outboxPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<OutboxEvent>> {
    const ids = [...this.store.outboxIds(merchantId)].reverse();
    return this.pageOf('outbox', transactionId === undefined ? ids : this.ofTransaction('outbox', ids, transactionId), limit, cursor);
  }
  async outboxAfter(merchantId: string, afterId: string | null, limit: number): Promise<OutboxEvent[]> {
    const ids = this.store.outboxIds(merchantId);
    const i = afterId === null ? -1 : ids.indexOf(afterId);
    return ids.slice(i + 1, i + 1 + limit).map((id) => this.store.get('outbox', id)!);
  }
  async latestOutboxId(merchantId: string): Promise<string | null> {
    return this.store.outboxIds(merchantId).at(-1) ?? null;
  }
  /** The page of `ids` (a list in its order) after the id `cursor` (null, or not in the list: from the start); only the page is decoded. */
  private pageOf<C extends 'sms' | 'outbox'>(c: C, ids: readonly string[], limit: number, cursor: string | null): Page<Collections[C]> {
    const start = cursor === null ? 0 : ids.indexOf(cursor) + 1;
    const page = ids.slice(start, start + limit);
    return { items: page.map((id) => this.store.get(c, id)!), next: start + limit < ids.length ? (page.at(-1) ?? null) : null };
  }
  /** The ids among `ids` of records of transaction `transactionId` (each record read: a filtered list is a scan). */
  private ofTransaction(c: 'sms' | 'outbox', ids: readonly string[], transactionId: string): string[] {
    return ids.filter((id) => this.store.get(c, id)?.transactionId === transactionId);
  }
  async dueTransactions(merchantId: string, dueAtMs: number, limit: number): Promise<TransactionRecord[]> {
    const out: TransactionRecord[] = [];
    for (const t of this.store.pendingTransactions(merchantId)) {
      if (out.length >= limit || Date.parse(t.expiresAt) > dueAtMs) break; // oldest window first
      out.push(t);
    }
    return out;
  }
  async dueScenarios(merchantId: string, dueAtMs: number, limit: number): Promise<TransactionRecord[]> {
    const out: TransactionRecord[] = [];
    const ids = this.scenarioIds();
    for (const id of ids) {
      if (out.length >= limit) break;
      const t = this.store.get('transactions', id);
      if (!t?.scenario || t.status !== 'PENDING') {
        ids.delete(id);
        continue;
      }
      if (t.merchantId === merchantId && Date.parse(t.scenario.dueAt) <= dueAtMs) out.push(t);
    }
    return out;
  }
  async pendingMerchants(): Promise<string[]> {
    return this.store.pendingMerchants();
  }
  async paymentIntentCount(sessionId: string): Promise<number> {
    return this.store.paymentIntentCount(sessionId);
  }
  async count(c: CollectionName, merchantId?: string): Promise<number> {
    if (merchantId === undefined) return this.store.count(c);
    if (c === 'transactions') return this.store.merchantTransactionCount(merchantId);
    if (c === 'sms') return this.store.smsIds(merchantId).length;
    if (c === 'outbox') return this.store.outboxIds(merchantId).length;
    if (c === 'merchantState') return this.store.get('merchantState', merchantId) ? 1 : 0;
    let n = 0;
    for (const r of this.store.values(c)) if ((r as { merchantId: string }).merchantId === merchantId) n += 1;
    return n;
  }
}

/** A transaction: the Store's reads (nothing else runs meanwhile, so `lock` is a read) and buffered writes. */
class LocalTx extends StoreReads implements RepositoryTx {
  readonly changes: Change[] = [];
  lock<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    return this.get(c, k);
  }
  lockByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined> {
    return this.transactionByVendorReference(merchantId, vendorReference);
  }
  write(changes: Change[]): void {
    // one at a time: a spread of a large batch (a seed, a reset) would overflow the call stack
    for (const ch of changes) this.changes.push(ch);
  }
  deleteMerchantData(merchantId: string, collections: CollectionName[]): void {
    for (const c of collections) {
      if (c === 'merchantState') {
        this.changes.push({ c, k: merchantId, v: null });
        continue;
      }
      const ids: readonly string[] =
        c === 'transactions'
          ? this.store.merchantTransactionIds(merchantId)
          : c === 'sms'
            ? this.store.smsIds(merchantId)
            : c === 'outbox'
              ? this.store.outboxIds(merchantId)
              : [...this.store.values(c)].filter((r) => r.merchantId === merchantId).map((r) => r.id);
      for (const k of ids) this.changes.push({ c, k, v: null });
    }
  }
}

export interface LocalRepositoryOptions {
  /** Wall-clock time for delivery leases (epoch ms); default `Date.now`. */
  now?: () => number;
}

/**
 * `Repository` over a `Store`; `store` stays reachable for tools and benchmarks that seed or
 * inspect it directly (never the handlers).
 */
export class LocalRepository extends StoreReads implements Repository {
  /** The tail of the transaction queue: the next transaction starts when it settles. */
  private tail: Promise<void> = Promise.resolve();
  private readonly windows = new Map<string, WindowCount & { endMs: number }>();
  /** Outbox event id → end of its delivery lease (wall-clock ms). */
  private readonly leases = new Map<string, number>();
  private readonly listeners = new Set<(notice: ChangeNotice) => void>();
  private scenarios: Set<string> | null = null;
  private readonly wallNow: () => number;

  constructor(
    readonly store: Store,
    options: LocalRepositoryOptions = {},
  ) {
    super(store, () => this.scenarioIndex());
    this.wallNow = options.now ?? Date.now;
  }

  /** Ids of PENDING transactions with a scenario action (built from the Store on first use, kept at each commit). */
  private scenarioIndex(): Set<string> {
    if (!this.scenarios) {
      this.scenarios = new Set();
      for (const t of this.store.values('transactions')) if (t.scenario && t.status === 'PENDING') this.scenarios.add(t.id);
    }
    return this.scenarios;
  }

  /** A read resolved once what it read is durable (everything applied so far, for lists and misses). */
  private async durable<T>(value: T): Promise<T> {
    if (!this.store.settled) await this.store.barrier();
    return value;
  }

  /** A read of one record resolved once that record is durable: a write in flight elsewhere does not delay it. */
  private async durableRecord<C extends CollectionName, T extends Collections[C] | undefined>(c: C, k: string, value: T): Promise<T> {
    if (!this.store.settled) await this.store.barrierFor(c, k);
    return value;
  }

  override async get<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    return this.durableRecord(c, k, this.store.get(c, k));
  }
  override async transactionByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined> {
    const t = this.store.transactionByVendorReference(merchantId, vendorReference);
    // a miss may be a reference whose record a write in flight removed: wait for everything
    return t ? this.durableRecord('transactions', t.id, t) : this.durable(t);
  }
  override async sessionByTokenDigest(digest: string): Promise<SessionRecord | undefined> {
    const s = this.store.sessionByTokenDigest(digest);
    return s ? this.durableRecord('sessions', s.id, s) : this.durable(s);
  }
  override async transactionsPage(merchantId: string, limit: number, cursor: string | null): Promise<Page<TransactionRecord>> {
    return this.durable(await super.transactionsPage(merchantId, limit, cursor));
  }
  override async smsPage(
    merchantId: string,
    limit: number,
    cursor: string | null,
    transactionId?: string,
  ): Promise<Page<Collections['sms']>> {
    return this.durable(await super.smsPage(merchantId, limit, cursor, transactionId));
  }
  override async outboxPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<OutboxEvent>> {
    return this.durable(await super.outboxPage(merchantId, limit, cursor, transactionId));
  }
  override async outboxAfter(merchantId: string, afterId: string | null, limit: number): Promise<OutboxEvent[]> {
    return this.durable(await super.outboxAfter(merchantId, afterId, limit));
  }

  async transaction<T>(work: (tx: RepositoryTx) => Promise<T>): Promise<T> {
    const before = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    await before;
    let result: T;
    let changes: Change[];
    let written: Promise<void>;
    let notices: ChangeNotice[];
    try {
      const tx = new LocalTx(this.store, () => this.scenarioIndex());
      result = await work(tx);
      changes = tx.changes;
      notices = changes.map((ch) => this.noticeOf(ch));
      // Nothing written: resolve once what was read is durable (a write in flight may still fail).
      written = changes.length === 0 ? this.durable(undefined) : this.store.commit(changes);
      if (changes.length > 0) this.afterApply(changes);
    } finally {
      release();
    }
    await written;
    for (const n of notices) for (const l of this.listeners) l(n);
    return result;
  }

  /** Keeps the scenario index and the leases in step with applied changes (a written event ends its lease). */
  private afterApply(changes: Change[]): void {
    for (const ch of changes) {
      if (ch.c === 'outbox') this.leases.delete(ch.k);
      if (ch.c === 'transactions' && this.scenarios) {
        if (ch.v?.scenario && ch.v.status === 'PENDING') this.scenarios.add(ch.k);
        else this.scenarios.delete(ch.k);
      }
    }
  }

  private noticeOf(ch: Change): ChangeNotice {
    if (ch.c === 'merchantState') return { collection: ch.c, merchantId: ch.k, id: ch.k };
    const r = (ch.v ?? this.store.get(ch.c, ch.k)) as { merchantId?: string } | undefined;
    return { collection: ch.c, merchantId: r?.merchantId ?? '', id: ch.k };
  }

  async countInWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount> {
    let w = this.windows.get(key);
    if (!w || nowMs < w.startMs || nowMs >= w.endMs) {
      if (!w && this.windows.size >= MAX_WINDOWS) this.pruneWindows(nowMs);
      w = { startMs: nowMs, endMs: nowMs + windowMs, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    return { startMs: w.startMs, count: w.count };
  }

  async peekWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount | null> {
    const w = this.windows.get(key);
    return w && nowMs >= w.startMs && nowMs < w.startMs + windowMs ? { startMs: w.startMs, count: w.count } : null;
  }

  /** Drops finished windows, then the oldest, so a flood of distinct keys (client addresses) stays bounded. */
  private pruneWindows(nowMs: number): void {
    for (const [k, w] of this.windows) if (nowMs >= w.endMs) this.windows.delete(k);
    for (const k of this.windows.keys()) {
      if (this.windows.size < MAX_WINDOWS) break;
      this.windows.delete(k);
    }
  }

  async resetWindows(prefix: string): Promise<void> {
    for (const k of [...this.windows.keys()]) if (k.startsWith(prefix)) this.windows.delete(k);
  }

  async claimDue(nowOf: (merchantId: string) => number, limit: number, leaseMs: number): Promise<OutboxEvent[]> {
    const wall = this.wallNow();
    const due = this.store.pendingOutbox().filter((e) => {
      if (e.nextAttemptAt === null || Date.parse(e.nextAttemptAt) > nowOf(e.merchantId)) return false;
      const lease = this.leases.get(e.id);
      return lease === undefined || lease <= wall;
    });
    due.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    const claimed = due.slice(0, limit);
    for (const e of claimed) this.leases.set(e.id, wall + leaseMs);
    return this.durable(claimed);
  }

  subscribe(listener: (notice: ChangeNotice) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  unavailableFor(): number | null {
    return this.store.refusedFor();
  }

  /** True once every write applied so far is on disk (false when it failed). */
  ping(): Promise<boolean> {
    return this.store.barrier().then(
      () => true,
      () => false,
    );
  }

  async close(): Promise<void> {
    await this.tail;
    this.listeners.clear();
    await this.store.close();
  }
}
