/**
 * The shared records ↔ rows (`../rows.ts`) as the PostgreSQL store reads them: `pg` returns
 * `timestamptz` as a Date, `json` parsed and booleans as booleans; an outbox row's attempts are
 * aggregated with `json_agg`.
 */
import type { CollectionName, Collections, OutboxEvent } from '../../domain/types.ts';
import { TABLES as SHARED, rowValues, upsertSql, type Decode, type Table as SharedTable } from '../rows.ts';
import type { SqlTable, SqlTables } from '../sql-reads.ts';

export { isKeyOf, WRITE_ORDER } from '../rows.ts';

const decode: Decode = {
  time: (v) => (v as Date).toISOString(),
  bool: (v) => v as boolean,
  json: (v) => v,
};

export type Table<C extends CollectionName> = SqlTable<C>;

function pg<C extends CollectionName>(t: SharedTable<C>, select = 'r.*'): Table<C> {
  return { ...t, select, record: (row) => t.record(row, decode) };
}

export const TABLES: SqlTables = {
  transactions: pg(SHARED.transactions),
  sessions: pg(SHARED.sessions),
  paymentIntents: pg(SHARED.paymentIntents),
  sms: pg(SHARED.sms),
  outbox: pg(
    SHARED.outbox,
    `r.*, COALESCE((SELECT json_agg(a.detail ORDER BY a.attempt) FROM webhook_attempts a WHERE a.outbox_id = r.id), '[]'::json) AS attempts`,
  ),
  merchantState: pg(SHARED.merchantState),
};

/** `INSERT … ON CONFLICT (key) DO UPDATE` of one record of `c`, as text and parameters (a written outbox row's claim ends). */
export function upsert<C extends CollectionName>(c: C, v: Collections[C]): { text: string; values: unknown[] } {
  return { text: upsertSql(c, c === 'outbox' ? ['claimed_until = NULL'] : []), values: rowValues(c, v) };
}
/** Attempts are appended only: insert the new ones (numbered from 1), drop any beyond the record's. */
export function attemptStatements(e: OutboxEvent): Array<{ text: string; values: unknown[] }> {
  const out: Array<{ text: string; values: unknown[] }> = [];
  if (e.attempts.length > 0)
    out.push({
      text: `INSERT INTO webhook_attempts (outbox_id, attempt, detail)
             SELECT $1, x.n, x.d FROM json_array_elements($2::json) WITH ORDINALITY AS x(d, n)
             ON CONFLICT (outbox_id, attempt) DO NOTHING`,
      values: [e.id, JSON.stringify(e.attempts)],
    });
  out.push({ text: 'DELETE FROM webhook_attempts WHERE outbox_id = $1 AND attempt > $2', values: [e.id, e.attempts.length] });
  return out;
}
