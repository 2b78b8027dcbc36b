/**
 * The embedded store (ADR-046): `Repository` on `node:sqlite`, a database file (`--data`, opened
 * by `sqlite-file.ts`, which takes the lock that allows one server per file) or in memory
 * (`--memory`, tests), with the same behaviour for both and for every caller:
 *
 * - Transactions run one at a time in this process, in call order (a queue of promises that only
 *   orders the use of the writing connection). Each one's writes are applied synchronously, so
 *   nothing else runs between them, in the SQLite transaction that several share (`runTransaction`:
 *   the group commit). The database makes the writes exact: the unique index on (merchant,
 *   vendorReference), the upserts, all or none of each transaction.
 * - Durable before answered (ADR-047): a commit writes its log frames (`synchronous=NORMAL`), and
 *   `transaction` resolves once an `fdatasync` of the log, run off the event loop, has covered it
 *   (`LogSync`, log-sync.ts). A read outside a transaction resolves once what it read is durable too. SQLite
 *   checkpoints the log itself (`wal_autocheckpoint`, `sqlite-file.ts`).
 * - `countInWindow` and the delivery claims of `claimDue` are rows of TEMP tables (in memory,
 *   this connection's): one statement each, exact because the connection is the file's only
 *   writer; they last as long as the process, as the claims of a process that died must.
 * - A commit the disk refuses (ADR-026): `runTransaction`, `refuse`.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { Change, CollectionName, Collections, OutboxEvent, TransactionRecord } from '../../domain/types.ts';
import { failureOf, StoreUnavailableError, storageRetryAfterSeconds } from '../errors.ts';
import type { ChangeNotice, Repository, RepositoryTx, WindowCount } from '../repository.ts';
import { DELETE_LATER_ATTEMPTS, deleteOrder, deleteSql, isKeyOf, TABLES as SHARED, upsertSql, type Row, type Values } from '../rows.ts';
import { SqlRepository, sqlTables, SqlTx } from '../sql-reads.ts';
import { LogSync } from './log-sync.ts';
import { openDatabase, openDatabaseFile, openMemoryDatabase, type DataFileLock } from './sqlite-file.ts';

/** Records ↔ rows as SQLite returns them; an outbox row's attempts joined as JSON text, exactly as stored. */
const TABLES = sqlTables(
  { time: (v) => v as string, bool: (v) => v === 1, json: (v): unknown => JSON.parse(v as string) },
  `(SELECT '[' || coalesce(group_concat(detail, ','), '') || ']'
    FROM (SELECT a.detail FROM webhook_attempts a WHERE a.outbox_id = r.id ORDER BY a.attempt))`,
);

/** Per-process tables: rate-limit windows and delivery claims (times in epoch ms). */
const TEMP_SCHEMA = `
  CREATE TEMP TABLE rate_limit_windows (key TEXT PRIMARY KEY, start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL,
                                        count INTEGER NOT NULL, touched_ms INTEGER NOT NULL);
  CREATE TEMP TABLE outbox_claims (outbox_id TEXT PRIMARY KEY, until_ms INTEGER NOT NULL);`;

/** Rate-limit windows kept at most (one per merchant and per failing client address). */
const MAX_WINDOWS = 100_000;
/** Counted windows between two purges. */
const PURGE_EVERY = 1000;

/** One connection with its statements prepared once (record reads' apart: they return arrays); `$n` parameters are SQLite's `?n`. */
class Connection {
  private readonly statements = new Map<string, StatementSync>();
  private readonly arrays = new Map<string, StatementSync>();
  constructor(readonly db: DatabaseSync) {}

