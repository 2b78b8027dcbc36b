/**
 * Script of the hosted checkout page `/checkout/:paymentIntentId` (bundled by `npm run build`
 * to dist/checkout/checkout-page.js; no inline script, no eval: strict CSP).
 *
 * The session token arrives in the URL fragment (never a query string: the fragment is not
 * sent to servers, so it cannot land in access logs or Referer). It is moved to
 * sessionStorage (so a reload works) and removed from the address bar.
 */
import { directionOf, isLocale, TEXTS, type Locale } from '../../../lib/i18n.ts';
import { formatMad, plansFor, toCentimes } from '../../../lib/money.ts';
import {
  decodeFragment,
  encodeFragment,
  MESSAGE_SOURCE,
  safeHttpUrl,
  type CheckoutFragment,
  type CheckoutMessage,
} from '../../../lib/checkout-protocol.ts';

interface Summary {
  session_id: string;
  merchant_name: string;
  store_name: string;
  total: number;
  currency: string;
  items: Array<{ id: string; name: string; price: number; quantity: number }>;
  expires_at: string;
  test_mode: boolean;
}

interface PaymentResult {
  transaction_id: string;
  payment_intent_id: string;
  status: 'APPROVED' | 'PENDING' | 'CANCELED';
  redirect_status: 'SUCCESS' | 'FAILED' | 'CANCELLED';
  redirect_url?: string;
}

interface Cancellation {
  payment_intent_id: string;
  redirect_status: 'CANCELLED';
  transaction_id?: string;
  redirect_url?: string;
}

const app = document.getElementById('app') as HTMLElement;
const intentId = app.dataset.paymentIntentId ?? '';
const storageKey = `paylater:checkout:${intentId}`;

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  return n;
}

function readContext(): CheckoutFragment | null {
  const fromHash = location.hash.length > 1 ? decodeFragment(location.hash) : null;
  if (fromHash) {
    try {
      sessionStorage.setItem(storageKey, encodeFragment(fromHash));
    } catch {
      /* storage disabled: the page still works until reload */
    }
    history.replaceState(null, '', location.pathname + location.search);
    return fromHash;
  }
  try {
    const stored = sessionStorage.getItem(storageKey);
    return stored ? decodeFragment(stored) : null;
  } catch {
    return null;
  }
}

async function api<T>(
  path: string,
  token: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T | { error?: { code?: string; message?: string } } }> {
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    headers: {
      'X-Session-Token': token,
      Accept: 'application/json',
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    credentials: 'omit',
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { error: { message: text } };
  }
  return { status: res.status, body: body as T };
}

function errorMessage(body: unknown, status: number): string {
  const e = (body as { error?: unknown }).error;
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    const code = (e as { code?: unknown }).code;
    return `${typeof code === 'string' ? `${code}: ` : ''}${(e as { message: string }).message}`;
  }
  return `HTTP ${status}`;
}

function showFatal(message: string): void {
  app.replaceChildren(h('p', 'notice notice-error', message, { role: 'alert', 'data-testid': 'checkout-error' }));
}

function postToOpener(ctx: CheckoutFragment, message: CheckoutMessage): boolean {
  const opener = window.opener as Window | null;
  if (!opener || !ctx.origin) return false;
  const target = safeHttpUrl(ctx.origin);
  if (!target || target.origin !== ctx.origin) return false;
  opener.postMessage(message, ctx.origin); // exact target origin, never '*'
  return true;
}

