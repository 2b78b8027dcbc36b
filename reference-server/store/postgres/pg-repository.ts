/**
 * The PostgreSQL store: `Repository` on a `pg.Pool`, exact across any number of instances
 * sharing one database.
 *
 * - `transaction`: BEGIN … COMMIT on one pooled client (READ COMMITTED). `lock` is
 *   `SELECT … FOR UPDATE` (a key with no row yet takes a transaction-scoped advisory lock on
 *   it, so two creators of one key serialise too). Writes are buffered and applied as
 *   upserts and deletes before the next read; the last ones go with the notices and COMMIT in
 *   one round trip. A unique violation, a serialization failure or a deadlock reruns `work`
 *   (up to `MAX_ATTEMPTS`).
 * - New outbox rows of a merchant are inserted under a per-merchant advisory lock held to
 *   COMMIT, so their `seq` order is their commit order and the event stream (`outboxAfter`)
 *   never skips one that commits late.
 * - `countInWindow`: one `INSERT … ON CONFLICT (key) DO UPDATE … RETURNING` (windows long
 *   finished are purged now and then).
 * - `claimDue`: `FOR UPDATE SKIP LOCKED` of due rows whose claim (`claimed_until`, database
 *   time) is free, setting a new claim; any write of the row ends it.
 * - `subscribe`: NOTIFY in the writing transaction (delivered on commit only) of its
 *   `SHARED_NOTICES` changes, LISTEN on one dedicated connection per instance (`pg-notices.ts`).
 *   A notifying commit holds a database-wide lock until it is durable, so transactions without
 *   such changes (B1 creates) do not notify and keep committing in groups.
 * - A lost or refused connection is `StoreUnavailableError` (ADR-026: 503 and `Retry-After`).
 */
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Change, CollectionName, Collections, OutboxEvent } from '../../domain/types.ts';
import type { ChangeNotice, Repository, RepositoryTx, WindowCount } from '../repository.ts';
import { failureOf, StoreUnavailableError, storageRetryAfterSeconds } from '../errors.ts';
import { DELETE_LATER_ATTEMPTS, deleteOrder, deleteSql, isKeyOf, TABLES as SHARED, upsertSql, type Row, type Values } from '../rows.ts';
import { SqlRepository, sqlTables, SqlTx } from '../sql-reads.ts';
import { migrateUrl } from './migrate.ts';
import { CHANNEL, encodeNotice, NoticeListener } from './pg-notices.ts';

/**
 * The shared records ↔ rows as `pg` returns them: `timestamptz` as a Date, `json` parsed, booleans
 * as booleans; an outbox row's attempts aggregated with `json_agg`.
 */
const TABLES = sqlTables(
  { time: (v) => (v as Date).toISOString(), bool: (v) => v as boolean, json: (v) => v },
  `COALESCE((SELECT json_agg(a.detail ORDER BY a.attempt) FROM webhook_attempts a WHERE a.outbox_id = r.id), '[]'::json)`,
);

/** A statement and its parameters. */
interface Statement {
  text: string;
  values: unknown[];
}

const names = new Map<string, string>();
/**
 * `text` as a named (prepared) statement: each connection parses and plans it once, not at every
 * call. The texts are fixed (values are parameters), so the names are few.
 */
function prepared(text: string, values: unknown[] = []): { name: string; text: string; values: unknown[] } {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `paylater_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return { name, text, values };
}

/** How many times a transaction's work is run when the database reports a conflict. */
const MAX_ATTEMPTS = 5;

/**
 * The collections whose changes reach other instances' listeners: what background work and the
 * event stream follow (new and moved webhook events, merchant clocks and endpoints). PostgreSQL
 * serialises the commits of notifying transactions, so the others (every B1 create) do not notify.
 */
const SHARED_NOTICES: ReadonlySet<CollectionName> = new Set<CollectionName>(['outbox', 'merchantState']);

/** First keys of the two-key advisory locks (a space apart from the migrations' one-key lock). */
const LOCK_ABSENT_KEY = 0x70_6c_01;
const LOCK_OUTBOX_MERCHANT = 0x70_6c_02;
/** Counted windows between two purges of finished ones. */
const PURGE_EVERY = 1000;

export interface PgRepositoryOptions {
  /** `postgres://user:password@host:port/database` */
  url: string;
  /** Connections of this instance's pool (default 10). */
  poolSize?: number;
  /** Seconds a caller is told to wait after the database was out of reach (default: the spec's `Retry-After`, ADR-026). */
  retryAfterSeconds?: number;
}

