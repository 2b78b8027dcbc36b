/**
 * What the SDK and the hosted checkout page exchange.
 *
 * The session token travels to the hosted page in the URL **fragment** (`#st=…`): browsers
 * never send the fragment to a server (not in the request line, not in `Referer`), so it
 * never lands in access logs or proxies. The page reads it, keeps it in `sessionStorage`
 * for reloads, and removes it from the address bar with `history.replaceState`.
 *
 * Popup flow: the page posts its result to `window.opener` with the exact target origin
 * the SDK gave (`origin`, checked against the merchant's allowed origins when the payment
 * intent was created); the SDK accepts only messages whose `source` is its popup and whose
 * `origin` is the checkout page's origin.
 */
import { maxPaymentIntentUrlLength } from '../generated/contract.ts';
import type { V2 } from '../generated/index.ts';

/** The flows of the spec's `PaymentIntentRequest.flow` enum. */
export type Flow = NonNullable<V2.components['schemas']['PaymentIntentRequest']['flow']>;
const FLOWS: Record<Flow, true> = { redirect: true, popup: true, button: true };

function isFlow(v: unknown): v is Flow {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(FLOWS, v);
}

export interface CheckoutFragment {
  st: string;
  flow: Flow;
  locale: string;
  /** Merchant page origin (popup / button flows): the postMessage target. */
  origin?: string;
  /** Where to return (redirect flow), as sent to and accepted by the payment intent. */
  redirect_url?: string;
}

export function encodeFragment(f: CheckoutFragment): string {
  const p = new URLSearchParams();
  p.set('st', f.st);
  p.set('flow', f.flow);
  p.set('locale', f.locale);
  if (f.origin !== undefined) p.set('origin', f.origin);
  if (f.redirect_url !== undefined) p.set('redirect_url', f.redirect_url);
  return p.toString();
}

export function decodeFragment(hash: string): CheckoutFragment | null {
  const p = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const st = p.get('st');
  const flow = p.get('flow');
  if (!st || !isFlow(flow)) return null;
  const out: CheckoutFragment = { st, flow, locale: p.get('locale') ?? 'en' };
  const origin = p.get('origin');
  const redirect = p.get('redirect_url');
  if (origin !== null) out.origin = origin;
  if (redirect !== null) out.redirect_url = redirect;
  return out;
}

export const MESSAGE_SOURCE = 'paylater-checkout';

export type CheckoutMessage =
  | { source: typeof MESSAGE_SOURCE; type: 'completed'; transaction_id?: string; status: 'SUCCESS' | 'FAILED' }
  | { source: typeof MESSAGE_SOURCE; type: 'cancelled'; reason: 'user_cancelled'; transaction_id?: string };

export function isCheckoutMessage(data: unknown): data is CheckoutMessage {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  if (d.source !== MESSAGE_SOURCE) return false;
  if (d.transaction_id !== undefined && typeof d.transaction_id !== 'string') return false;
  if (d.type === 'completed') return d.status === 'SUCCESS' || d.status === 'FAILED';
  if (d.type === 'cancelled') return d.reason === 'user_cancelled';
  return false;
}

/**
 * An absolute http(s) URL without userinfo, at most as long as a payment intent takes one, or
 * null. Used before any navigation the browser code does to a URL it received (a server answer),
 * as a second line behind the server's ADR-017 check: `javascript:`, `data:`, `//host` and
 * `user@host` forms never pass.
 */
export function safeHttpUrl(value: unknown): URL | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxPaymentIntentUrlLength) return null;
  if (!/^https?:\/\//i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '') return null;
  return url;
}
