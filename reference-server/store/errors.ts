/**
 * What the stores report to the layers above (a store out of reach, ADR-026; a data file refused
 * at start) and how both read their driver's errors (`failureOf`).
 */
import { specFact } from '../../lib/spec-fact.ts';

/**
 * A write could not be made durable (ENOSPC, EIO, a database out of reach): nothing of it was
 * kept, and writes are refused for `retryAfterSeconds` (ADR-026); then the next write tries again.
 */
export class StoreUnavailableError extends Error {
  constructor(
    cause: unknown,
    readonly retryAfterSeconds: number,
  ) {
    super(`storage write failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}

/** `Retry-After` of the `StorageUnavailable` answer (ADR-026): how long writes are refused after a failed one. */
export const storageRetryAfterSeconds = specFact('#/components/responses/StorageUnavailable/headers/Retry-After/schema/const', 'number');

/** The data file cannot be used: refused at start, naming the file and what to do; nothing in it was changed. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'DataFileError';
  }
}

/**
 * What a database error means to a store, one reading for both drivers (`node:sqlite` gives a
 * numeric `errcode`, `pg` a SQLSTATE `code`):
 * - `conflict`: PostgreSQL refused a write another transaction made invalid (any unique index; a
 *   serialization failure; a deadlock): the work is run again, and reads what the other committed.
 *   SQLite runs one transaction at a time, so a violation there is no race: it goes up as is;
 * - `busy`: another connection holds the SQLite file's lock;
 * - `unavailable`: the store cannot take the write (ADR-026): a disk that failed under SQLite
 *   (SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN), a PostgreSQL out of reach, shutting down or full;
 * - null: the statement failed, a bug: it goes up as it is.
 */
export function failureOf(e: unknown): 'conflict' | 'busy' | 'unavailable' | null {
  const { errcode, code } = (typeof e === 'object' && e !== null ? e : {}) as { errcode?: unknown; code?: unknown };
  const message = (e as Error | undefined)?.message ?? '';
  if (errcode === 5 || /database is locked|SQLITE_BUSY/i.test(message)) return 'busy';
  if (typeof errcode === 'number') return SQLITE_UNAVAILABLE.includes(errcode & 0xff) ? 'unavailable' : null;
  if (typeof code === 'string' && PG_CONFLICTS.has(code)) return 'conflict';
  if (typeof code === 'string' && (PG_UNAVAILABLE.has(code) || NETWORK.has(code) || code.startsWith('08'))) return 'unavailable';
  return /disk is full|disk I\/O error/i.test(message) || (e instanceof Error && LOST.test(message)) ? 'unavailable' : null;
}

/** SQLite's primary result codes SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN. */
const SQLITE_UNAVAILABLE = [10, 13, 14];
/** PostgreSQL: unique_violation, serialization_failure, deadlock_detected. */
const PG_CONFLICTS = new Set(['23505', '40001', '40P01']);
/** PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections (and class 08, the connection's). */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** How `pg` words a connection lost, refused or timed out. */
const LOST =
  /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed and is not queryable|not queryable/i;
