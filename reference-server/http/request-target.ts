/**
 * What every request goes through: `securityHeaders` first (every answer carries
 * `X-Content-Type-Options: nosniff`), then, after the API router (whose operations name the
 * failing path parameter themselves), `requestTargetGuard`: a request target (path or query)
 * with malformed percent-encoding answers 400 `VALIDATION_ERROR` in the declared shape, so no
 * page route decodes it later and throws.
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
export function securityHeaders(_req: express.Request, res: express.Response, next: express.NextFunction): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
}

/** Runs before the mounted page routes. */
export function requestTargetGuard(req: express.Request, res: express.Response, next: express.NextFunction): void {
  if (isWellEncoded(req.url)) {
    next();
    return;
  }
  sendError(
    res,
    new ApiError('VALIDATION_ERROR', 'The request target has malformed percent-encoding', [
      { path: 'url', message: 'is not valid percent-encoding' },
    ]),
  );
}
