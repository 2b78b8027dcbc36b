/**
 * PayLater browser SDK: the global `Service`.
 *
 * Variant 2 (current): Service.Payments.init({ session_token, redirect_url, locale }),
 *   Service.Payments.load(container), Service.Payments.startFlow(). Redirect flow to the
 *   hosted checkout page; the shopper comes back to redirect_url with
 *   ?status=SUCCESS|FAILED|CANCELLED&transaction_id=… (ADR-014).
 *   Popup flow (deprecated): init without redirect_url (or flow: 'popup'); results go to
 *   window.PaymentCallback(response).
 * Variant 1 (quick start): Service.init({ sessionToken }), Service.renderButton(selector),
 *   Service.on('success', cb) / Service.on('error', cb).
 *
 * The frontend event is never proof of payment: the merchant backend verifies (A2/A3).
 * No runtime dependencies; works under a strict CSP (see README).
 */
import { el, applyStyles } from './dom.ts';
import { directionOf, isLocale, TEXTS, type Locale, type Texts } from '../../../lib/i18n.ts';
import { formatMad, plansFor, toCentimes } from '../../../lib/money.ts';
import { encodeFragment, isCheckoutMessage, safeHttpUrl, type Flow } from '../../../lib/checkout-protocol.ts';

declare const __SDK_VERSION__: string;
export const VERSION: string = typeof __SDK_VERSION__ === 'string' ? __SDK_VERSION__ : '0.0.0-dev';

export const ERRORS = {
  notInitialised: 'Call init() first',
  containerNotFound: 'Container not found',
  sessionTokenRequired: 'session_token is required',
  sessionTokenRequiredV1: 'sessionToken is required',
  popupBlocked: 'Popup blocked. Please allow popups for this site.',
} as const;

const DEPRECATION =
  'PayLater: the popup flow is deprecated and will be removed; use the redirect flow (Service.Payments.init with redirect_url).';

interface SessionSummary {
  total: number;
  currency: string;
  merchant_name: string;
  store_name: string;
  test_mode: boolean;
}

/** The API base: data-api-base on the script tag, else the origin the script was served from. */
function detectApiBase(): string | undefined {
  const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
  if (!script) return undefined;
  const explicit = script.getAttribute('data-api-base');
  if (explicit) return explicit.replace(/\/+$/, '');
  if (script.src) return new URL(script.src).origin;
  return undefined;
}
const SCRIPT_API_BASE = detectApiBase();

class IntentError extends Error {
  constructor(
    readonly status: number,
    readonly details: string,
    readonly code: string | null,
  ) {
    super(`Payment intent creation failed: ${status} - ${details}`);
    this.name = 'IntentError';
  }
}

async function readErrorDetails(res: Response): Promise<{ details: string; code: string | null }> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const err = body.error;
    if (typeof err === 'string') return { details: err, code: null };
    if (err && typeof err === 'object') {
      const e = err as { code?: unknown; message?: unknown };
      return {
        details: typeof e.message === 'string' ? e.message : res.statusText || 'error',
        code: typeof e.code === 'string' ? e.code : null,
      };
    }
  } catch {
    /* not JSON */
  }
  return { details: text.trim().slice(0, 200) || res.statusText || 'error', code: null };
}

interface CoreOptions {
  token: string;
  locale: Locale;
  flow: Flow;
  redirectUrl?: string;
  apiBase: string;
}

type Outcome =
  | { kind: 'completed'; transactionId?: string; status: 'SUCCESS' | 'FAILED' }
  | { kind: 'cancelled'; reason: 'overlay_close' | 'popup_closed' | 'user_cancelled'; transactionId?: string }
  | { kind: 'intent_failed'; error: IntentError }
  | { kind: 'blocked' };

/** One checkout: button, session preview, payment intent, redirect or popup. */
class Checkout {
  private button: HTMLButtonElement | null = null;
  private overlay: HTMLElement | null = null;
  private busy = false;
  readonly texts: Texts;

  constructor(
    readonly opts: CoreOptions,
    private readonly onOutcome: (o: Outcome) => void,
  ) {
    this.texts = TEXTS[opts.locale];
  }

  private api(path: string): string {
    return `${this.opts.apiBase}${path}`;
  }

  async fetchSession(): Promise<SessionSummary> {
    const res = await fetch(this.api('/api/v1/public/sdk/session'), {
      headers: { 'X-Session-Token': this.opts.token, Accept: 'application/json' },
      credentials: 'omit',
    });
    if (!res.ok) {
      const { details } = await readErrorDetails(res);
      throw new Error(`Session unavailable: ${res.status} - ${details}`);
    }
    return (await res.json()) as SessionSummary;
  }

