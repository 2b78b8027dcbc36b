/** The one error body of every endpoint (ADR-001) and the error → answer mapping. */
import { errorMessage } from '../../lib/error-messages.ts';
import type express from 'express';
import { errorCatalog, maxBodyBytes, type ErrorCode } from '../../generated/contract.ts';
import type { Ctx } from '../handlers/context.ts';
import { nearestExtension } from './operations.ts';
import { StoreUnavailableError } from '../store/errors.ts';

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * A declared refusal: its code's one status (`x-status`) and the one body `{ error: { code, message } }`.
 * @rule error-shape, ADR-001
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.status = errorCatalog[code].status;
  }
  body(): { error: { code: ErrorCode; message: string; details?: ErrorDetail[]; retry_after?: number } } {
    const error: { code: ErrorCode; message: string; details?: ErrorDetail[]; retry_after?: number } = {
      code: this.code,
      message: this.message,
    };
    if (this.details && this.details.length > 0) error.details = this.details;
    if (this.retryAfter !== undefined) error.retry_after = this.retryAfter;
    return { error };
  }
}

export const notFound = () => new ApiError('TRANSACTION_NOT_FOUND', errorMessage('TRANSACTION_NOT_FOUND'));
export const invalidKey = (why = errorMessage('INVALID_API_KEY')) => new ApiError('INVALID_API_KEY', why);
export const invalidToken = () => new ApiError('INVALID_SESSION_TOKEN', errorMessage('INVALID_SESSION_TOKEN'));

/** Sends `e` in the declared error shape; `check` (the operation's response validation) may throw. */
export function sendError(res: express.Response, e: ApiError, check?: (body: unknown) => unknown): void {
  if (e.headers) res.set(e.headers);
  if (e.code === 'PAYLOAD_TOO_LARGE') res.set('Connection', 'close');
  res.status(e.status);
  const body = e.body();
  res.json(check ? check(body) : body);
}

/** Last-resort 500 that bypasses response validation (used when validation itself failed). */
export function sendInternal(res: express.Response): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: errorMessage('INTERNAL_ERROR') } });
  res.status(500).set('Content-Type', 'application/json; charset=utf-8').end(body);
}

/** An error of express-openapi-validator (request validation, unknown route, media type, size). */
interface ValidatorError {
  status?: number;
  errors?: Array<{ path?: string; message?: string }>;
  message?: string;
}

/**
 * Maps any error to the declared answer, or null for a genuine server problem. A failing
 * body field answers the `x-error-code` of the nearest schema that declares one.
 * @rule a1-required-fields, a1-currency, a1-items, b1-validation, ADR-002, ADR-012
 */
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
  const e = err as ValidatorError;
  const status = e?.status;
  if (typeof status !== 'number' || !Array.isArray(e.errors)) return null;
  // The router answers 405 (ADR-024) before the validator runs; a validator 404 means no route matched.
  if (status === 404) return new ApiError('ROUTE_NOT_FOUND', e.message ?? 'not found');
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE', errorMessage('UNSUPPORTED_MEDIA_TYPE'));
  if (status === 413) return payloadTooLarge();
  if (status !== 400) return null; // 500: response validation failed — a bug, logged by the caller
  const details: ErrorDetail[] = [];
  let code: ErrorCode = 'VALIDATION_ERROR';
  let first = true;
  for (const x of e.errors) {
    const p = x.path ?? '';
    const msg = x.message ?? 'is invalid';
    let detailPath = p;
    const m = /^\/(body|params|query|headers)(?:\/(.*))?$/.exec(p);
    if (m) {
      const where = m[1]!;
      const rest = m[2] ?? '';
      if (where === 'body') {
        detailPath = `/${rest}`;
        if (first && ctx?.op.requestSchema) {
          const found = nearestExtension(ctx.doc, ctx.op.requestSchema, rest === '' ? [] : rest.split('/'), 'x-error-code');
          if (typeof found === 'string' && found in errorCatalog) code = found as ErrorCode;
        }
      } else {
        detailPath = `${where === 'params' ? 'path' : where === 'headers' ? 'header' : 'query'}.${rest}`;
      }
    }
    details.push({ path: detailPath, message: msg });
    first = false;
  }
  const head = details[0];
  const message = head
    ? `${head.path.replace(/^\//, '').replace(/\//g, '.') || 'request body'} ${head.message}`
    : (e.message ?? 'Invalid request');
  return new ApiError(code, message, details);
}

/** The 413 answer, its message stating `x-max-body-bytes` in kB as the spec's example does (lint checks the example). */
export function payloadTooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', errorMessage('PAYLOAD_TOO_LARGE', { kB: maxBodyBytes / 1024 }));
}

/**
 * The JSON 404 of a request that matched no operation and no mounted route.
 * @rule ADR-016
 */
export function routeNotFound(req: express.Request, res: express.Response): void {
  sendError(res, new ApiError('ROUTE_NOT_FOUND', `No operation ${req.method} ${req.path}`));
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
        sendError(res, mapped, ctx ? (body) => checkResponse(ctx, req, res, body) : undefined);
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
