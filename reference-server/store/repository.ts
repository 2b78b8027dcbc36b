/**
 * The one repository interface the handlers, the core, the sweeper and the webhook dispatcher
 * use, whichever store is behind it: SQLite (`sqlite/`: the embedded default, a database file or
 * in memory for tests) or PostgreSQL (`postgres/`: a shared sandbox of several instances).
 *
 * It is asynchronous and transactional. Every read-decide-write runs inside `transaction`:
 * what it reads with `lock` cannot change until it ends, what it `write`s is applied at once
 * and is durable before `transaction` resolves. The SQLite store gives that guarantee by
 * running transactions one at a time in this process, each committed by SQLite; PostgreSQL gives it across instances
 * with row locks (`SELECT … FOR UPDATE`), unique indexes and conditional updates. When the
 * database detects a conflict (a unique index, a serialization failure, a deadlock) the store
 * reruns `work` (a few times at most), so the domain rule decides the answer on the
 * second run (e.g. a second create with one `vendorReference` then sees the first: 409).
 */
import type { Change, CollectionName, Collections, OutboxEvent, SessionRecord, TransactionRecord } from '../domain/types.ts';

/**
 * One page of a list and the cursor of the next page (null: the last page). A cursor is the id
 * of the previous page's last item (the API checks it names an item of the list before reading).
 */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/** What can be read, inside or outside a transaction. Reads outside one see committed data. */
export interface RepositoryReads {
  get<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined>;
  transactionByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined>;
  sessionByTokenDigest(digest: string): Promise<SessionRecord | undefined>;
  /** The merchant's transactions that hold credit or may still move (status PENDING or APPROVED), for the credit limit. */
  openTransactions(merchantId: string): Promise<TransactionRecord[]>;
  /** Pages of the merchant's records (sandbox lists, dashboard), in the spec's order: transactions and outbox newest first, SMS oldest first. `cursor` is a previous page's `next`. */
  transactionsPage(merchantId: string, limit: number, cursor: string | null): Promise<Page<TransactionRecord>>;
  /** `transactionId`: only the SMS sent for that transaction. */
  smsPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<Collections['sms']>>;
  /** `transactionId`: only the events of that transaction. */
  outboxPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<OutboxEvent>>;
  /** The merchant's outbox events recorded after event `afterId`, oldest first, at most `limit` (the event stream). Unknown `afterId`: from the oldest. */
  outboxAfter(merchantId: string, afterId: string | null, limit: number): Promise<OutboxEvent[]>;
  /** The id of the merchant's newest outbox event, if any (where a new event stream starts). */
  latestOutboxId(merchantId: string): Promise<string | null>;
  /** PENDING transactions of the merchant whose window ended at or before `dueAtMs` (epoch ms, merchant's clock), oldest window first, at most `limit`. */
  dueTransactions(merchantId: string, dueAtMs: number, limit: number): Promise<TransactionRecord[]>;
  /** PENDING transactions with a sandbox scenario action due at or before `dueAtMs`, at most `limit`. */
  dueScenarios(merchantId: string, dueAtMs: number, limit: number): Promise<TransactionRecord[]>;
  /** Merchants that have PENDING transactions. */
  pendingMerchants(): Promise<string[]>;
  /** How many payment intents session `sessionId` holds. */
  paymentIntentCount(sessionId: string): Promise<number>;
  count(c: CollectionName, merchantId?: string): Promise<number>;
}

/** A transaction: reads, locking reads and buffered writes, committed together. */
export interface RepositoryTx extends RepositoryReads {
  /** Reads `k` and holds it until the transaction ends: another transaction locking it waits. */
  lock<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined>;
  /** Like `transactionByVendorReference`, locking the row. */
  lockByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined>;
  /** Buffers whole-record puts and deletes; applied atomically with the commit. */
  write(changes: Change[]): void;
  /** Deletes every record of `merchantId` in the given collections (sandbox reset with data). */
  deleteMerchantData(merchantId: string, collections: CollectionName[]): void;
}

/** The outcome of counting one request in a fixed window (the rate limits). */
export interface WindowCount {
  /** Start of the window the request was counted in (epoch ms). */
  startMs: number;
  /** Requests counted in that window, this one included. */
  count: number;
}

/** A record changed (for the event stream's and the dispatcher's wake-ups across instances). */
export interface ChangeNotice {
  collection: CollectionName;
  merchantId: string;
  id: string;
}

export interface Repository extends RepositoryReads {
  /**
   * True when this object is its database's only writer and tells `subscribe`'s listeners of
   * every change before the transaction that made it resolves (SQLite: one server per file, or
   * in memory): what was read stays true until a change is told. False or absent: other
   * instances write too (PostgreSQL), their notices come late, read again.
   */
  readonly soleWriter?: boolean;
  /** Runs `work` as one transaction (rerun on a detected conflict); resolves once its writes are durable. */
  transaction<T>(work: (tx: RepositoryTx) => Promise<T>): Promise<T>;
  /**
   * Counts one request of `key` in a fixed window of `windowMs` that starts at the key's first
   * request (a request at or after the window's end starts a new one at `nowMs`). Exact across
   * instances: one atomic counter per key.
   */
  countInWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount>;
  /** The window `key` is in at `nowMs` without counting a request (null: none runs, the next request starts one). */
  peekWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount | null>;
  /** Forgets the windows of keys starting with `prefix` (the sandbox reset). */
  resetWindows(prefix: string): Promise<void>;
  /**
   * Claims up to `limit` pending outbox events due at the given merchant times, each for one
   * caller until `leaseMs` from now: concurrent claimers (other instances) never get the same
   * event while its lease runs. A recorded attempt or state ends the lease; an instance that
   * dies leaves it to expire, and the event is claimed again (same `webhook-id`).
   */
  claimDue(nowOf: (merchantId: string) => number, limit: number, leaseMs: number): Promise<OutboxEvent[]>;
  /**
   * Calls `listener` for every committed change of this instance, and for other instances'
   * changes of the collections background work follows (PostgreSQL's `SHARED_NOTICES`, by LISTEN/NOTIFY). Returns the unsubscribe.
   */
  subscribe(listener: (notice: ChangeNotice) => void): () => void;
  /** Null when the store can take writes now; otherwise the seconds after which to try again (ADR-026: `StoreUnavailableError`). */
  unavailableFor(): number | null;
  /** True when the store answers (readiness). */
  ping(): Promise<boolean>;
  /** Waits for pending writes and background work, then releases the store. */
  close(): Promise<void>;
}
