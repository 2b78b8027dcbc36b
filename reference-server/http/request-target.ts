/**
 * Checks every request before any route: a request target (path or query) with malformed
 * percent-encoding answers 400 `VALIDATION_ERROR` in the declared shape (no route decodes
 * it later and throws), and every answer carries `X-Content-Type-Options: nosniff`.
 */
import type express from 'express';
import { ApiError, sendError } from './errors.ts';

/** True when every `%` of `text` starts a valid escape and the escapes decode as UTF-8. */
export function isWellEncoded(text: string): boolean {
  if (!text.includes('%')) return true;
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** The first middleware of the app. */
export function requestTargetGuard(req: express.Request, res: express.Response, next: express.NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (isWellEncoded(req.url)) {
    next();
    return;
  }
  sendError(res, new ApiError('VALIDATION_ERROR', 'The request target has malformed percent-encoding', [{ path: 'url', message: 'is not valid percent-encoding' }]));
}
