/** HTML helpers of the checkout router: escaping and the strict Content-Security-Policy. */

/** Escapes text for HTML element content and double-quoted attribute values. */
export function esc(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

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

export function page(opts: { title: string; lang?: string; styles: string[]; scripts: string[]; body: string }): string {
  const css = opts.styles.map((h) => `<link rel="stylesheet" href="${esc(h)}">`).join('\n    ');
  const js = opts.scripts.map((s) => `<script src="${esc(s)}" defer></script>`).join('\n    ');
  return `<!doctype html>
<html lang="${esc(opts.lang ?? 'en')}">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${esc(opts.title)}</title>
    ${css}
    ${js}
  </head>
  <body>
${opts.body}
  </body>
</html>
`;
}