  /** Renders the button with the 2x/3x/4x preview in `container` (shadow DOM, CSSOM styles only). */
  render(container: Element): void {
    const doc = container.ownerDocument;
    const host = el(doc, 'div', { attrs: { 'data-paylater': 'root' } });
    const root = host.attachShadow({ mode: 'open' });
    const t = this.texts;
    const wrap = el(doc, 'div', {
      attrs: { dir: directionOf(this.opts.locale), lang: this.opts.locale, 'data-paylater': 'widget' },
      styles: {
        'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
        display: 'inline-flex',
        'flex-direction': 'column',
        gap: '8px',
        'max-width': '420px',
      },
    });
    const button = el(doc, 'button', {
      text: t.loading,
      attrs: { type: 'button', 'data-paylater': 'pay-button', disabled: '' },
      styles: {
        'background-color': '#1d3557',
        color: '#ffffff',
        border: '0',
        'border-radius': '8px',
        padding: '12px 20px',
        'font-size': '16px',
        'font-weight': '600',
        cursor: 'pointer',
      },
    });
    const preview = el(doc, 'div', {
      attrs: { 'data-paylater': 'preview' },
      styles: { 'font-size': '13px', color: '#333333', 'line-height': '1.5' },
    });
    wrap.append(button, preview);
    root.append(wrap);
    container.replaceChildren(host);
    this.button = button;
    button.addEventListener('click', () => this.start());

    this.fetchSession().then(
      (session) => {
        const total = toCentimes(session.total);
        preview.append(el(doc, 'div', { text: t.orPayIn }));
        for (const plan of plansFor(total)) {
          const [first, ...rest] = plan.instalments as [number, ...number[]];
          const allEqual = rest.every((c) => c === first);
          const line = allEqual
            ? `${plan.count} × ${formatMad(first, this.opts.locale)}`
            : `${formatMad(first, this.opts.locale)} ${t.today}, ${t.then} ${rest.length} × ${formatMad(rest[0]!, this.opts.locale)}`;
          preview.append(
            el(doc, 'div', {
              text: `${t.planTitle(plan.count)}: ${line}`,
              attrs: {
                'data-paylater': 'plan',
                'data-plan': String(plan.count),
                'data-instalments': plan.instalments.join(','),
              },
            }),
          );
        }
        button.textContent = `${t.pay} · ${formatMad(total, this.opts.locale)}`;
        button.removeAttribute('disabled');
      },
      (error: unknown) => {
        button.textContent = t.pay;
        preview.append(el(doc, 'div', { text: t.sessionError, attrs: { 'data-paylater': 'session-error', role: 'alert' } }));
        console.error(error);
      },
    );
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    if (!this.button) return;
    if (busy) this.button.setAttribute('disabled', '');
    else this.button.removeAttribute('disabled');
  }

