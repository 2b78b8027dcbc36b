/**
 * What a PostgreSQL error means to the repository: a conflict the database detected (rerun the
 * transaction), or the database out of reach (ADR-026: `StoreUnavailableError`, 503 with
 * `Retry-After`). Anything else is a bug and goes up as it is.
 */

/** unique_violation, serialization_failure, deadlock_detected: the work is run again. */
const CONFLICTS = new Set(['23505', '40001', '40P01']);
/** admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections. */
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const LOST =
  /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed and is not queryable|not queryable/i;

function codeOf(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : '';
}

export function isConflict(e: unknown): boolean {
  return CONFLICTS.has(codeOf(e));
}

/** The connection was refused, lost or timed out, or the server is shutting down or full. */
export function isUnavailable(e: unknown): boolean {
  const code = codeOf(e);
  if (UNAVAILABLE.has(code) || NETWORK.has(code) || code.startsWith('08')) return true;
  return e instanceof Error && LOST.test(e.message);
}
