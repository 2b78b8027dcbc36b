/**
 * Typed API errors (ADR-001). Every endpoint of the contract answers
 * `{ "error": { "code", "message", "details"?, "retry_after"? } }`; the two other shapes the
 * seed shows (`{ "error": { "message" } }` and `{ "error": "<text>" }`) and bodies that are not
 * JSON at all are read too, with `code: null`, so one handler serves every integration.
 */
import { errorCatalog } from '../../generated/index.ts';

/** A stable error code of the contract's catalogue (`ErrorCode`). */
export type ErrorCode = keyof typeof errorCatalog;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class PayLaterApiError extends Error {
  override readonly name = 'PayLaterApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** The contract's error code, or `null` when the body carried none (other shapes, non-JSON). */
  readonly code: ErrorCode | null;
  /** One entry per failing field, for validation errors. */
  readonly details?: ErrorDetail[];
  /** Seconds to wait before retrying (429): `error.retry_after`, else the `Retry-After` header. */
  readonly retryAfter?: number;
  /** The operation that failed, when known. */
  readonly operationId?: string;

  constructor(init: {
    status: number;
    code: ErrorCode | null;
    message: string;
    details?: ErrorDetail[];
    retryAfter?: number;
    operationId?: string;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    if (init.details !== undefined) this.details = init.details;
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
    if (init.operationId !== undefined) this.operationId = init.operationId;
  }
}

const KNOWN_CODES = new Set<string>(Object.keys(errorCatalog));

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseRetryAfterHeader(value: string | null | undefined): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function parseDetails(v: unknown): ErrorDetail[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ErrorDetail[] = [];
  for (const d of v) {
    if (isRecord(d) && typeof d.path === 'string' && typeof d.message === 'string') {
      out.push({ path: d.path, message: d.message });
    }
  }
  return out;
}

/**
 * Builds the typed error of a non-2xx answer. `body` is the parsed JSON body, or the raw text
 * when it was not JSON (as openapi-fetch hands it over), or undefined when empty.
 */
export function parseApiError(status: number, body: unknown, headers?: Headers, operationId?: string): PayLaterApiError {
  let parsed = body;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      /* plain text body: kept as text below */
    }
  }
  let code: ErrorCode | null = null;
  let message = `HTTP ${status}`;
  let details: ErrorDetail[] | undefined;
  let retryAfter = parseRetryAfterHeader(headers?.get('retry-after'));
  if (isRecord(parsed) && 'error' in parsed) {
    const err = parsed.error;
    if (isRecord(err)) {
      // {error: {code, message, details?, retry_after?}} or {error: {message}}
      if (typeof err.code === 'string' && KNOWN_CODES.has(err.code)) code = err.code as ErrorCode;
      if (typeof err.message === 'string' && err.message.length > 0) message = err.message;
      details = parseDetails(err.details);
      if (typeof err.retry_after === 'number' && Number.isInteger(err.retry_after) && err.retry_after >= 0) {
        retryAfter = err.retry_after;
      }
    } else if (typeof err === 'string' && err.length > 0) {
      // {error: "<text>"}
      message = err;
    }
  } else if (typeof parsed === 'string' && parsed.trim().length > 0) {
    message = `HTTP ${status}: ${parsed.trim().slice(0, 200)}`;
  }
  return new PayLaterApiError({
    status,
    code,
    message,
    ...(details !== undefined ? { details } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(operationId !== undefined ? { operationId } : {}),
  });
}
