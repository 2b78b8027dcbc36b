/** The reference server's refusals and its last express error handler; the error shape itself is server/errors.ts. */
import { errorMessage } from '../../lib/error-messages.ts';
import type express from 'express';
import { ApiError, mapValidatorError, sendInternal } from '../../server/errors.ts';
import type { Ctx } from '../handlers/context.ts';
import { StoreUnavailableError } from '../store/store.ts';

export { ApiError, payloadTooLarge, routeNotFound, sendError, sendInternal, type ErrorDetail } from '../../server/errors.ts';

export const notFound = () => new ApiError('TRANSACTION_NOT_FOUND', errorMessage('TRANSACTION_NOT_FOUND'));
export const invalidKey = (why = errorMessage('INVALID_API_KEY')) => new ApiError('INVALID_API_KEY', why);
export const invalidToken = () => new ApiError('INVALID_SESSION_TOKEN', errorMessage('INVALID_SESSION_TOKEN'));

/** Maps any error to the declared answer (the validator's through server/errors.ts), or null for a genuine server problem. */
export function mapError(err: unknown, ctx: Ctx | undefined): ApiError | null {
  if (err instanceof ApiError) return err.code === 'INTERNAL_ERROR' ? null : err;
  if (err instanceof StoreUnavailableError) {
    const s = err.retryAfterSeconds;
    return new ApiError(
      'STORAGE_UNAVAILABLE',
      `Storage is unavailable, retry after ${s} seconds`,
      undefined,
      { 'Retry-After': String(s) },
      s,
    );
  }
  return mapValidatorError(err, ctx?.doc ?? null, ctx?.op.requestSchema ?? null);
}

/**
 * The last express error handler: the declared answer (its body validated against the
 * request's operation by `checkResponse`), or a logged 500 for anything else.
 */
export function createErrorHandler(
  checkResponse: (ctx: Ctx, req: express.Request, res: express.Response, body: unknown) => unknown,
  log: (line: string) => void,
): express.ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) return;
    const ctx = res.locals.ctx as Ctx | undefined;
    let mapped: ApiError | null = null;
    try {
      mapped = mapError(err, ctx);
    } catch (e) {
      log(`error while mapping an error: ${(e as Error).stack ?? String(e)}`);
    }
    if (mapped) {
      try {
        if (mapped.headers) res.set(mapped.headers);
        if (mapped.code === 'PAYLOAD_TOO_LARGE') res.set('Connection', 'close');
        res.status(mapped.status);
        const body = mapped.body();
        res.json(ctx ? checkResponse(ctx, req, res, body) : body);
        return;
      } catch (e) {
        err = e; // the error body broke the contract: a server bug, answered 500 below
      }
    }
    log(
      `INTERNAL_ERROR on ${req.method} ${req.path}: ${(err as Error)?.stack ?? JSON.stringify(err)}${(err as { errors?: unknown }).errors ? ` ${JSON.stringify((err as { errors?: unknown }).errors)}` : ''}`,
    );
    sendInternal(res);
  };
}
