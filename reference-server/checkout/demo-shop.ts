/**
 * The demo merchant shop, one per variant (`/demo`, `/demo/v1`, `/demo/v2` and their backend
 * routes): the whole checkout a merchant builds. The backend creates the session with its API
 * key (A1), the page shows the PayLater button, the shopper pays on the hosted page, and the
 * backend verifies the transaction (A2, and A3 in Variant 1) before marking the order paid.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, Router } from 'express';
import { escapeHtml } from '../../lib/html.ts';
import { isLocale, type Locale } from '../../lib/i18n.ts';
import { centimesToNumber, formatCentimes, formatMad, toCentimes } from '../../lib/money.ts';
import {
  createPayLaterClientV1,
  createPayLaterClientV2,
  PayLaterApiError,
  type PayLaterClientV1,
  type PayLaterClientV2,
} from '../../sdk/client/index.ts';
import { page, STRICT_CSP } from './html.ts';
import { listenOrigin, ownOrigin } from '../http/origin.ts';
import { pageForm } from '../http/page-body.ts';
import { MISSING_BUILD, sendFile, sendHtml } from './respond.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface DemoMerchant {
  /** The merchant's API key: stays on the server (the demo backend), never sent to the browser. */
  apiKey: string;
}

export interface DemoShopOptions {
  /** Demo merchant per variant (e.g. the reference server's demo merchants' keys). */
  merchants: { v1?: DemoMerchant; v2?: DemoMerchant };
  /** API base address the demo backend calls; default this server's own listen address (never the Host header). */
  apiBaseUrl?: string;
  /** Where the demo pages load the SDK from; default this server (a relative path). */
  sdkBaseUrl?: string;
  /** This server's public base URL (`--public-url`), for the absolute return URL; default its listen address. */
  publicBaseUrl?: string;
  /** Injected fetch for the demo backend's API calls. */
  fetch?: (input: globalThis.Request) => Promise<globalThis.Response>;
}

interface Product {
  id: string;
  name: string;
  centimes: number;
  blurb: string;
}

/** The demo shop's catalogue: prices live on the server; the cart only sends quantities. */
export const DEMO_PRODUCTS: readonly Product[] = [
  { id: 'hdp-200', name: 'Wireless headphones', centimes: 64950, blurb: 'Noise cancelling, 30 h battery.' },
  { id: 'chg-65w', name: 'USB-C charger 65 W', centimes: 19900, blurb: 'GaN, two ports.' },
  { id: 'case-s', name: 'Phone case', centimes: 12999, blurb: 'Recycled plastic.' },
];