class PgTx extends SqlTx {
  protected readonly tables = TABLES;
  private flushing: Promise<void> = Promise.resolve();
  /** BEGIN, sent before the first statement (a transaction that only writes sends it with its writes). */
  private begun: Promise<unknown> | null = null;
  /** Outbox keys read in this transaction: their writes are updates, not new events. */
  private readonly knownOutbox = new Set<string>();
  private readonly outboxLocked = new Set<string>();
  readonly notices: ChangeNotice[] = [];

  constructor(private readonly client: pg.PoolClient) {
    super();
  }

  private begin(): Promise<unknown> {
    return (this.begun ??= this.client.query('BEGIN'));
  }

  protected async run(text: string, values?: unknown[]): Promise<{ rows: Row[] }> {
    await this.flush();
    await this.begin();
    return this.client.query(prepared(text, values));
  }
  protected async runValues(text: string, values: unknown[]): Promise<Values[]> {
    await this.flush();
    await this.begin();
    return (await this.client.query({ ...prepared(text, values), rowMode: 'array' })).rows;
  }

  override get<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    if (c === 'outbox') this.knownOutbox.add(k);
    return super.get(c, k);
  }

  async lock<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    if (!isKeyOf(c, k)) return undefined;
    if (c === 'outbox') this.knownOutbox.add(k);
    const where = `r.${TABLES[c].key} = $1`;
    const found = await this.one(c, where, [k], 'FOR UPDATE OF r');
    if (found) return found;
    await this.run('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_ABSENT_KEY, `${c}\u001f${k}`]);
    return this.one(c, where, [k], 'FOR UPDATE OF r');
  }

  async lockByVendorReference(merchantId: string, vendorReference: string) {
    const where = 'r.merchant_id = $1 AND r.vendor_reference = $2';
    const found = await this.one('transactions', where, [merchantId, vendorReference], 'FOR UPDATE OF r');
    if (found) return found;
    await this.run('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_ABSENT_KEY, `vr\u001f${merchantId}\u001f${vendorReference}`]);
    return this.one('transactions', where, [merchantId, vendorReference], 'FOR UPDATE OF r');
  }

  /** Applies the buffered writes, in order, one statement at a time (reads wait for them). */
  flush(): Promise<void> {
    if (this.ops.length === 0) return this.flushing;
    const ops = this.ops;
    this.ops = [];
    this.flushing = this.flushing.then(async () => {
      await this.begin();
      for (const op of ops) {
        if (!('change' in op))
          for (const c of deleteOrder(op.collections))
            for (const text of deleteSql(c, 'merchant')) await this.client.query(text, [op.merchantId]);
        else if (op.change.v === null) await this.remove(op.change);
        else for (const st of this.putStatements(op.change)) await this.client.query(prepared(st.text, st.values));
      }
    });
    return this.flushing;
  }

  /**
   * Sends the remaining writes, the change notices and COMMIT in one round trip (one
   * multi-statement query with the values inlined as literals), BEGIN first if nothing was sent
   * yet; any failure aborts the whole. Deletes go one at a time first (their notices need the
   * deleted row's merchant).
   */
  async commit(encode: (n: ChangeNotice) => string): Promise<void> {
    if (this.ops.some((op) => !('change' in op) || op.change.v === null)) await this.flush();
    await this.flushing;
    if (!this.begun && this.ops.length === 0) return; // nothing read, nothing written
    const sql: string[] = [];
    if (!this.begun) sql.push('BEGIN');
    for (const op of this.ops) if ('change' in op) for (const st of this.putStatements(op.change)) sql.push(this.inline(st));
    this.ops = [];
    for (const n of this.notices)
      if (SHARED_NOTICES.has(n.collection)) sql.push(`SELECT pg_notify('${CHANNEL}', ${this.client.escapeLiteral(encode(n))})`);
    sql.push('COMMIT');
    await this.client.query(sql.join(';\n'));
  }

  /** `text` with its `$n` parameters replaced by literals (the texts hold no `$` of their own). */
  private inline(st: Statement): string {
    return st.text.replace(/\$(\d+)/g, (_, i: string) => {
      const v = st.values[Number(i) - 1];
      if (v === null || v === undefined) return 'NULL';
      if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
        return String(v);
      }
      if (typeof v === 'string') return this.client.escapeLiteral(v);
      throw new Error(`no literal for ${typeof v}`);
    });
  }

  private async remove(ch: Change): Promise<void> {
    if (!isKeyOf(ch.c, ch.k)) return;
    for (const text of deleteSql(ch.c, 'key')) {
      const [row] = (await this.client.query<Row>(prepared(text, [ch.k]))).rows;
      if (row) this.notices.push({ collection: ch.c, merchantId: row.m as string, id: ch.k });
    }
  }

  /**
   * The statements that put record `ch.v` (its notice noted): for a new outbox event, the
   * merchant's ordering lock first; a written outbox row's claim ends.
   */
  private putStatements(ch: Change): Statement[] {
    if (ch.v === null) throw new Error('not a put');
    const out: Statement[] = [];
    const merchantId = ch.c === 'merchantState' ? ch.v.id : ch.v.merchantId;
    if (ch.c === 'outbox' && !this.knownOutbox.has(ch.k) && !this.outboxLocked.has(merchantId)) {
      out.push({ text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))', values: [LOCK_OUTBOX_MERCHANT, merchantId] });
      this.outboxLocked.add(merchantId);
    }
    out.push({ text: upsertSql(ch.c, ch.c === 'outbox' ? ['claimed_until = NULL'] : []), values: SHARED[ch.c].values(ch.v as never) });
    if (ch.c === 'outbox') {
      if (ch.v.attempts.length > 0)
        out.push({
          text: `INSERT INTO webhook_attempts (outbox_id, attempt, detail)
                 SELECT $1, x.n, x.d FROM json_array_elements($2::json) WITH ORDINALITY AS x(d, n)
                 ON CONFLICT (outbox_id, attempt) DO NOTHING`,
          values: [ch.v.id, JSON.stringify(ch.v.attempts)],
        });
      out.push({ text: DELETE_LATER_ATTEMPTS, values: [ch.v.id, ch.v.attempts.length] });
    }
    this.notices.push({ collection: ch.c, merchantId, id: ch.k });
    return out;
  }
}