  private async createIntent(): Promise<{ payment_intent_id: string; checkout_url: string }> {
    const body: Record<string, string> = { flow: this.opts.flow, locale: this.opts.locale };
    if (this.opts.flow === 'redirect') {
      if (this.opts.redirectUrl !== undefined) body.redirect_url = this.opts.redirectUrl;
    } else {
      body.origin = window.location.origin;
    }
    let res: Response;
    try {
      res = await fetch(this.api('/api/v1/public/sdk/payment-intents'), {
        method: 'POST',
        headers: { 'X-Session-Token': this.opts.token, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
        credentials: 'omit',
      });
    } catch (e) {
      throw new IntentError(0, e instanceof Error ? e.message : String(e), null);
    }
    if (res.status !== 201) {
      const { details, code } = await readErrorDetails(res);
      throw new IntentError(res.status, details, code);
    }
    const intent = (await res.json()) as { payment_intent_id: string; checkout_url: string };
    if (!safeHttpUrl(intent.checkout_url)) throw new IntentError(res.status, 'invalid checkout_url', null);
    return intent;
  }

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

  /** Starts the flow (button click or startFlow()). */
  start(): void {
    if (this.busy) return;
    if (this.opts.flow === 'redirect') void this.startRedirect();
    else this.startPopup();
  }

  private async startRedirect(): Promise<void> {
    this.setBusy(true);
    try {
      const intent = await this.createIntent();
      window.location.assign(this.checkoutHref(intent.checkout_url));
    } catch (e) {
      const error = e instanceof IntentError ? e : new IntentError(0, String(e), null);
      this.setBusy(false);
      this.onOutcome({ kind: 'intent_failed', error });
    }
  }

  private startPopup(): void {
    this.setBusy(true);
    this.showOverlay();
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
    const onMessage = (event: MessageEvent) => {
      if (checkoutOrigin === null || event.origin !== checkoutOrigin || event.source !== popup) return;
      const data: unknown = event.data;
      if (!isCheckoutMessage(data)) return;
      if (data.type === 'completed') {
        finish({ kind: 'completed', status: data.status, ...(data.transaction_id ? { transactionId: data.transaction_id } : {}) });
      } else {
        finish({ kind: 'cancelled', reason: 'user_cancelled', ...(data.transaction_id ? { transactionId: data.transaction_id } : {}) });
      }
      try {
        popup.close();
      } catch {
        /* already closed */
      }
    };
    window.addEventListener('message', onMessage);
    const timer = window.setInterval(() => {
      if (popup.closed) finish({ kind: 'cancelled', reason: 'popup_closed' });
    }, 250);
    this.overlayClose = () => {
      try {
        popup.close();
      } catch {
        /* already closed */
      }
      finish({ kind: 'cancelled', reason: 'overlay_close' });
    };
    this.overlayFocus = () => popup.focus();
    this.createIntent().then(
      (intent) => {
        if (done) return;
        checkoutOrigin = new URL(intent.checkout_url).origin;
        popup.location.href = this.checkoutHref(intent.checkout_url);
      },
      (e: unknown) => {
        try {
          popup.close();
        } catch {
          /* already closed */
        }
        const error = e instanceof IntentError ? e : new IntentError(0, String(e), null);
        finish({ kind: 'intent_failed', error });
      },
    );
  }

  private overlayClose: (() => void) | null = null;
  private overlayFocus: (() => void) | null = null;

  private showOverlay(): void {
    if (this.overlay) return;
    const doc = document;
    const t = this.texts;
    const overlay = el(doc, 'div', {
      attrs: { 'data-paylater': 'overlay', role: 'dialog', 'aria-modal': 'true', dir: directionOf(this.opts.locale) },
      styles: {
        position: 'fixed',
        inset: '0',
        'background-color': 'rgba(0, 0, 0, 0.6)',
        display: 'flex',
        'align-items': 'center',
        'justify-content': 'center',
        'z-index': '2147483647',
        'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      },
    });
    const box = el(doc, 'div', {
      styles: {
        'background-color': '#ffffff',
        'border-radius': '12px',
        padding: '24px',
        'max-width': '320px',
        'text-align': 'center',
        display: 'flex',
        'flex-direction': 'column',
        gap: '12px',
      },
    });
    const focus = el(doc, 'button', { text: t.overlayFocus, attrs: { type: 'button', 'data-paylater': 'overlay-focus' } });
    const close = el(doc, 'button', { text: t.overlayClose, attrs: { type: 'button', 'data-paylater': 'overlay-close' } });
    for (const b of [focus, close]) applyStyles(b, { padding: '8px 12px', cursor: 'pointer' });
    focus.addEventListener('click', () => this.overlayFocus?.());
    close.addEventListener('click', () => this.overlayClose?.());
    box.append(el(doc, 'p', { text: t.overlayText, styles: { margin: '0' } }), focus, close);
    overlay.append(box);
    doc.body.append(overlay);
    this.overlay = overlay;
  }

  private hideOverlay(): void {
    this.overlay?.remove();
    this.overlay = null;
  }
}

function resolveContainer(container: unknown): Element {
  if (typeof Element !== 'undefined' && container instanceof Element) return container;
  if (typeof container !== 'string' || container.length === 0) throw new Error(ERRORS.containerNotFound);
  let found: Element | null = null;
  try {
    found = document.querySelector(container);
  } catch {
    found = null;
  }
  if (!found) throw new Error(ERRORS.containerNotFound);
  return found;
}

function resolveLocale(locale: unknown): Locale {
  if (locale === undefined || locale === null || locale === '') return 'en';
  if (isLocale(locale)) return locale;
  console.warn(`PayLater: unsupported locale ${String(locale)}; using en (supported: en, fr, ar).`);
  return 'en';
}

function resolveApiBase(explicit: unknown): string {
  if (typeof explicit === 'string' && explicit.length > 0) return explicit.replace(/\/+$/, '');
  if (SCRIPT_API_BASE) return SCRIPT_API_BASE;
  return window.location.origin;
}

let deprecationLogged = false;
function logPopupDeprecation(): void {
  if (deprecationLogged) return;
  deprecationLogged = true;
  console.warn(DEPRECATION);
}

// ---------------------------------------------------------------- Variant 2: Service.Payments

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

function callPaymentCallback(response: PaymentCallbackResponse): void {
  const cb = (window as unknown as { PaymentCallback?: unknown }).PaymentCallback;
  if (typeof cb === 'function') (cb as (r: PaymentCallbackResponse) => void)(response);
  else console.warn('PayLater: define window.PaymentCallback to receive the popup flow result.', response);
}

function v2Outcome(o: Outcome): void {
  switch (o.kind) {
    case 'blocked':
      window.alert(ERRORS.popupBlocked);
      return;
    case 'intent_failed':
      window.alert(`Payment failed: ${o.error.message}`);
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
    if (typeof o.session_token !== 'string' || o.session_token.trim() === '') {
      throw new Error(ERRORS.sessionTokenRequired);
    }
    const flow: Flow = o.flow ?? (o.redirect_url !== undefined ? 'redirect' : 'popup');
    if (flow === 'popup') logPopupDeprecation();
    payments = new Checkout(
      {
        token: o.session_token,
        locale: resolveLocale(o.locale),
        flow,
        ...(o.redirect_url !== undefined ? { redirectUrl: String(o.redirect_url) } : {}),
        apiBase: resolveApiBase(o.api_base_url),
      },
      v2Outcome,
    );
  },
  load(container: string | Element): void {
    if (!payments) throw new Error(ERRORS.notInitialised);
    payments.render(resolveContainer(container));
  },
  startFlow(): void {
    if (!payments) throw new Error(ERRORS.notInitialised);
    payments.start();
  },
};

// ---------------------------------------------------------------- Variant 1: Service.init / renderButton / on

export interface V1InitOptions {
  sessionToken: string;
  locale?: string;
  apiBaseUrl?: string;
}

export interface V1SuccessData {
  transactionId: string;
}

/** The error handed to on('error', cb). */
export interface V1ErrorData extends Error {
  reason: 'popup_blocked' | 'intent_failed' | 'payment_failed' | 'overlay_close' | 'popup_closed' | 'user_cancelled';
  status?: number;
  code?: string | null;
  transactionId?: string;
}

type V1Events = { success: Array<(d: V1SuccessData) => void>; error: Array<(e: V1ErrorData) => void> };
const handlers: V1Events = { success: [], error: [] };
let v1: Checkout | null = null;

function v1Error(message: string, extra: Omit<V1ErrorData, 'name' | 'message'>): V1ErrorData {
  return Object.assign(new Error(message), extra) as V1ErrorData;
}

function emit<K extends keyof V1Events>(event: K, data: Parameters<V1Events[K][number]>[0]): void {
  for (const cb of handlers[event]) {
    try {
      (cb as (d: typeof data) => void)(data);
    } catch (e) {
      console.error(e);
    }
  }
}

function v1Outcome(o: Outcome): void {
  switch (o.kind) {
    case 'blocked':
      window.alert(ERRORS.popupBlocked);
      emit('error', v1Error(ERRORS.popupBlocked, { reason: 'popup_blocked' }));
      return;
    case 'intent_failed':
      window.alert(`Payment failed: ${o.error.message}`);
      emit('error', v1Error(o.error.message, { reason: 'intent_failed', status: o.error.status, code: o.error.code }));
      return;
    case 'completed':
      if (o.status === 'SUCCESS' && o.transactionId) emit('success', { transactionId: o.transactionId });
      else
        emit(
          'error',
          v1Error('Payment failed', { reason: 'payment_failed', ...(o.transactionId ? { transactionId: o.transactionId } : {}) }),
        );
      return;
    case 'cancelled':
      emit(
        'error',
        v1Error('Payment cancelled', { reason: o.reason, ...(o.transactionId ? { transactionId: o.transactionId } : {}) }),
      );
      return;
  }
}

export function init(options: V1InitOptions): typeof Service {
  const o = (options ?? {}) as Partial<V1InitOptions>;
  if (typeof o.sessionToken !== 'string' || o.sessionToken.trim() === '') throw new Error(ERRORS.sessionTokenRequiredV1);
  v1 = new Checkout(
    { token: o.sessionToken, locale: resolveLocale(o.locale), flow: 'button', apiBase: resolveApiBase(o.apiBaseUrl) },
    v1Outcome,
  );
  return Service;
}

export function renderButton(selector: string | Element): typeof Service {
  if (!v1) throw new Error(ERRORS.notInitialised);
  v1.render(resolveContainer(selector));
  return Service;
}

export function on(event: 'success', cb: (d: V1SuccessData) => void): typeof Service;
export function on(event: 'error', cb: (e: V1ErrorData) => void): typeof Service;
export function on(event: string, cb: (arg: never) => void): typeof Service {
  if (event !== 'success' && event !== 'error') throw new Error(`Unknown event: ${event}`);
  if (typeof cb !== 'function') throw new Error('callback must be a function');
  (handlers[event] as unknown[]).push(cb);
  return Service;
}

export const Service = { version: VERSION, Payments, init, renderButton, on };