interface DemoOrder {
  id: string;
  variant: 1 | 2;
  items: Array<{ product: Product; quantity: number }>;
  totalCentimes: number;
  sessionToken: string;
  locale: Locale;
  flow: 'redirect' | 'popup';
  paid: boolean;
  transactionId: string | null;
  lastStatus: string | null;
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function cspWith(extra: { script?: string | null; connect?: string | null }): string {
  return STRICT_CSP.replace("script-src 'self'", `script-src 'self'${extra.script ? ` ${extra.script}` : ''}`).replace(
    "connect-src 'self'",
    `connect-src 'self'${extra.connect ? ` ${extra.connect}` : ''}`,
  );
}

/** Adds the demo shop's routes to `router`; `distDir` holds the built demo script. */
export function mountDemoShop(router: Router, demo: DemoShopOptions, distDir: string): void {
  const orders = new Map<string, DemoOrder>();
  // One API client per variant, calling this server's own listen address (fixed for the
  // server's life) unless `apiBaseUrl` is given; the merchant's key never follows a Host header.
  const clients = new Map<1 | 2, PayLaterClientV1 | PayLaterClientV2>();
  function client(variant: 1 | 2, req: Request): PayLaterClientV1 | PayLaterClientV2 {
    const merchant = variant === 1 ? demo.merchants.v1 : demo.merchants.v2;
    if (!merchant) throw new Error(`no demo merchant for Variant ${variant}`);
    let c = clients.get(variant);
    if (!c) {
      const options = {
        baseUrl: demo.apiBaseUrl ?? listenOrigin(req),
        apiKey: merchant.apiKey,
        ...(demo.fetch ? { fetch: demo.fetch } : {}),
      };
      c = variant === 1 ? createPayLaterClientV1(options) : createPayLaterClientV2(options);
      clients.set(variant, c);
    }
    return c;
  }
  const sdkBase = demo.sdkBaseUrl?.replace(/\/+$/, '') ?? '';
  const sdkOrigin = sdkBase ? originOf(sdkBase) : null;
  const apiOrigin = demo.apiBaseUrl ? originOf(demo.apiBaseUrl) : null;
  const demoCsp = cspWith({ script: sdkOrigin, connect: apiOrigin });

  const shopPage = (title: string, body: string, scripts: string[] = []) =>
    page({
      title,
      styles: ['/demo/assets/demo.css'],
      scripts,
      body: `<header class="shop"><a href="/demo">Demo shop</a></header>\n<main>\n${body}\n</main>`,
    });

  router.get('/demo/assets/demo.css', (_req, res) =>
    sendFile(res, path.join(HERE, 'assets', 'demo.css'), 'text/css; charset=utf-8', 'public, max-age=300', 'missing stylesheet'),
  );
  router.get('/demo/assets/demo.js', (_req, res) =>
    sendFile(res, path.join(distDir, 'checkout', 'demo.js'), 'application/javascript; charset=utf-8', 'public, max-age=300', MISSING_BUILD),
  );

  router.get('/demo', (_req, res) => {
    const links = [
      demo.merchants.v2
        ? '<li><a href="/demo/v2" data-testid="demo-v2">Variant 2: redirect flow</a> (also the deprecated popup flow)</li>'
        : '',
      demo.merchants.v1 ? '<li><a href="/demo/v1" data-testid="demo-v1">Variant 1: quick-start button</a></li>' : '',
    ].join('\n');
    sendHtml(
      res,
      shopPage(
        'Demo shop',
        `<h1>Demo merchant shop</h1>
<p>The whole checkout a merchant builds: the backend creates the session with its API key (A1), the page shows the PayLater button, the shopper pays on the hosted page, the backend verifies the transaction (A2, and A3 in Variant 1) before marking the order paid.</p>
<ul>${links}</ul>`,
      ),
      demoCsp,
    );
  });

  for (const variant of [1, 2] as const) {
    const base = `/demo/v${variant}`;
    const enabled = variant === 1 ? demo.merchants.v1 : demo.merchants.v2;
    if (!enabled) continue;

    router.get(base, (_req, res) => {
      const cards = DEMO_PRODUCTS.map(
        (p, i) => `<div class="product" data-product="${escapeHtml(p.id)}">
  <h3>${escapeHtml(p.name)}</h3>
  <p class="muted">${escapeHtml(p.blurb)}</p>
  <p class="price">${escapeHtml(formatMad(p.centimes, 'en'))}</p>
  <label>Quantity <input type="number" name="qty_${escapeHtml(p.id)}" min="0" max="20" value="${i === 0 ? 1 : 0}"></label>
</div>`,
      ).join('\n');
      const flowChoice =
        variant === 2
          ? `<label>Flow <select name="flow" data-testid="flow"><option value="redirect">Redirect (current)</option><option value="popup">Popup (deprecated)</option></select></label>`
          : '';
      sendHtml(
        res,
        shopPage(
          `Demo shop, Variant ${variant}`,
          `<h1>Demo shop (Variant ${variant})</h1>
<form method="post" action="${base}/checkout">
  <div class="products">${cards}</div>
  <div class="cart">
    <label>Language <select name="locale" data-testid="locale"><option value="en">English</option><option value="fr">Français</option><option value="ar">العربية</option></select></label>
    ${flowChoice}
    <p class="muted">Orders from 500 to 15,000 MAD can be paid in 2, 3 or 4 instalments.</p>
    <button class="primary" type="submit" data-testid="checkout">Go to checkout</button>
  </div>
</form>`,
        ),
        demoCsp,
      );
    });

    router.post(base + '/checkout', pageForm({ limitBytes: 10 * 1024, maxFields: 50 }), async (req, res) => {
      const form = (req.body ?? {}) as Record<string, unknown>;
      const items: DemoOrder['items'] = [];
      for (const p of DEMO_PRODUCTS) {
        const raw = form[`qty_${p.id}`];
        const q = typeof raw === 'string' && /^\d{1,2}$/.test(raw) ? Number(raw) : 0;
        if (q > 0) items.push({ product: p, quantity: Math.min(q, 20) });
      }
      const locale = isLocale(form.locale) ? form.locale : 'en';
      const flow = variant === 2 && form.flow === 'popup' ? 'popup' : 'redirect';
      const totalCentimes = items.reduce((s, i) => s + i.product.centimes * i.quantity, 0);
      if (items.length === 0) {
        return sendHtml(
          res,
          shopPage('Empty cart', `<p class="status-unpaid">Your cart is empty.</p><p><a href="${base}">Back to the shop</a></p>`),
          demoCsp,
          400,
        );
      }
      const sessionItems = items.map((i) => ({
        id: i.product.id,
        name: i.product.name,
        price: centimesToNumber(i.product.centimes),
        quantity: i.quantity,
      }));
      try {
        let sessionToken: string;
        if (variant === 1) {
          const s = await (client(1, req) as PayLaterClientV1).createSession({
            total: centimesToNumber(totalCentimes),
            currency: 'MAD',
            items: sessionItems,
          });
          sessionToken = s.token;
        } else {
          const s = await (client(2, req) as PayLaterClientV2).createSession({
            total: formatCentimes(totalCentimes),
            currency: 'MAD',
            items: sessionItems,
          });
          sessionToken = s.session_token;
        }
        const order: DemoOrder = {
          id: randomUUID(),
          variant,
          items,
          totalCentimes,
          sessionToken,
          locale,
          flow,
          paid: false,
          transactionId: null,
          lastStatus: null,
        };
        orders.set(order.id, order);
        res.redirect(303, `${base}/orders/${order.id}/pay`);
      } catch (e) {
        const err = e instanceof PayLaterApiError ? `${e.status} ${e.code ?? ''} ${e.message}` : String(e);
        sendHtml(
          res,
          shopPage(
            'Checkout unavailable',
            `<p class="status-unpaid" data-testid="session-error">The payment session could not be created: ${escapeHtml(err)}</p><p><a href="${base}">Back to the shop</a></p>`,
          ),
          demoCsp,
          502,
        );
      }
    });

    router.get(base + '/orders/:orderId/pay', (req, res) => {
      const order = orders.get(String(req.params.orderId));
      if (!order || order.variant !== variant) return sendHtml(res, shopPage('Order not found', '<p>Order not found.</p>'), demoCsp, 404);
      const origin = ownOrigin(req, demo.publicBaseUrl);
      const returnUrl = `${origin}${base}/return?order=${order.id}`;
      const lines = order.items
        .map(
          (i) =>
            `<tr><td>${escapeHtml(i.product.name)} × ${i.quantity}</td><td class="amount">${escapeHtml(formatMad(i.product.centimes * i.quantity, 'en'))}</td></tr>`,
        )
        .join('');
      sendHtml(
        res,
        shopPage(
          'Pay your order',
          `<h1>Your order</h1>
<div class="cart"><table>${lines}<tr><th>Total</th><td class="amount" data-testid="order-total">${escapeHtml(formatMad(order.totalCentimes, 'en'))}</td></tr></table></div>
<div id="paylater-demo" data-variant="${variant}" data-session-token="${escapeHtml(order.sessionToken)}" data-locale="${escapeHtml(order.locale)}" data-flow="${escapeHtml(order.flow)}" data-redirect-url="${escapeHtml(returnUrl)}" data-return-url="${escapeHtml(returnUrl)}">
  <div id="paylater-button" data-testid="paylater-button"></div>
</div>
<ol id="paylater-events" class="events" data-testid="events"></ol>`,
          [`${sdkBase}/sdk/latest/paylater.js`, '/demo/assets/demo.js'],
        ),
        demoCsp,
      );
    });

    router.get(base + '/return', async (req, res) => {
      const q = req.query as Record<string, unknown>;
      const order = typeof q.order === 'string' ? orders.get(q.order) : undefined;
      if (!order || order.variant !== variant) return sendHtml(res, shopPage('Order not found', '<p>Order not found.</p>'), demoCsp, 404);
      const redirectStatus = typeof q.status === 'string' ? q.status : null;
      const transactionId = typeof q.transaction_id === 'string' && q.transaction_id.length <= 100 ? q.transaction_id : null;
      const checks: string[] = [];
      let verified: string | null = null;
      if (transactionId) {
        try {
          // The redirect (or the browser event) is never proof of payment: verify on the backend.
          const a2 = await client(variant, req).getTransactionStatus(transactionId, order.sessionToken);
          checks.push(`A2 (session token): ${a2.status}, ${a2.amount} ${a2.currency}`);
          verified = a2.status;
          if (variant === 1) {
            const a3 = await (client(1, req) as PayLaterClientV1).verifyTransaction(transactionId);
            checks.push(`A3 (API key): ${a3.status}, ${a3.amount} ${a3.currency}`);
            if (a3.status !== 'APPROVED') verified = a3.status;
          }
          // Fulfil only an APPROVED transaction for exactly this order's amount (integer centimes).
          if (verified === 'APPROVED' && toCentimes(a2.amount) === order.totalCentimes && a2.currency === 'MAD') {
            order.paid = true;
            order.transactionId = transactionId;
          }
        } catch (e) {
          checks.push(
            e instanceof PayLaterApiError
              ? `Verification failed: ${e.status} ${e.code ?? ''} ${e.message}`
              : `Verification failed: ${String(e)}`,
          );
        }
      }
      order.lastStatus = verified;
      const paid = order.paid;
      sendHtml(
        res,
        shopPage(
          paid ? 'Order paid' : 'Order not paid',
          `<h1>Order ${escapeHtml(order.id.slice(0, 8))}</h1>
<p data-testid="order-status" data-paid="${paid}" data-verified-status="${escapeHtml(verified ?? '')}" class="${paid ? 'status-paid' : 'status-unpaid'}">${
            paid
              ? 'Order paid. Thank you!'
              : `Order not paid${verified ? ` (transaction ${escapeHtml(verified)})` : redirectStatus === 'CANCELLED' ? ' (payment cancelled)' : ''}.`
          }</p>
<p class="muted">Returned with status=${escapeHtml(redirectStatus ?? '(none)')}${transactionId ? `, transaction_id=${escapeHtml(transactionId)}` : ''}. Verified on the backend:</p>
<ul data-testid="verification">${checks.map((c) => `<li>${escapeHtml(c)}</li>`).join('') || '<li>No transaction to verify.</li>'}</ul>
<p>Total ${escapeHtml(formatMad(order.totalCentimes, 'en'))}</p>
<p><a href="${base}">Back to the shop</a>${paid ? '' : ` · <a href="${base}/orders/${order.id}/pay" data-testid="retry">Try paying again</a>`}</p>`,
        ),
        demoCsp,
      );
    });
  }
}
