/** The reference server's refusals and its last express error handler; the error shape itself is server/errors.ts. */
import { errorMessage } from '../../lib/error-messages.ts';
import type express from 'express';
import { ApiError, sendError, sendInternal } from '../../server/errors.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import { bodyParserRefusal } from './page-body.ts';

export { ApiError, routeNotFound, sendError } from '../../server/errors.ts';

export const notFound = () => new ApiError('TRANSACTION_NOT_FOUND', errorMessage('TRANSACTION_NOT_FOUND'));
export const invalidKey = (why = errorMessage('INVALID_API_KEY')) => new ApiError('INVALID_API_KEY', why);
export const invalidToken = () => new ApiError('INVALID_SESSION_TOKEN', errorMessage('INVALID_SESSION_TOKEN'));

/** The answer of a store that cannot write (ADR-026), or null for any other error. */
export function mapStoreError(err: unknown): ApiError | null {
  if (!(err instanceof StoreUnavailableError)) return null;
  const s = err.retryAfterSeconds;
  return new ApiError(
    'STORAGE_UNAVAILABLE',
    `Storage is unavailable, retry after ${s} seconds`,
    undefined,
    { 'Retry-After': String(s) },
    s,
  );
}

/**
 * The last express error handler, for the routes beside the API (the API's errors are answered
 * by its router): the declared answer (a declared refusal, a store that cannot write, a body
 * parser's refusal), or a logged 500 for anything else.
 */
export function createErrorHandler(log: (line: string) => void): express.ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const mapped = err instanceof ApiError && err.code !== 'INTERNAL_ERROR' ? err : (mapStoreError(err) ?? bodyParserRefusal(err));
    if (mapped) {
      sendError(res, mapped);
      return;
    }
    log(`INTERNAL_ERROR on ${req.method} ${req.path}: ${(err as Error)?.stack ?? JSON.stringify(err)}`);
    sendInternal(res);
  };
}