export class PgRepository extends SqlRepository implements Repository {
  protected readonly tables = TABLES;
  private readonly pool: pg.Pool;
  private readonly instance = randomUUID();
  private readonly retryAfterSeconds: number;
  private noticeListener: NoticeListener | null = null;
  private readonly inflight = new Set<Promise<unknown>>();
  private closed = false;
  /** Windows counted by this instance (for `purgeWindows`). */
  private counted = 0;

  constructor(private readonly options: PgRepositoryOptions) {
    super();
    this.retryAfterSeconds = options.retryAfterSeconds ?? storageRetryAfterSeconds;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      application_name: 'paylater',
    });
    // An idle client losing its connection (the database restarting) must not crash the process.
    this.pool.on('error', () => undefined);
  }

  /** Records that the database is out of reach, as the error to throw. */
  private unavailable(e: unknown): StoreUnavailableError {
    this.downUntil = this.wallNow() + this.retryAfterSeconds * 1000;
    return new StoreUnavailableError(e, this.retryAfterSeconds);
  }

  protected run(text: string, values?: unknown[]): Promise<{ rows: Row[] }> {
    return this.query(() => this.pool.query<Row>(prepared(text, values)));
  }
  protected async runValues(text: string, values: unknown[]): Promise<Values[]> {
    return (await this.query(() => this.pool.query<unknown[]>({ ...prepared(text, values), rowMode: 'array' }))).rows;
  }
  /** `q`'s answer; the database out of reach is `StoreUnavailableError`. */
  private async query<T>(q: () => Promise<T>): Promise<T> {
    try {
      return await q();
    } catch (e) {
      throw failureOf(e) === 'unavailable' ? this.unavailable(e) : e;
    }
  }

  transaction<T>(work: (tx: RepositoryTx) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const p = this.runTransaction(work);
    this.inflight.add(p);
    const forget = () => void this.inflight.delete(p);
    p.then(forget, forget);
    return p;
  }

  private async runTransaction<T>(work: (tx: RepositoryTx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (e) {
        throw failureOf(e) === 'unavailable' ? this.unavailable(e) : e;
      }
      let broken: Error | undefined;
      // A checked-out client has no listener of the pool's: its connection dropping between two
      // queries (a network cut, not only a server shutting down) would be an uncaught error.
      let lost: Error | undefined;
      const onLost = (e: Error) => void (lost ??= e);
      client.on('error', onLost);
      try {
        const tx = new PgTx(client);
        const result = await work(tx);
        await tx.commit((n) => encodeNotice(this.instance, n));
        this.downUntil = 0;
        this.tell(tx.notices);
        return result;
      } catch (e) {
        const failure = failureOf(e);
        if (failure === 'unavailable' || lost) {
          broken = lost ?? (e as Error);
          throw this.unavailable(e);
        }
        await client.query('ROLLBACK').catch((r: unknown) => (broken = r as Error));
        if (failure !== 'conflict' || attempt >= MAX_ATTEMPTS) throw e;
      } finally {
        client.removeListener('error', onLost);
        client.release(broken ?? lost);
      }
      // A conflict: run the work again, after a short random pause that spreads the contenders.
      await new Promise((r) => setTimeout(r, Math.random() * 2 * attempt));
    }
  }

  /**
   * A request whose `nowMs` is before the window's start (one taken a moment earlier on another
   * instance, arriving later) counts in the current window: arrival order must not reset it.
   */
  async countInWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount> {
    const { rows } = await this.run(
      `INSERT INTO rate_limit_windows AS w (key, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         window_start = CASE WHEN w.window_start + $3 * interval '1 millisecond' <= EXCLUDED.window_start
                             THEN EXCLUDED.window_start ELSE w.window_start END,
         count = CASE WHEN w.window_start + $3 * interval '1 millisecond' <= EXCLUDED.window_start
                      THEN 1 ELSE w.count + 1 END
       RETURNING window_start, count`,
      [key, new Date(nowMs).toISOString(), windowMs],
    );
    this.purgeWindows();
    const r = rows[0]!;
    return { startMs: (r.window_start as Date).getTime(), count: Number(r.count) };
  }

  async peekWindow(key: string, nowMs: number, windowMs: number): Promise<WindowCount | null> {
    const { rows } = await this.run(
      `SELECT window_start, count FROM rate_limit_windows WHERE key = $1 AND window_start + $3 * interval '1 millisecond' > $2`,
      [key, new Date(nowMs).toISOString(), windowMs],
    );
    const r = rows[0];
    return r ? { startMs: (r.window_start as Date).getTime(), count: Number(r.count) } : null;
  }

  /**
   * Every `PURGE_EVERY` counts, drops the windows that started over a day ago in real time (every
   * window is far shorter; merchant clocks only move ahead of real time), so keys of passing
   * clients do not pile up.
   */
  private purgeWindows(): void {
    if (++this.counted % PURGE_EVERY !== 0) return;
    this.run("DELETE FROM rate_limit_windows WHERE window_start < now() - interval '1 day'").catch(() => undefined);
  }

  async resetWindows(prefix: string): Promise<void> {
    await this.run('DELETE FROM rate_limit_windows WHERE left(key, length($1)) = $1', [prefix]);
  }

  async claimDue(nowOf: (merchantId: string) => number, limit: number, leaseMs: number): Promise<OutboxEvent[]> {
    const { rows: merchants } = await this.run("SELECT DISTINCT merchant_id FROM webhook_outbox WHERE state = 'pending'");
    if (merchants.length === 0 || limit <= 0) return [];
    const ids = merchants.map((m) => m.merchant_id as string);
    const rows = await this.runValues(
      `WITH due AS (
         SELECT o.id FROM webhook_outbox o JOIN unnest($1::text[], $2::timestamptz[]) AS m(id, now) ON o.merchant_id = m.id
         WHERE o.state = 'pending' AND o.next_attempt_at <= m.now AND (o.claimed_until IS NULL OR o.claimed_until <= now())
         ORDER BY o.created_at, o.seq LIMIT $3
         FOR UPDATE OF o SKIP LOCKED),
       r AS (
         UPDATE webhook_outbox o SET claimed_until = now() + $4 * interval '1 millisecond' FROM due WHERE o.id = due.id RETURNING o.*)
       SELECT ${TABLES.outbox.select} FROM r ORDER BY r.created_at, r.seq`,
      [ids, ids.map((m) => new Date(nowOf(m)).toISOString()), limit, leaseMs],
    );
    return rows.map((r) => TABLES.outbox.record(r));
  }

  override subscribe(listener: (notice: ChangeNotice) => void): () => void {
    this.noticeListener ??= new NoticeListener({ connectionString: this.options.url }, this.instance, (n) => this.tell([n]));
    return super.subscribe(listener);
  }

  /** Resolves once the notices of other instances are being received (tests). */
  async listening(): Promise<void> {
    await this.noticeListener?.ready;
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      this.downUntil = 0;
      return true;
    } catch (e) {
      if (failureOf(e) === 'unavailable') this.unavailable(e);
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inflight]);
    await this.noticeListener?.close();
    await this.pool.end();
  }
}

/**
 * Opens the PostgreSQL store of `url`: applies the migrations first (a database at a newer
 * migration, or out of reach, is refused with a clear `MigrationError`).
 */
export async function openPgRepository(options: PgRepositoryOptions): Promise<PgRepository> {
  await migrateUrl(options.url);
  return new PgRepository(options);
}