  statement(text: string, arrays = false): StatementSync {
    const cache = arrays ? this.arrays : this.statements;
    let st = cache.get(text);
    if (st) return st;
    cache.set(text, (st = this.db.prepare(text.replace(/\$(\d+)/g, '?$1'))));
    if (arrays && typeof st.setReturnArrays === 'function') st.setReturnArrays(true); // Node 24; Node 22: `values` reads objects
    return st;
  }
  all(text: string, values: unknown[] = []): Row[] {
    return this.statement(text).all(...values.map(bind));
  }
  /** The rows as arrays of the select list's values (a row object, built property by property, was half a B2's CPU in the store). */
  values(text: string, values: unknown[]): Values[] {
    const rows = this.statement(text, true).all(...values.map(bind)) as unknown[];
    if (rows.length === 0 || Array.isArray(rows[0])) return rows as Values[];
    return rows.map((r) => Object.values(r as Row)); // Node 22 has no setReturnArrays: a row object's keys are its columns, in select-list order
  }
  run(text: string, values: unknown[] = []): void {
    this.statement(text).run(...values.map(bind));
  }
}

const bind = (v: unknown): SQLInputValue => (v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : (v as SQLInputValue));

/** A transaction: reads of committed rows (nothing else writes meanwhile) and buffered writes. */
class SqliteTx extends SqlTx {
  protected readonly tables = TABLES;
  constructor(private readonly conn: Connection) {
    super();
  }
  protected run(text: string, values?: unknown[]): Promise<{ rows: Row[] }> {
    return Promise.resolve({ rows: this.conn.all(text, values) });
  }
  protected runValues(text: string, values: unknown[]): Promise<Values[]> {
    return Promise.resolve(this.conn.values(text, values));
  }
  lock<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    return this.get(c, k);
  }
  lockByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined> {
    return this.transactionByVendorReference(merchantId, vendorReference);
  }
}

export interface SqliteRepositoryOptions {
  /** The database file; absent: in memory. */
  file?: string;
  /** Wall-clock time (epoch ms) for delivery claims and the wait after a failed write; default `Date.now`. */
  now?: () => number;
}

/** Transactions committed together: one SQLite transaction, one sync of the log. */
interface Batch {
  /** Transactions applied in it. */
  size: number;
  /** Settles once its commit is durable (or failed). */
  done: Promise<void>;
  settle(error?: Error): void;
}

/** A batch commits when no transaction waits and no sync runs, or at this many transactions, or this long after it began. */
const BATCH_MAX = 256;
const BATCH_MAX_MS = 10;

export class SqliteRepository extends SqlRepository implements Repository {
  protected readonly tables = TABLES;
  /** The tail of the transaction queue: the next transaction starts when it settles. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Transactions queued and not started. */
  private waiting = 0;
  /** The SQLite transaction open on `main`, if any. */
  private batch: Batch | null = null;
  /** The connection that writes (and holds the TEMP tables); reads outside transactions use `conn` (another connection on a file). */
  private readonly main: Connection;
  private readonly conn: Connection;
  private readonly log: LogSync | null;
  private readonly fileLock: DataFileLock | null;
  private failure: unknown = null;
  private counted = 0;
  private closed = false;
  /** SQLite commits so far (each a group of transactions), for tests and diagnostics. */
  commits = 0;
  /**
   * The file's only writer (its lock), or a database in memory: every change is told before its
   * transaction resolves. Until the disk refused a commit or a sync: a commit whose sync failed
   * is in the database though its transaction was refused and told nobody.
   */
  get soleWriter(): boolean {
    return this.failure === null;
  }

  /** `file`: the database file `db` is connected to (absent: in memory), with its lock; `reader`: a second connection to it. */
  constructor(db: DatabaseSync, options: { file?: string; reader?: DatabaseSync; lock?: DataFileLock; now?: () => number } = {}) {
    super(options.now);
    this.main = new Connection(db);
    this.conn = options.reader ? new Connection(options.reader) : this.main;
    this.log = options.file === undefined ? null : new LogSync(options.file, () => this.syncEnded());
    this.fileLock = options.lock ?? null;
    db.exec(TEMP_SCHEMA);
  }

  protected run(text: string, values?: unknown[]): Promise<{ rows: Row[] }> {
    return this.committed(() => ({ rows: this.conn.all(text, values) }));
  }
  protected runValues(text: string, values: unknown[]): Promise<Values[]> {
    return this.committed(() => this.conn.values(text, values));
  }

