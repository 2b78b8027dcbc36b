/** What the stores report to the layers above: a store out of reach (ADR-026) and a data file refused at start. */
import { loadBundledDocument } from '../../generated/index.ts';

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
export const storageRetryAfterSeconds: number = (() => {
  const responses = (
    loadBundledDocument(1).components as Record<string, Record<string, { headers?: Record<string, { schema?: { const?: unknown } }> }>>
  ).responses;
  const v = responses?.StorageUnavailable?.headers?.['Retry-After']?.schema?.const;
  if (typeof v !== 'number') throw new Error('spec: StorageUnavailable has no Retry-After const');
  return v;
})();

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