async function main(): Promise<void> {
  const ctx = readContext();
  const locale: Locale = ctx && isLocale(ctx.locale) ? ctx.locale : 'en';
  const t = TEXTS[locale];
  document.documentElement.lang = locale;
  document.documentElement.dir = directionOf(locale);
  if (!ctx) return showFatal(TEXTS.en.missingToken);

  const session = await api<Summary>('/api/v1/public/sdk/session', ctx.st);
  if (session.status !== 200) return showFatal(`${t.missingToken} (${errorMessage(session.body, session.status)})`);
  const s = session.body as Summary;
  const total = toCentimes(s.total);

  const header = h('header', 'merchant');
  header.append(h('h1', undefined, s.merchant_name, { 'data-testid': 'merchant-name' }), h('p', 'store', s.store_name));

  const summary = h('section', 'summary', undefined, { 'aria-labelledby': 'summary-title' });
  summary.append(h('h2', undefined, t.orderSummary, { id: 'summary-title' }));
  const table = h('table', 'items', undefined, { 'data-testid': 'items' });
  for (const item of s.items) {
    const row = h('tr');
    const line = toCentimes(item.price) * item.quantity;
    row.append(
      h('td', 'item-name', item.name),
      h('td', 'item-qty', `${t.quantity} ${item.quantity}`),
      h('td', 'item-amount', formatMad(line, locale)),
    );
    table.append(row);
  }
  const totalRow = h('tr', 'total-row');
  totalRow.append(
    h('th', undefined, t.total),
    h('td'),
    h('td', 'item-amount', formatMad(total, locale), { 'data-testid': 'total', 'data-centimes': String(total) }),
  );
  table.append(totalRow);
  summary.append(table);

  const plans = h('section', 'plans', undefined, { 'aria-labelledby': 'plans-title' });
  plans.append(h('h2', undefined, t.choosePlan, { id: 'plans-title' }));
  const list = h('ul', 'plan-list');
  for (const plan of plansFor(total)) {
    const li = h('li', 'plan', undefined, { 'data-plan': String(plan.count), 'data-instalments': plan.instalments.join(',') });
    li.append(h('strong', undefined, t.planTitle(plan.count)));
    const ol = h('ol', 'instalments');
    for (const c of plan.instalments) ol.append(h('li', undefined, formatMad(c, locale)));
    li.append(ol);
    list.append(li);
  }
  plans.append(list);

  const actions = h('section', 'actions');
  const status = h('p', 'notice', '', { role: 'status', 'data-testid': 'status' });
  let lastTransactionId: string | undefined;
  const buttons: HTMLButtonElement[] = [];

  const setBusy = (busy: boolean) => {
    for (const b of buttons) b.disabled = busy;
  };

  async function simulate(outcome: 'success' | 'failed'): Promise<void> {
    setBusy(true);
    status.textContent = t.working;
    const res = await api<PaymentResult>(`/api/v1/public/sdk/payment-intents/${encodeURIComponent(intentId)}/simulate`, ctx!.st, {
      method: 'POST',
      body: { outcome },
    });
    if (res.status !== 200) {
      status.textContent = errorMessage(res.body, res.status);
      status.className = 'notice notice-error';
      setBusy(false);
      return;
    }
    const r = res.body as PaymentResult;
    lastTransactionId = r.transaction_id;
    const done = r.redirect_status === 'SUCCESS' ? t.paid : t.failed;
    if (ctx!.flow === 'redirect') {
      const target = safeHttpUrl(r.redirect_url);
      if (target) {
        location.replace(target.href);
        return;
      }
      status.textContent = done;
      return;
    }
    status.textContent = done;
    const sent = postToOpener(ctx!, {
      source: MESSAGE_SOURCE,
      type: 'completed',
      status: r.redirect_status === 'SUCCESS' ? 'SUCCESS' : 'FAILED',
      transaction_id: r.transaction_id,
    });
    if (sent) window.close();
  }

  async function cancel(): Promise<void> {
    if (ctx!.flow !== 'redirect') {
      const sent = postToOpener(ctx!, {
        source: MESSAGE_SOURCE,
        type: 'cancelled',
        reason: 'user_cancelled',
        ...(lastTransactionId ? { transaction_id: lastTransactionId } : {}),
      });
      if (sent) window.close();
      else history.back();
      return;
    }
    // The return address is the intent's own, stored and checked by the service when the SDK
    // created the intent (ADR-017): the fragment, which anyone can edit, is never used here.
    setBusy(true);
    const res = await api<Cancellation>(`/api/v1/public/sdk/payment-intents/${encodeURIComponent(intentId)}/cancel`, ctx!.st, {
      method: 'POST',
    });
    if (res.status !== 200) {
      status.textContent = errorMessage(res.body, res.status);
      status.className = 'notice notice-error';
      setBusy(false);
      return;
    }
    const target = safeHttpUrl((res.body as Cancellation).redirect_url);
    if (target) location.replace(target.href);
    else history.back();
  }

  if (s.test_mode) {
    actions.append(h('p', 'notice notice-test', t.testMode));
    const ok = h('button', 'btn btn-success', t.simulateSuccess, { type: 'button', 'data-testid': 'simulate-success' });
    const ko = h('button', 'btn btn-failed', t.simulateFailed, { type: 'button', 'data-testid': 'simulate-failed' });
    ok.addEventListener('click', () => void simulate('success'));
    ko.addEventListener('click', () => void simulate('failed'));
    buttons.push(ok, ko);
    actions.append(ok, ko);
  } else {
    actions.append(h('p', 'notice', t.liveUnavailable));
  }
  const cancelLink = h('a', 'cancel-link', t.cancel, { href: '#', role: 'button', 'data-testid': 'cancel' });
  cancelLink.addEventListener('click', (e) => {
    e.preventDefault();
    void cancel();
  });
  actions.append(status, cancelLink);

  app.replaceChildren(header, summary, plans, actions);
}

main().catch((e: unknown) => showFatal(e instanceof Error ? e.message : String(e)));
