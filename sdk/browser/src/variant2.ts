/**
 * Variant 2 (current): `Service.Payments.init({ session_token, redirect_url, locale })`,
 * `Service.Payments.load(container)`, `Service.Payments.startFlow()`. Redirect flow to the hosted
 * page; the shopper comes back to redirect_url with
 * `?status=SUCCESS|FAILED|CANCELLED&transaction_id=…` (ADR-014). The popup flow (deprecated:
 * init without redirect_url, or flow 'popup') reports to `window.PaymentCallback(response)`.
 */
import type { Flow } from '../../../lib/checkout-protocol.ts';
import { Checkout, type Outcome } from './checkout.ts';
import { ERRORS, initialised, requireSessionToken, resolveApiBase, resolveContainer, resolveLocale } from './options.ts';

export interface PaymentsInitOptions {
  session_token: string;
  redirect_url?: string;
  locale?: string;
  /** 'redirect' (default when redirect_url is given) or the deprecated 'popup'. */
  flow?: 'redirect' | 'popup';
  /** Override of the API base address (defaults to the origin the SDK was loaded from). */
  api_base_url?: string;
}

export type PaymentCallbackResponse =
  | { event: 'payment_flow_completed'; transaction_id?: string; status: 'SUCCESS' | 'FAILED' }
  | { event: 'payment_flow_cancelled'; reason: 'overlay_close' | 'popup_closed' | 'user_cancelled'; transaction_id?: string };

const DEPRECATION =
  'PayLater: the popup flow is deprecated and will be removed; use the redirect flow (Service.Payments.init with redirect_url).';

let deprecationLogged = false;
function logPopupDeprecation(): void {
  if (deprecationLogged) return;
  deprecationLogged = true;
  console.warn(DEPRECATION);
}

function callPaymentCallback(response: PaymentCallbackResponse): void {
  const cb = (window as unknown as { PaymentCallback?: unknown }).PaymentCallback;
  if (typeof cb === 'function') (cb as (r: PaymentCallbackResponse) => void)(response);
  else console.warn('PayLater: define window.PaymentCallback to receive the popup flow result.', response);
}

/**
 * The popup flow's result to `window.PaymentCallback`: completed (with the transaction when one
 * was created) or cancelled with its reason. The failures are alerted by the checkout.
 * @rule sdk-popup-callback
 */
function report(o: Outcome): void {
  switch (o.kind) {
    case 'blocked':
    case 'intent_failed':
      return;
    case 'completed':
      callPaymentCallback({
        event: 'payment_flow_completed',
        status: o.status,
        ...(o.transactionId ? { transaction_id: o.transactionId } : {}),
      });
      return;
    case 'cancelled':
      callPaymentCallback({
        event: 'payment_flow_cancelled',
        reason: o.reason,
        ...(o.transactionId ? { transaction_id: o.transactionId } : {}),
      });
      return;
  }
}

let payments: Checkout | null = null;

export const Payments = {
  init(options: PaymentsInitOptions): void {
    const o = (options ?? {}) as Partial<PaymentsInitOptions>;
    const token = requireSessionToken(o.session_token, ERRORS.sessionTokenRequired);
    const flow: Flow = o.flow ?? (o.redirect_url !== undefined ? 'redirect' : 'popup');
    if (flow === 'popup') logPopupDeprecation();
    payments = new Checkout(
      {
        token,
        locale: resolveLocale(o.locale),
        flow,
        ...(o.redirect_url !== undefined ? { redirectUrl: String(o.redirect_url) } : {}),
        apiBase: resolveApiBase(o.api_base_url),
      },
      report,
    );
  },
  load(container: string | Element): void {
    initialised(payments).render(resolveContainer(container));
  },
  startFlow(): void {
    initialised(payments).start();
  },
};
