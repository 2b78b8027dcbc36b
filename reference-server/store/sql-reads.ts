/**
 * The repository's reads as SQL, shared by both stores (SQLite and PostgreSQL accept the same
 * text: `$n` parameters, row values, partial indexes) and, in each, by the repository and a
 * transaction; and what both repositories keep beside them (`SqlRepository`). Lists are in
 * insertion order (`seq`); a page's cursor is the id of the previous page's last item, and a
 * cursor naming no item of the list gives an empty last page.
 */
import {
  COLLECTIONS,
  type Change,
  type CollectionName,
  type Collections,
  type OutboxEvent,
  type SessionRecord,
  type TransactionRecord,
} from '../domain/types.ts';
import type { ChangeNotice, Page, RepositoryReads, RepositoryTx } from './repository.ts';
import { isKeyOf, TABLES, type Decode, type Row, type Table, type Values } from './rows.ts';

export type { Row, Values };

/** A table as one store reads it: its select list (alias `r`, the `reads` columns in order), the text of `get`'s read (the read of every B2 request), the record of a row of the select list's values. */
export interface SqlTable<C extends CollectionName> extends Omit<Table<C>, 'record'> {
  select: string;
  byKey: string;
  record(row: Values): Collections[C];
}
export type SqlTables = { readonly [C in CollectionName]: SqlTable<C> };

/** The tables as a store reads them: its driver's `decode`, and `attempts`, the SQL of an outbox row's attempts as one JSON array. */
export function sqlTables(decode: Decode, attempts: string): SqlTables {
  const of = <C extends CollectionName>(c: C): SqlTable<C> => {
    const t: Table<C> = TABLES[c];
    const select = t.reads.map((col) => (c === 'outbox' && col === 'attempts' ? `${attempts} AS attempts` : `r.${col}`)).join(', ');
    return { ...t, select, byKey: `SELECT ${select} FROM ${t.name} r WHERE r.${t.key} = $1`, record: (row) => t.record(row, decode) };
  };
  return Object.fromEntries(COLLECTIONS.map((c) => [c, of(c)])) as unknown as SqlTables;
}

const OPEN = `status IN ('PENDING', 'APPROVED')`;

