/**
 * One checkout, shared by both variants: the button, the payment intent, then the redirect to
 * the hosted page or the popup flow. The two failures the SDK handles itself (a blocked popup, a
 * failed payment intent) are alerted here; the variant's entry point turns each Outcome into its
 * own events (Variant 1's `on` handlers, Variant 2's `PaymentCallback`).
 */
import { encodeFragment, isCheckoutMessage, type Flow } from '../../../lib/checkout-protocol.ts';
import type { Locale } from '../../../lib/i18n.ts';
import { createIntent, fetchSession, IntentError, type PaymentIntent } from './api.ts';
import { renderPayButton } from './button.ts';
import { ERRORS } from './options.ts';
import { showOverlay } from './overlay.ts';

export interface CheckoutOptions {
  token: string;
  locale: Locale;
  flow: Flow;
  redirectUrl?: string;
  apiBase: string;
}

export type Outcome =
  | { kind: 'completed'; transactionId?: string; status: 'SUCCESS' | 'FAILED' }
  | { kind: 'cancelled'; reason: 'overlay_close' | 'popup_closed' | 'user_cancelled'; transactionId?: string }
  | { kind: 'intent_failed'; error: IntentError }
  | { kind: 'blocked' };

function asIntentError(e: unknown): IntentError {
  return e instanceof IntentError ? e : new IntentError(0, String(e), null);
}

/** How long a closed popup's outcome message may trail its closing, ms. */
const CLOSE_GRACE_MS = 300;

function closeQuietly(popup: Window): void {
  try {
    popup.close();
  } catch {
    /* already closed */
  }
}

export class Checkout {
  private button: HTMLButtonElement | null = null;
  private overlay: HTMLElement | null = null;
  private busy = false;
  private overlayClose: (() => void) | null = null;
  private overlayFocus: (() => void) | null = null;

  constructor(
    private readonly opts: CheckoutOptions,
    private readonly report: (o: Outcome) => void,
  ) {}

  /**
   * Hands `o` to the variant, after the alert of a failure the SDK handles without throwing:
   * a blocked popup (the overlay is already hidden) or a failed payment intent (the button is
   * already re-enabled).
   * @rule sdk-popup-blocked, sdk-intent-failed
   */
  private onOutcome(o: Outcome): void {
    if (o.kind === 'blocked') window.alert(ERRORS.popupBlocked);
    if (o.kind === 'intent_failed') window.alert(`Payment failed: ${o.error.message}`);
    this.report(o);
  }

  /** Renders the button with the 2x/3x/4x preview in `container`. */
  render(container: Element): void {
    const { apiBase, token, locale } = this.opts;
    this.button = renderPayButton(
      container,
      locale,
      () => fetchSession(apiBase, token),
      () => this.start(),
    );
  }

  /** Starts the flow (button click or startFlow()); ignored while one is running. */
  start(): void {
    if (this.busy) return;
    if (this.opts.flow === 'redirect') void this.startRedirect();
    else this.startPopup();
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    if (!this.button) return;
    if (busy) this.button.setAttribute('disabled', '');
    else this.button.removeAttribute('disabled');
  }

  private intent(): Promise<PaymentIntent> {
    const body: Record<string, string> = { flow: this.opts.flow, locale: this.opts.locale };
    if (this.opts.flow === 'redirect') {
      if (this.opts.redirectUrl !== undefined) body.redirect_url = this.opts.redirectUrl;
    } else {
      body.origin = window.location.origin;
    }
    return createIntent(this.opts.apiBase, this.opts.token, body);
  }

  /** The hosted page's address with the session token in the fragment (lib/checkout-protocol.ts). */
  private checkoutHref(checkoutUrl: string): string {
    const url = new URL(checkoutUrl);
    url.hash = encodeFragment({
      st: this.opts.token,
      flow: this.opts.flow,
      locale: this.opts.locale,
      ...(this.opts.flow === 'redirect'
        ? this.opts.redirectUrl !== undefined
          ? { redirect_url: this.opts.redirectUrl }
          : {}
        : { origin: window.location.origin }),
    });
    return url.href;
  }

  private async startRedirect(): Promise<void> {
    this.setBusy(true);
    try {
      const intent = await this.intent();
      window.location.assign(this.checkoutHref(intent.checkout_url));
    } catch (e) {
      this.setBusy(false);
      this.onOutcome({ kind: 'intent_failed', error: asIntentError(e) });
    }
  }

  private startPopup(): void {
    this.setBusy(true);
    this.overlay ??= showOverlay(document, this.opts.locale, {
      focus: () => this.overlayFocus?.(),
      close: () => this.overlayClose?.(),
    });
    // Opened synchronously inside the click, before any await, so popup blockers allow it.
    const popup = window.open('', 'paylater_checkout', 'popup=yes,width=480,height=760');
    if (!popup) {
      this.hideOverlay();
      this.setBusy(false);
      this.onOutcome({ kind: 'blocked' });
      return;
    }
    let done = false;
    let checkoutOrigin: string | null = null;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      window.removeEventListener('message', onMessage);
      window.clearInterval(timer);
      this.overlayClose = null;
      this.hideOverlay();
      this.setBusy(false);
      this.onOutcome(o);
    };
    // Only the popup this checkout opened, from the hosted page's origin, with a well-formed message.
    const onMessage = (event: MessageEvent) => {
      if (checkoutOrigin === null || event.origin !== checkoutOrigin || event.source !== popup) return;
      const data: unknown = event.data;
      if (!isCheckoutMessage(data)) return;
      const tx = data.transaction_id ? { transactionId: data.transaction_id } : {};
      if (data.type === 'completed') finish({ kind: 'completed', status: data.status, ...tx });
      else finish({ kind: 'cancelled', reason: 'user_cancelled', ...tx });
      closeQuietly(popup);
    };
    window.addEventListener('message', onMessage);
    // The hosted page posts its outcome and then closes itself, and `closed` can turn true before
    // that message is delivered here: a closed popup is a cancel only if no outcome arrives within
    // CLOSE_GRACE_MS (else a paid order would be reported as popup_closed).
    const timer = window.setInterval(() => {
      if (!popup.closed) return;
      window.clearInterval(timer);
      window.setTimeout(() => finish({ kind: 'cancelled', reason: 'popup_closed' }), CLOSE_GRACE_MS);
    }, 250);
    this.overlayClose = () => {
      closeQuietly(popup);
      finish({ kind: 'cancelled', reason: 'overlay_close' });
    };
    this.overlayFocus = () => popup.focus();
    this.intent().then(
      (intent) => {
        if (done) return;
        checkoutOrigin = new URL(intent.checkout_url).origin;
        popup.location.href = this.checkoutHref(intent.checkout_url);
      },
      (e: unknown) => {
        closeQuietly(popup);
        finish({ kind: 'intent_failed', error: asIntentError(e) });
      },
    );
  }

  private hideOverlay(): void {
    this.overlay?.remove();
    this.overlay = null;
  }
}
