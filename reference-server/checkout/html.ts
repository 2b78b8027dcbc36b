/** HTML helpers of the checkout router: the strict Content-Security-Policy and the page shell. */
import { escapeHtml } from '../../lib/html.ts';

/**
 * The CSP of every page this router serves: scripts and styles only as files from this
 * origin (no 'unsafe-inline', no 'unsafe-eval'), fetches only to this origin, no plugins, no
 * framing, no <base> hijack, forms only to this origin.
 */
export const STRICT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': STRICT_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

export function page(opts: {
  title: string;
  lang?: string;
  styles: string[];
  scripts: string[];
  body: string;
  bodyClass?: string;
}): string {
  const css = opts.styles.map((h) => `<link rel="stylesheet" href="${escapeHtml(h)}">`).join('\n    ');
  const js = opts.scripts.map((s) => `<script src="${escapeHtml(s)}" defer></script>`).join('\n    ');
  return `<!doctype html>
<html lang="${escapeHtml(opts.lang ?? 'en')}">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(opts.title)}</title>
    ${css}
    ${js}
  </head>
  <body${opts.bodyClass ? ` class="${escapeHtml(opts.bodyClass)}"` : ''}>
${opts.body}
  </body>
</html>
`;
}