  /**
   * A read outside a transaction: committed rows only (the reading connection on a file; in
   * memory, the open batch is committed first), answered once they are durable.
   */
  private committed<T>(read: () => T): Promise<T> {
    try {
      if (this.conn === this.main && this.batch) this.commitBatch();
      const answer = read();
      // a failed sync is answered to the writes it held
      return this.log
        ? this.log.durable().then(
            () => answer,
            () => answer,
          )
        : Promise.resolve(answer);
    } catch (e) {
      // the failure as a rejection, as from the async function this was
      return Promise.resolve().then(() => {
        throw e;
      });
    }
  }

  transaction<T>(work: (tx: RepositoryTx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    this.waiting += 1;
    const applied = this.tail.then(() => {
      this.waiting -= 1;
      return this.runTransaction(work);
    });
    this.tail = applied.catch(() => undefined);
    return applied.then(async ({ result, notices, durable }) => {
      await durable; // its batch's commit and sync, or (nothing written) those of what it read
      this.tell(notices);
      return result;
    });
  }

  /**
   * Runs `work` and applies its writes in the open batch (a savepoint of it: a failing
   * transaction is undone alone); the batch commits when no transaction waits and no sync of the
   * log runs, else when that sync ends (group commit, ADR-047). A commit the disk refuses is
   * rolled back (by SQLite) and answered `StoreUnavailableError` to every transaction of the
   * batch, and writes are refused until `Retry-After` has passed.
   * @rule ADR-026
   */
  private async runTransaction<T>(
    work: (tx: RepositoryTx) => Promise<T>,
  ): Promise<{ result: T; notices: ChangeNotice[]; durable: Promise<void> }> {
    try {
      const tx = new SqliteTx(this.main);
      const result = await work(tx);
      if (tx.ops.length === 0) return { result, notices: [], durable: this.durable() };
      const wait = this.unavailableFor();
      if (wait !== null) throw new StoreUnavailableError(this.failure, wait);
      const batch = this.openBatch();
      const db = this.main.db;
      db.exec('SAVEPOINT tx');
      let notices: ChangeNotice[];
      try {
        notices = this.apply(tx.ops);
        db.exec('RELEASE tx');
      } catch (e) {
        if (failureOf(e) === 'unavailable') throw this.failBatch(e);
        db.exec('ROLLBACK TO tx');
        db.exec('RELEASE tx');
        throw e;
      }
      batch.size += 1;
      return { result, notices, durable: batch.done };
    } finally {
      if (this.batch && (this.batch.size >= BATCH_MAX || (this.waiting === 0 && !this.log?.syncing))) this.commitBatch();
    }
  }

  /**
   * A sync of the log ended: the batch held open while it ran commits now, and the next sync
   * covers it. Holding it costs its transactions nothing (their answer waits for a sync that
   * starts after this one ends either way), and one commit for all of them writes each page
   * they share once: under B1 load on 16 connections, 20 KB written per create instead of 57 KB
   * when each committed alone, and 40-80 % more creates/s (docs/storage.md, docs/performance.md).
   */
  private syncEnded(): void {
    if (this.batch && !this.closed) this.commitBatch();
  }

  /** Resolves once everything committed so far, and the open batch, is durable. */
  private durable(): Promise<void> {
    if (this.batch) return this.batch.done;
    return this.log ? this.log.durable().catch((e: unknown) => Promise.reject(this.refuse(e))) : Promise.resolve();
  }

  /** The open batch, or a new one (`BEGIN IMMEDIATE`: this connection is the file's only writer). */
  private openBatch(): Batch {
    if (this.batch) return this.batch;
    try {
      this.main.db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      throw failureOf(e) === 'unavailable' ? this.refuse(e) : e;
    }
    let settle!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => (settle = (error) => (error === undefined ? resolve() : reject(error))));
    done.catch(() => undefined); // awaited by its transactions; a batch may end with none left to tell
    const batch: Batch = { size: 0, done, settle };
    this.batch = batch;
    setTimeout(() => {
      if (this.batch === batch) this.commitBatch(); // a long transaction does not hold the others' answers back
    }, BATCH_MAX_MS).unref();
    return batch;
  }

