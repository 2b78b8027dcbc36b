/** The one error body of every endpoint (ADR-001) and the error → answer mapping. */
import { errorCatalog, type ErrorCode } from '../../generated/contract.ts';

export interface ErrorDetail {
  path: string;
  message: string;
}

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
    const error: { code: ErrorCode; message: string; details?: ErrorDetail[]; retry_after?: number } = { code: this.code, message: this.message };
    if (this.details && this.details.length > 0) error.details = this.details;
    if (this.retryAfter !== undefined) error.retry_after = this.retryAfter;
    return { error };
  }
}

export const notFound = () => new ApiError('TRANSACTION_NOT_FOUND', 'Transaction not found');
export const invalidKey = (why = 'Invalid API key') => new ApiError('INVALID_API_KEY', why);
export const invalidToken = () => new ApiError('INVALID_SESSION_TOKEN', 'Invalid or expired session token');