export abstract class SqlReads implements RepositoryReads {
  /** Rows as objects keyed by column name. */
  protected abstract run(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  /** Rows as arrays of the select list's values (the reads of records: no object per row to build and read back). */
  protected abstract runValues(text: string, values: unknown[]): Promise<Values[]>;
  protected abstract readonly tables: SqlTables;

  protected one<C extends CollectionName>(c: C, where: string, values: unknown[], suffix = ''): Promise<Collections[C] | undefined> {
    return this.first(c, `SELECT ${this.tables[c].select} FROM ${this.tables[c].name} r WHERE ${where} ${suffix}`, values);
  }

  private first<C extends CollectionName>(c: C, text: string, values: unknown[]): Promise<Collections[C] | undefined> {
    const t = this.tables[c] as SqlTable<C>;
    return this.runValues(text, values).then((rows) => (rows[0] ? t.record(rows[0]) : undefined));
  }

  protected async many<C extends CollectionName>(c: C, rest: string, values: unknown[]): Promise<Collections[C][]> {
    const t = this.tables[c] as SqlTable<C>;
    const rows = await this.runValues(`SELECT ${t.select} FROM ${t.name} r ${rest}`, values);
    return rows.map((r) => t.record(r));
  }

  get<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined> {
    if (!isKeyOf(c, k)) return Promise.resolve(undefined);
    return this.first(c, this.tables[c].byKey, [k]);
  }

  transactionByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined> {
    return this.one('transactions', 'r.merchant_id = $1 AND r.vendor_reference = $2', [merchantId, vendorReference]);
  }

  sessionByTokenDigest(digest: string): Promise<SessionRecord | undefined> {
    return this.one('sessions', 'r.token_digest = $1', [digest]);
  }

  openTransactions(merchantId: string): Promise<TransactionRecord[]> {
    return this.many('transactions', `WHERE r.merchant_id = $1 AND r.${OPEN} ORDER BY r.seq`, [merchantId]);
  }

  /**
   * A page after the item `cursor` names, in the list's order: `order` is its sort key (columns
   * of `r`: the SMS outbox and the deliveries by their insertion `seq`, the transactions by their
   * `created_at`, ADR-081), `desc` newest first; `transactionId`: only the items of that transaction.
   * @rule ADR-081
   */
  private async page<C extends 'transactions' | 'sms' | 'outbox'>(
    c: C,
    order: readonly string[],
    desc: boolean,
    merchantId: string,
    limit: number,
    cursor: string | null,
    transactionId?: string,
  ): Promise<Page<Collections[C]>> {
    if (cursor !== null && !isKeyOf(c, cursor)) return { items: [], next: null };
    const key = `(${order.map((col) => `r.${col}`).join(', ')})`;
    const after = `AND ${key} ${desc ? '<' : '>'} (SELECT ${order.join(', ')} FROM ${this.tables[c].name} WHERE id = $3 AND merchant_id = $1)`;
    const params: unknown[] = [merchantId, limit + 1, ...(cursor === null ? [] : [cursor])];
    const filter = transactionId === undefined ? '' : `AND r.transaction_id = $${params.push(transactionId)}`;
    const sort = order.map((col) => `r.${col}${desc ? ' DESC' : ''}`).join(', ');
    const items = await this.many(
      c,
      `WHERE r.merchant_id = $1 ${cursor === null ? '' : after} ${filter} ORDER BY ${sort} LIMIT $2`,
      params,
    );
    const more = items.length > limit;
    if (more) items.length = limit;
    return { items, next: more ? (items.at(-1)?.id ?? null) : null };
  }

  /** Newest first (creation time on the merchant's clock, then id). */
  transactionsPage(merchantId: string, limit: number, cursor: string | null): Promise<Page<TransactionRecord>> {
    return this.page('transactions', ['created_at', 'id'], true, merchantId, limit, cursor);
  }
  /** Oldest first. */
  smsPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<Collections['sms']>> {
    return this.page('sms', ['seq'], false, merchantId, limit, cursor, transactionId);
  }
  /** Newest first. */
  outboxPage(merchantId: string, limit: number, cursor: string | null, transactionId?: string): Promise<Page<OutboxEvent>> {
    return this.page('outbox', ['seq'], true, merchantId, limit, cursor, transactionId);
  }

  outboxAfter(merchantId: string, afterId: string | null, limit: number): Promise<OutboxEvent[]> {
    return this.many(
      'outbox',
      `WHERE r.merchant_id = $1 AND r.seq > COALESCE((SELECT seq FROM webhook_outbox WHERE id = $2 AND merchant_id = $1), 0)
       ORDER BY r.seq LIMIT $3`,
      [merchantId, afterId, limit],
    );
  }

  async latestOutboxId(merchantId: string): Promise<string | null> {
    const { rows } = await this.run('SELECT id FROM webhook_outbox WHERE merchant_id = $1 ORDER BY seq DESC LIMIT 1', [merchantId]);
    return (rows[0]?.id as string | undefined) ?? null;
  }

  dueTransactions(merchantId: string, dueAtMs: number, limit: number): Promise<TransactionRecord[]> {
    return this.many(
      'transactions',
      `WHERE r.merchant_id = $1 AND r.status = 'PENDING' AND r.expires_at <= $2 ORDER BY r.expires_at, r.seq LIMIT $3`,
      [merchantId, new Date(dueAtMs).toISOString(), limit],
    );
  }

  dueScenarios(merchantId: string, dueAtMs: number, limit: number): Promise<TransactionRecord[]> {
    return this.many(
      'transactions',
      `WHERE r.merchant_id = $1 AND r.status = 'PENDING' AND r.scenario_due_at IS NOT NULL AND r.scenario_due_at <= $2
       ORDER BY r.scenario_due_at, r.seq LIMIT $3`,
      [merchantId, new Date(dueAtMs).toISOString(), limit],
    );
  }

  async pendingMerchants(): Promise<string[]> {
    // A skip scan of the pending-expiry index: one probe per merchant, not one row per transaction.
    const { rows } = await this.run(
      `WITH RECURSIVE m(merchant_id) AS (
         SELECT (SELECT merchant_id FROM transactions WHERE status = 'PENDING' ORDER BY merchant_id LIMIT 1)
         UNION ALL
         SELECT (SELECT t.merchant_id FROM transactions t WHERE t.status = 'PENDING' AND t.merchant_id > m.merchant_id
                 ORDER BY t.merchant_id LIMIT 1)
         FROM m WHERE m.merchant_id IS NOT NULL)
       SELECT merchant_id FROM m WHERE merchant_id IS NOT NULL`,
    );
    return rows.map((r) => r.merchant_id as string);
  }

  async paymentIntentCount(sessionId: string): Promise<number> {
    const { rows } = await this.run('SELECT count(*) AS n FROM payment_intents WHERE session_id = $1', [sessionId]);
    return Number(rows[0]?.n ?? 0);
  }

  async count(c: CollectionName, merchantId?: string): Promise<number> {
    const t = this.tables[c];
    const { rows } = await this.run(
      `SELECT count(*) AS n FROM ${t.name}${merchantId === undefined ? '' : ' WHERE merchant_id = $1'}`,
      merchantId === undefined ? [] : [merchantId],
    );
    return Number(rows[0]?.n ?? 0);
  }
}

/**
 * A transaction's reads and its buffered writes, which the store applies in order: whole-record
 * puts and deletes, and the deletes of a merchant's records (the sandbox reset).
 */
export abstract class SqlTx extends SqlReads implements RepositoryTx {
  ops: Array<{ change: Change } | { merchantId: string; collections: CollectionName[] }> = [];
  abstract lock<C extends CollectionName>(c: C, k: string): Promise<Collections[C] | undefined>;
  abstract lockByVendorReference(merchantId: string, vendorReference: string): Promise<TransactionRecord | undefined>;
  write(changes: Change[]): void {
    for (const change of changes) this.ops.push({ change }); // one at a time: a spread of a large batch would overflow the stack
  }
  deleteMerchantData(merchantId: string, collections: CollectionName[]): void {
    this.ops.push({ merchantId, collections });
  }
}

/**
 * What both repositories keep beside their reads: the change listeners (`subscribe`; `tell` calls
 * each with every notice, a listener that throws is reported and the others still called), and
 * the instant until which writes are refused after the store failed one (ADR-026), on `wallNow`.
 */
export abstract class SqlRepository extends SqlReads {
  protected readonly listeners = new Set<(notice: ChangeNotice) => void>();
  /** Writes are refused until then (epoch ms). */
  protected downUntil = 0;

  constructor(protected readonly wallNow: () => number = Date.now) {
    super();
  }

  subscribe(listener: (notice: ChangeNotice) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  protected tell(notices: readonly ChangeNotice[]): void {
    for (const n of notices)
      for (const l of this.listeners) {
        try {
          l(n);
        } catch (e) {
          process.emitWarning(`paylater store: a change listener threw: ${(e as Error).message}`);
        }
      }
  }

  unavailableFor(): number | null {
    const left = this.downUntil - this.wallNow();
    return left > 0 ? Math.ceil(left / 1000) : null;
  }
}