  /**
   * Commits the open batch (synchronously); its transactions are answered once the log is synced.
   * @rule ADR-047
   */
  private commitBatch(): void {
    const batch = this.batch!;
    this.batch = null;
    try {
      this.main.db.exec('COMMIT');
    } catch (e) {
      if (this.main.db.isTransaction) this.main.db.exec('ROLLBACK');
      batch.settle(failureOf(e) === 'unavailable' ? this.refuse(e) : (e as Error));
      return;
    }
    this.commits += 1;
    this.downUntil = 0;
    if (!this.log) return batch.settle();
    this.log.committed();
    this.log.durable().then(
      () => batch.settle(),
      (e: unknown) => batch.settle(this.refuse(e)),
    );
  }

  /** Rolls the open batch back after the disk refused a write: every transaction in it is answered `StoreUnavailableError`. */
  private failBatch(e: unknown): StoreUnavailableError {
    const error = this.refuse(e);
    if (this.main.db.isTransaction) this.main.db.exec('ROLLBACK');
    this.batch?.settle(error);
    this.batch = null;
    return error;
  }

  /**
   * Writes are refused for `Retry-After` seconds after the disk refused one (ADR-026). A failed
   * sync of the log is answered the same way, though SQLite has the commits it did not cover:
   * whether they reached the disk is not known (the next successful sync covers them).
   */
  private refuse(e: unknown): StoreUnavailableError {
    if (e instanceof StoreUnavailableError) return e;
    this.failure = e;
    this.downUntil = this.wallNow() + storageRetryAfterSeconds * 1000;
    process.emitWarning(`paylater store: ${(e as Error).message}; writes refused for ${storageRetryAfterSeconds} s, reads go on`);
    return new StoreUnavailableError(e, storageRetryAfterSeconds);
  }

  /** Applies `ops` (inside the open SQLite transaction); returns the change notices. */
  private apply(ops: SqliteTx['ops']): ChangeNotice[] {
    const notices: ChangeNotice[] = [];
    for (const op of ops) {
      if (!('change' in op)) for (const c of deleteOrder(op.collections)) this.delete(c, 'merchant', op.merchantId, notices);
      else if (op.change.v !== null) this.put(op.change, notices);
      else if (isKeyOf(op.change.c, op.change.k)) this.delete(op.change.c, 'key', op.change.k, notices);
    }
    return notices;
  }

