/**
 * The one error body of every endpoint (ADR-001) and the answers the router builds itself:
 * a declared refusal (`ApiError`), the 405 of ADR-024, the 413 of `x-max-body-bytes`, the 501
 * of an operation without a handler (ADR-050), and the compiled checks' failures mapped to the
 * contract's codes (ADR-002: the `x-error-code` of the nearest schema).
 */
import type { ServerResponse } from 'node:http';
import { errorMessage } from '../lib/error-messages.ts';
import { errorCatalog, firstByPrecedence, maxBodyBytes, maxErrorDetails, type ErrorCode } from '../generated/contract.ts';
import { nearestExtension } from './schema.ts';

export type { ErrorCode } from '../generated/contract.ts';

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; retry_after?: number };
}

/**
 * A declared refusal as a plain value: what `refusalOf` works out and the judge compares. An
 * `ApiError` is one too; a refusal that is only compared, never thrown, is not made one, since an
 * `Error` captures its stack when made (6–10 µs each, where this is a fraction of one).
 */
export interface Refusal {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}

/**
 * A declared refusal: its code's one status (`x-status`) and the one body `{ error: { code, message } }`.
 * Thrown by a handler or by `authenticate`, the router answers it.
 * @rule error-shape, ADR-001
 */
export class ApiError extends Error implements Refusal {
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
  /** `r` as an error to throw or send. */
  static of(r: Refusal): ApiError {
    return new ApiError(r.code, r.message, r.details);
  }
  body(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details && this.details.length > 0) error.details = this.details;
    if (this.retryAfter !== undefined) error.retry_after = this.retryAfter;
    return { error };
  }
}

/** Sends `e` in the declared error shape. */
export function sendError(res: ServerResponse, e: ApiError): void {
  if (e.headers) for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
  if (e.code === 'PAYLOAD_TOO_LARGE') res.setHeader('Connection', 'close');
  res.statusCode = e.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(e.body()));
}

/** Last-resort 500 that bypasses response validation (used when validation itself failed). */
export function sendInternal(res: ServerResponse): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: errorMessage('INTERNAL_ERROR') } });
  res.statusCode = 500;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(body);
}

/** The 413 answer, its message stating `x-max-body-bytes` in kB as the spec's example does (lint checks the example). */
export function payloadTooLarge(): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', errorMessage('PAYLOAD_TOO_LARGE', { kB: maxBodyBytes / 1024 }));
}

/** The 405 of ADR-024: `method` is not served at `path`, which serves `allow`. */
export function methodNotAllowed(method: string, path: string, allow: readonly string[]): ApiError {
  return new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}; use ${allow.join(', ')}`, undefined, {
    Allow: allow.join(', '),
  });
}

/** The code of the 501 of an operation without a handler: outside `ErrorCode`, so never a conformant answer (ADR-050). */
export const NOT_IMPLEMENTED = 'NOT_IMPLEMENTED';

/**
 * The 501 of an operation the server has no handler for, in the error shape: no operation
 * declares it, so `paylater conform` reports it, naming the operation (ADR-050).
 */
export function sendNotImplemented(res: ServerResponse, operationId: string): void {
  res.statusCode = 501;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ error: { code: NOT_IMPLEMENTED, message: `Operation ${operationId} is not implemented` } }));
}

/** One failing part of a request: where (`/body/items/0/price`, `/query/limit`, `/params/id`, `/headers/…`) and why (ajv's words). */
export interface RequestFailure {
  path: string;
  message: string;
}

/**
 * The declared answer of a request the compiled checks refuse (server/validate.ts). Each failing
 * body member carries the `x-error-code` of the nearest schema that declares one
 * (`requestSchema` of `doc`); `members` adds the failures of member rules the schema cannot
 * state (a validation `x-amount-range`). The answer takes the code that comes first in
 * `x-error-precedence`'s `members` (ADR-057), the first failure with it gives the message, and
 * `details` lists the failures (its own first, at most `maxErrorDetails`).
 * @rule a1-required-fields, a1-currency, a1-items, b1-validation, ADR-002, ADR-012, ADR-057
 */
export function refusalOf(
  errors: readonly RequestFailure[],
  doc: Record<string, unknown> | null,
  requestSchema: unknown,
  members: readonly Refusal[] = [],
): Refusal {
  const failures: Array<{ code: ErrorCode; message: string; details: ErrorDetail[] }> = [];
  for (const x of errors) {
    const p = x.path;
    const msg = x.message;
    let detailPath = p;
    let code: ErrorCode = 'VALIDATION_ERROR';
    const m = /^\/(body|params|query|headers)(?:\/(.*))?$/.exec(p);
    if (m) {
      const where = m[1]!;
      const rest = m[2] ?? '';
      if (where === 'body') {
        detailPath = `/${rest}`;
        if (doc && requestSchema) {
          const found = nearestExtension(doc, requestSchema, rest === '' ? [] : rest.split('/'), 'x-error-code');
          if (typeof found === 'string' && found in errorCatalog) code = found as ErrorCode;
        }
      } else {
        detailPath = `${where === 'params' ? 'path' : where === 'headers' ? 'header' : 'query'}.${rest}`;
      }
    }
    const detail = { path: detailPath, message: msg };
    failures.push({ code, message: `${detailPath.replace(/^\//, '').replace(/\//g, '.') || 'request body'} ${msg}`, details: [detail] });
  }
  for (const r of members) failures.push({ code: r.code, message: r.message, details: r.details ?? [] });
  if (failures.length === 0) return { code: 'VALIDATION_ERROR', message: 'Invalid request', details: [] };
  // the first failure of the best-ranked code (a stable choice: ties keep the validator's order)
  const win = firstByPrecedence(failures, (f) => f.code);
  // the winner's details first; at most maxErrorDetails (a body of 100 kB can fail in thousands of places)
  const details = [win, ...failures.filter((f) => f !== win)].flatMap((f) => f.details).slice(0, maxErrorDetails);
  return { code: win.code, message: win.message, details };
}

/**
 * The JSON 404 of a request that matched no operation: mount it after the router.
 * @rule ADR-016
 */
export function routeNotFound(req: { method?: string; path?: string; url?: string }, res: ServerResponse): void {
  sendError(res, new ApiError('ROUTE_NOT_FOUND', `No operation ${req.method} ${req.path ?? req.url?.split('?')[0]}`));
}
