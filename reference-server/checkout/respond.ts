/** Express responders shared by the checkout router and the demo shop. */
import { readFile } from 'node:fs/promises';
import type { Response } from 'express';
import { SECURITY_HEADERS, STRICT_CSP } from './html.ts';

export const MISSING_BUILD = 'The browser bundles are not built: run `npm run build`.';

/** 404 in the API's error shape. */
export function notFoundJson(res: Response, message: string): void {
  res
    .status(404)
    .type('application/json')
    .send(JSON.stringify({ error: { code: 'ROUTE_NOT_FOUND', message } }));
}

/** An HTML page with the security headers and `csp` (the strict CSP unless widened), never cached. */
export function sendHtml(res: Response, html: string, csp = STRICT_CSP, status = 200): void {
  res.status(status);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('Cache-Control', 'no-store');
  res.type('text/html; charset=utf-8').send(html);
}

/** A built or static file, cross-origin readable (the SDK is loaded from merchant pages); 404 `missing` when absent. */
export async function sendFile(res: Response, file: string, type: string, cache: string, missing: string): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    notFoundJson(res, missing);
    return;
  }
  res.setHeader('Cache-Control', cache);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.type(type).send(body);
}
