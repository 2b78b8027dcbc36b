/** ADR-017: where checkout may send the shopper back. Pure. */

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Normalises an allowed origin from configuration (`scheme://host[:port]`), or null when it is not one. */
export function normaliseOrigin(text: string): string | null {
  if (typeof text !== 'string' || /[\s\\]/.test(text)) return null;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.username || u.password) return null;
  if (u.origin !== text.replace(/\/$/, '').toLowerCase() && u.origin !== text.replace(/\/$/, '')) return null;
  return u.origin;
}

function allowedScheme(u: URL, sandbox: boolean): boolean {
  if (u.protocol === 'https:') return true;
  return sandbox && u.protocol === 'http:' && LOOPBACK.has(u.hostname);
}

/** True when `url` is an absolute http(s) URL whose origin is exactly one of `allowed`. */
export function isAllowedRedirect(url: string, allowed: readonly string[], sandbox: boolean): boolean {
  if (typeof url !== 'string' || url.length === 0 || /[\s\\\u0000-\u001f]/.test(url)) return false;
  if (!/^https?:\/\/[^/]/i.test(url)) return false; // absolute, no protocol-relative or opaque forms
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  if (!allowedScheme(u, sandbox)) return false;
  return allowed.includes(u.origin);
}

/** True when `origin` is exactly `scheme://host[:port]` and one of `allowed`. */
export function isAllowedOrigin(origin: string, allowed: readonly string[], sandbox: boolean): boolean {
  const o = normaliseOrigin(origin);
  if (o === null || o !== origin) return false;
  const u = new URL(o);
  return allowedScheme(u, sandbox) && allowed.includes(o);
}

/**
 * `redirect_url` with `status` and (when any) `transaction_id` added.
 * @rule redirect-return
 */
export function withRedirectParams(url: string, status: string, transactionId: string | null): string {
  const u = new URL(url);
  u.searchParams.set('status', status);
  // Any `transaction_id` already in the URL is replaced or removed: only the service sets it.
  if (transactionId) u.searchParams.set('transaction_id', transactionId);
  else u.searchParams.delete('transaction_id');
  return u.toString();
}
