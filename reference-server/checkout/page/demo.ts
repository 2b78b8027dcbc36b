/**
 * Script of the demo shop's pay page (bundled to dist/checkout/demo.js). Reads its settings
 * from data attributes (no inline script: strict CSP) and drives the SDK the way a merchant
 * page does, in either variant.
 */
interface ServiceGlobal {
  Payments: {
    init(o: { session_token: string; redirect_url?: string; locale?: string; flow?: 'redirect' | 'popup' }): void;
    load(container: string): void;
    startFlow(): void;
  };
  init(o: { sessionToken: string; locale?: string }): ServiceGlobal;
  renderButton(selector: string): ServiceGlobal;
  on(event: 'success', cb: (d: { transactionId: string }) => void): ServiceGlobal;
  on(event: 'error', cb: (e: Error & { reason?: string; transactionId?: string }) => void): ServiceGlobal;
}

const w = window as unknown as { Service?: ServiceGlobal; PaymentCallback?: (r: unknown) => void };
const root = document.getElementById('paylater-demo');
const log = document.getElementById('paylater-events');

function record(kind: string, payload: unknown): void {
  if (!log) return;
  const li = document.createElement('li');
  li.setAttribute('data-event', kind);
  li.textContent = `${kind}: ${JSON.stringify(payload)}`;
  log.append(li);
}

function returnUrl(params: Record<string, string | undefined>): string {
  const url = new URL(root!.dataset.returnUrl!, location.href);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

if (root && w.Service) {
  const Service = w.Service;
  const { variant, sessionToken = '', locale, flow, redirectUrl } = root.dataset;
  if (variant === '2') {
    if (flow === 'popup') {
      // Deprecated popup flow: the result arrives in window.PaymentCallback.
      w.PaymentCallback = (response: unknown) => {
        record('PaymentCallback', response);
        const r = response as { event: string; transaction_id?: string; status?: string; reason?: string };
        if (r.event === 'payment_flow_completed' && r.transaction_id) {
          location.assign(returnUrl({ status: r.status, transaction_id: r.transaction_id }));
        }
      };
      Service.Payments.init({ session_token: sessionToken, locale: locale ?? 'en', flow: 'popup' });
    } else {
      Service.Payments.init({ session_token: sessionToken, redirect_url: redirectUrl!, locale: locale ?? 'en' });
    }
    Service.Payments.load('#paylater-button');
  } else {
    Service.init({ sessionToken, locale: locale ?? 'en' })
      .on('success', (data) => {
        record('success', data);
        location.assign(returnUrl({ transaction_id: data.transactionId }));
      })
      .on('error', (error) => {
        record('error', { message: error.message, reason: error.reason, transactionId: error.transactionId });
        if (error.reason === 'payment_failed' && error.transactionId) {
          location.assign(returnUrl({ transaction_id: error.transactionId }));
        }
      })
      .renderButton('#paylater-button');
  }
}
