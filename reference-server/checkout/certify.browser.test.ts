/**
 * `paylater certify`, verification before fulfilment and key hygiene, in a real browser: while
 * certify observes, headless Chromium buys in the demo shop (Variant 2 redirect flow). The demo
 * shop's backend verifies with A2 before it marks the order paid: the items pass. A copy of the
 * shop whose return page fulfils on the redirect's `status=SUCCESS` alone fails the
 * verification item, naming the transaction.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.ts';
import { runCertify } from '../../certify/certify.ts';
import type { CertifyReport } from '../../certify/checklist.ts';
import { startTestServer, type TestServer } from '../testing.ts';
import { CHROMIUM, V2_KEY } from '../test-support/browser-harness.ts';
import { createCheckoutRouter } from './router.ts';

let server: TestServer;
let browser: Browser;
/** When true, the shop's return page is the naive copy's: paid on the redirect's word. */
let fulfilOnRedirect = false;

beforeAll(async () => {
  await build();
  server = await startTestServer({
    merchants: [{ name: 'Souk Digital', storeName: 'Souk Digital Rabat', apiKey: V2_KEY, variant: 2, allowedOrigins: [] }],
    mount: (app) => {
      // The naive copy of the demo shop's return page: it believes the redirect and verifies nothing.
      app.get('/demo/v2/return', (req, res, next) => {
        if (!fulfilOnRedirect) return next();
        const paid = req.query.status === 'SUCCESS';
        res
          .type('html')
          .send(`<!doctype html><p data-testid="order-status" data-paid="${paid}">${paid ? 'Order paid.' : 'Order not paid.'}</p>`);
      });
      app.use(createCheckoutRouter({ demo: { merchants: { v2: { apiKey: V2_KEY } } } }));
    },
  });
  for (const m of server.handle.core.merchantsById.values()) m.allowedOrigins.push(server.baseUrl);
  browser = await chromium.launch(CHROMIUM);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A shopper buys in the demo shop: cart → pay page → hosted page → Simulate Success → the shop's return page. */
async function buy(page: Page): Promise<{ transactionId: string; paid: string | null }> {
  await page.goto(`${server.baseUrl}/demo/v2`);
  await page.fill('input[name="qty_case-s"]', '1');
  await page.click('[data-testid="checkout"]');
  await page.waitForURL(/\/orders\/[0-9a-f-]+\/pay$/);
  await page.waitForSelector('[data-paylater="pay-button"]:not([disabled])');
  await page.click('[data-paylater="pay-button"]');
  await page.waitForSelector('[data-testid="simulate-success"]');
  await page.click('[data-testid="simulate-success"]');
  await page.waitForURL(/\/demo\/v2\/return\?/);
  await page.waitForSelector('[data-testid="order-status"]');
  return {
    transactionId: new URL(page.url()).searchParams.get('transaction_id')!,
    paid: await page.getAttribute('[data-testid="order-status"]', 'data-paid'),
  };
}

async function certifyWhile(shop: (page: Page) => Promise<void>): Promise<CertifyReport> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    return await runCertify({ baseUrl: server.baseUrl, apiKey: V2_KEY, during: () => shop(page) });
  } finally {
    await context.close();
  }
}
const itemOf = (r: CertifyReport, id: string) => r.items.find((i) => i.id === id)!;

describe('paylater certify observes the shop (Chromium)', () => {
  it("the demo shop's backend verifies with A2 before fulfilling: verification and key hygiene pass", async () => {
    let bought: { transactionId: string; paid: string | null } | undefined;
    const r = await certifyWhile(async (page) => {
      bought = await buy(page);
    });
    expect(bought!.paid).toBe('true');
    const v = itemOf(r, 'verification.before-fulfilment');
    expect(v.verdict, v.seen).toBe('pass');
    expect(v.seen).toContain(`${bought!.transactionId} read by getTransactionStatusBySessionToken`);
    const k = itemOf(r, 'key-hygiene.no-browser');
    expect(k.verdict, k.seen).toBe('pass');
    expect(k.seen).toMatch(/^\d+ call\(s\) with the API key, none with a browser's/);
  });

  it('a copy of the shop that fulfils on the redirect alone fails the verification item', async () => {
    fulfilOnRedirect = true;
    let bought: { transactionId: string; paid: string | null } | undefined;
    try {
      const r = await certifyWhile(async (page) => {
        bought = await buy(page);
      });
      expect(bought!.paid).toBe('true'); // the naive shop shipped the order
      const v = itemOf(r, 'verification.before-fulfilment');
      expect(v.verdict).toBe('fail');
      expect(v.seen).toMatch(
        new RegExp(`${bought!.transactionId} \\(approved at [^)]+\\) was never read by A2, A3, B2 or B3 after its approval`),
      );
      expect(v.guide).toBe(`${server.baseUrl}/docs/guide-go-live.html#verification-before-fulfilment`);
    } finally {
      fulfilOnRedirect = false;
    }
  });

  it('an API key sent from the browser fails key hygiene', async () => {
    const r = await certifyWhile(async (page) => {
      await page.goto(`${server.baseUrl}/demo/v2`);
      // a page that calls the API with the merchant's key (what the rule forbids)
      await page.evaluate(async (key) => {
        await fetch('/api/v1/public/partner/transactions/vendor/NO-SUCH-ORDER', { headers: { 'X-Api-Key': key } });
      }, V2_KEY);
    });
    const k = itemOf(r, 'key-hygiene.no-browser');
    expect(k.verdict).toBe('fail');
    expect(k.seen).toMatch(/GET \/api\/v1\/public\/partner\/transactions\/vendor\/NO-SUCH-ORDER \((Referer|Sec-Fetch-Site|Origin) /);
  });
});
