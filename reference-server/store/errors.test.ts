import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { failureOf } from './errors.ts';

/** What `node:sqlite` throws for `sql` (run after `setup`). */
function sqliteError(setup: string, sql: string): unknown {
  const db = new DatabaseSync(':memory:');
  db.exec(setup);
  try {
    db.exec(sql);
  } catch (e) {
    return e;
  } finally {
    db.close();
  }
  throw new Error(`${sql} did not fail`);
}

/** An error as `pg` gives it: a message and a SQLSTATE or network `code`. */
const pgError = (code: string | undefined, message = 'from the database') => Object.assign(new Error(message), { code });

describe('failureOf: one reading of both drivers’ errors', () => {
  it('PostgreSQL: a unique violation, a serialization failure, a deadlock are conflicts (the work is run again)', () => {
    for (const code of ['23505', '40001', '40P01']) expect(failureOf(pgError(code))).toBe('conflict');
  });

  it('PostgreSQL out of reach, shutting down or full is unavailable (ADR-026); any other error goes up as it is', () => {
    for (const code of ['57P01', '57P03', '53300', '08006', 'ECONNREFUSED', 'ETIMEDOUT'])
      expect(failureOf(pgError(code))).toBe('unavailable');
    expect(failureOf(pgError(undefined, 'Connection terminated unexpectedly'))).toBe('unavailable');
    for (const code of ['23502', '42P01', '22P02']) expect(failureOf(pgError(code))).toBeNull();
  });

  it('SQLite: a unique violation is no race (one transaction at a time) and goes up as it is; a held lock is busy; a failed disk is unavailable', () => {
    const unique = sqliteError('CREATE TABLE t (k TEXT UNIQUE); INSERT INTO t VALUES (1)', 'INSERT INTO t VALUES (1)');
    expect((unique as { errcode?: number }).errcode).toBe(2067); // SQLITE_CONSTRAINT_UNIQUE
    expect(failureOf(unique)).toBeNull();
    expect(failureOf(Object.assign(new Error('database is locked'), { errcode: 5 }))).toBe('busy');
    for (const errcode of [10, 13, 14, 10 | (4 << 8)]) expect(failureOf(Object.assign(new Error('disk'), { errcode }))).toBe('unavailable');
    expect(failureOf(sqliteError('', 'SELECT * FROM missing'))).toBeNull();
  });
});