  private put(ch: Change, notices: ChangeNotice[]): void {
    const v = ch.v!;
    this.main.run(upsertSql(ch.c), SHARED[ch.c].values(v as never));
    if (ch.c === 'outbox') {
      const e = v as OutboxEvent;
      e.attempts.forEach((a, i) =>
        this.main.run('INSERT INTO webhook_attempts (outbox_id, attempt, detail) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
          e.id,
          i + 1,
          JSON.stringify(a),
        ]),
      );
      this.main.run(DELETE_LATER_ATTEMPTS, [e.id, e.attempts.length]);
      this.main.run('DELETE FROM temp.outbox_claims WHERE outbox_id = $1', [e.id]); // a recorded attempt or state ends a claim
    }
    notices.push({ collection: ch.c, merchantId: ch.c === 'merchantState' ? v.id : (v as { merchantId: string }).merchantId, id: ch.k });
  }

  /** Deletes record `value` of `c` (`by: 'key'`), or merchant `value`'s records of it, noting each deleted record. */
  private delete(c: CollectionName, by: 'key' | 'merchant', value: string, notices: ChangeNotice[]): void {
    if (c === 'outbox' && by === 'key') this.main.run('DELETE FROM temp.outbox_claims WHERE outbox_id = $1', [value]);
    for (const text of deleteSql(c, by))
      for (const r of this.main.all(text, [value])) notices.push({ collection: c, merchantId: r.m as string, id: r.k as string });
  }

  async countInWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount> {
    const [r] = this.main.all(
      `INSERT INTO temp.rate_limit_windows (key, start_ms, end_ms, count, touched_ms) VALUES ($1, $2, $2 + $3, 1, $4)
       ON CONFLICT (key) DO UPDATE SET
         start_ms = CASE WHEN $2 < start_ms OR $2 >= end_ms THEN $2 ELSE start_ms END,
         end_ms = CASE WHEN $2 < start_ms OR $2 >= end_ms THEN $2 + $3 ELSE end_ms END,
         count = CASE WHEN $2 < start_ms OR $2 >= end_ms THEN 1 ELSE count + 1 END,
         touched_ms = $4
       RETURNING start_ms, count`,
      [key, nowMs, windowMs, this.wallNow()],
    );
    if (++this.counted % PURGE_EVERY === 0) this.purgeWindows();
    return { startMs: Number(r!.start_ms), count: Number(r!.count) };
  }

  /** Drops windows not counted in for a day, then the least recently counted beyond `MAX_WINDOWS`, so a flood of distinct keys stays bounded. */
  private purgeWindows(): void {
    this.main.run('DELETE FROM temp.rate_limit_windows WHERE touched_ms < $1', [this.wallNow() - 86_400_000]);
    this.main.run(
      `DELETE FROM temp.rate_limit_windows WHERE key IN (
         SELECT key FROM temp.rate_limit_windows ORDER BY touched_ms
         LIMIT max(0, (SELECT count(*) FROM temp.rate_limit_windows) - $1))`,
      [MAX_WINDOWS],
    );
  }

  async peekWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount | null> {
    const [r] = this.main.all(
      'SELECT start_ms, count FROM temp.rate_limit_windows WHERE key = $1 AND $2 >= start_ms AND $2 < start_ms + $3',
      [key, nowMs, windowMs],
    );
    return r ? { startMs: Number(r.start_ms), count: Number(r.count) } : null;
  }

  async resetWindows(prefix: string): Promise<void> {
    this.main.run('DELETE FROM temp.rate_limit_windows WHERE substr(key, 1, length($1)) = $1', [prefix]);
  }

  async claimDue(nowOf: (merchantId: string) => number, limit: number, leaseMs: number): Promise<OutboxEvent[]> {
    if (limit <= 0) return [];
    if (this.batch) this.commitBatch(); // claims are of committed events only
    const wall = this.wallNow();
    // Each merchant with pending events and the time on its clock, as [[id, ISO time], …].
    const clocks = this.conn
      .all("SELECT DISTINCT merchant_id FROM webhook_outbox WHERE state = 'pending'")
      .map((r) => [r.merchant_id as string, new Date(nowOf(r.merchant_id as string)).toISOString()]);
    const claimed = this.main
      .values(
        `SELECT ${TABLES.outbox.select} FROM json_each($1) m JOIN webhook_outbox r ON r.merchant_id = m.value ->> 0
         WHERE r.state = 'pending' AND r.next_attempt_at <= m.value ->> 1
           AND NOT EXISTS (SELECT 1 FROM temp.outbox_claims c WHERE c.outbox_id = r.id AND c.until_ms > $2)
         ORDER BY r.created_at, r.seq LIMIT $3`,
        [JSON.stringify(clocks), wall, limit],
      )
      .map((r) => TABLES.outbox.record(r));
    for (const e of claimed)
      this.main.run(
        'INSERT INTO temp.outbox_claims (outbox_id, until_ms) VALUES ($1, $2) ON CONFLICT (outbox_id) DO UPDATE SET until_ms = excluded.until_ms',
        [e.id, wall + leaseMs],
      );
    return claimed;
  }

  async ping(): Promise<boolean> {
    try {
      this.main.all('SELECT 1');
      await this.log?.durable();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    if (this.batch) this.commitBatch();
    await this.log?.durable().catch(() => undefined);
    if (this.conn !== this.main) this.conn.db.close();
    await this.log?.close();
    this.listeners.clear();
    this.main.db.close(); // the last connection: checkpoints the log into the file and removes it
    this.fileLock?.release();
  }
}

/** The embedded store on `options.file` (made if absent; refused with a `DataFileError` naming it), or in memory. */
export async function openSqliteRepository(options: SqliteRepositoryOptions = {}): Promise<SqliteRepository> {
  if (options.file === undefined) return new SqliteRepository(openMemoryDatabase(), options);
  const { db, lock } = await openDatabaseFile(options.file);
  const reader = openDatabase(options.file, { timeout: 1000 });
  reader.exec('PRAGMA query_only = 1');
  return new SqliteRepository(db, { ...options, lock, reader });
}
