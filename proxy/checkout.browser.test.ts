/**
 * A demo purchase in Chromium through `paylater proxy`: the reference server with the checkout
 * router and the demo shop, its public URL and the demo backend's API address both the proxy's, so
 * the shopper's browser and the merchant's backend both go through it. The proxy's coverage then
 * shows the checkout operations (A1, the SDK's session and payment intent, A2) and no finding.
 * One proxy with no --variant serves both purchases: each key's variant is learned (ADR-070).
 */
import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../scripts/build.ts';
import { freePort } from '../lib/free-port.ts';
import { CHROMIUM, clickClosingPopup } from '../reference-server/test-support/browser-harness.ts';
import { createCheckoutRouter } from '../reference-server/checkout/router.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { startLiveProxy, type LiveProxy } from './server.ts';

const V1_KEY = `sk_test_pxb_v1_${randomUUID().slice(0, 8)}`;
const V2_KEY = `sk_test_pxb_v2_${randomUUID().slice(0, 8)}`;
let server: TestServer;
let proxy: LiveProxy;
let browser: Browser;
let port: number;

beforeAll(async () => {
  await build();
  port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  server = await startTestServer({
    merchants: [
      { name: 'Atlas Electronics', storeName: 'Atlas Casablanca', apiKey: V1_KEY, variant: 1, allowedOrigins: [url] },
      { name: 'Souk Digital', storeName: 'Souk Digital Rabat', apiKey: V2_KEY, variant: 2, allowedOrigins: [url] },
    ],
    publicUrl: url,
    mount: (app) =>
      app.use(
        createCheckoutRouter({
          demo: { merchants: { v1: { apiKey: V1_KEY }, v2: { apiKey: V2_KEY } }, apiBaseUrl: url, publicBaseUrl: url },
        }),
      ),
  });
  browser = await chromium.launch(CHROMIUM);
  proxy = await startLiveProxy({ upstream: server.baseUrl, port });
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await server?.close();
});

describe('a demo purchase in Chromium through the proxy', () => {
  it('Variant 2: shop → hosted page → Simulate Success → order paid; the checkout operations in the coverage, no finding', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${proxy.url}/demo/v2`);
    await page.fill('input[name="qty_case-s"]', '1');
    await page.click('[data-testid="checkout"]');
    await page.waitForURL(/\/orders\/[0-9a-f-]+\/pay$/);
    await page.waitForSelector('[data-paylater="pay-button"]:not([disabled])');
    await page.click('[data-paylater="pay-button"]');
    await page.waitForURL(/\/checkout\/[0-9a-f-]{36}/);
    expect(new URL(page.url()).origin).toBe(proxy.url);
    await page.waitForSelector('[data-testid="simulate-success"]');
    await page.click('[data-testid="simulate-success"]');
    await page.waitForURL(/\/demo\/v2\/return\?/);
    expect(await page.getAttribute('[data-testid="order-status"]', 'data-paid')).toBe('true');
    await context.close();

    const cov = proxy.recorder.coverage();
    expect(cov.operations.exercised).toEqual(
      expect.arrayContaining([
        'createSession',
        'sdkGetSession',
        'sdkCreatePaymentIntent',
        'sdkSimulatePayment',
        'getTransactionStatusBySessionToken',
      ]),
    );
    expect(cov.statuses).toEqual(expect.arrayContaining(['createSession 200', 'getTransactionStatusBySessionToken 200']));
    expect(proxy.recorder.findings.map((f) => f.message)).toEqual([]);
    expect(JSON.stringify(proxy.recorder.report())).not.toContain(V2_KEY);
    expect(proxy.recorder.report().keysPinned).toEqual({ 1: 0, 2: 1 });
  }, 90_000);

  it('Variant 1: quick-start button → popup → Simulate Success → backend A2 and A3 → order paid; A3 in the coverage too', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${proxy.url}/demo/v1`);
    await page.fill('input[name="qty_case-s"]', '1');
    await page.click('[data-testid="checkout"]');
    await page.waitForURL(/\/orders\/[0-9a-f-]+\/pay$/);
    await page.waitForSelector('[data-paylater="pay-button"]:not([disabled])');
    const [popup] = await Promise.all([context.waitForEvent('page'), page.click('[data-paylater="pay-button"]')]);
    await popup.waitForSelector('[data-testid="simulate-success"]');
    expect(new URL(popup.url()).origin).toBe(proxy.url);
    await clickClosingPopup(popup, '[data-testid="simulate-success"]');
    await page.waitForURL(/\/demo\/v1\/return\?/);
    expect(await page.getAttribute('[data-testid="order-status"]', 'data-paid')).toBe('true');
    await context.close();

    const cov = proxy.recorder.coverage();
    expect(cov.operations.exercised).toEqual(
      expect.arrayContaining([
        'createSession',
        'sdkGetSession',
        'sdkCreatePaymentIntent',
        'sdkSimulatePayment',
        'getTransactionStatusBySessionToken',
        'verifyTransaction',
      ]),
    );
    expect(cov.statuses).toEqual(expect.arrayContaining(['verifyTransaction 200']));
    expect(proxy.recorder.findings.map((f) => f.message)).toEqual([]);
    expect(proxy.recorder.report().keysPinned).toEqual({ 1: 1, 2: 1 });
  }, 90_000);
});
