/**
 * The dashboard (ADR-045) in headless Chromium: the key typed once and kept in sessionStorage
 * (never in a URL), transactions listed and filtered, a timeline with SMS and deliveries,
 * the sandbox actions, live updates from the event stream, no CSP violation. Screenshots go
 * to .artifacts/screenshots; `npm run screenshots` refreshes the README's copy in
 * reference-server/dashboard/screenshots/ (a plain run leaves it alone).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.ts';
import { CHROMIUM, refreshReadmeShot, SHOTS } from '../test-support/browser-harness.ts';
import { mountSite } from '../site.ts';
import { startTestServer, type TestServer } from '../testing.ts';

const KEY = 'sk_test_dashboard_0001';
const OTHER = 'sk_test_dashboard_0002';
const README_SHOT = path.join(path.dirname(new URL(import.meta.url).pathname), 'screenshots', 'dashboard.png');
let s: TestServer;
let browser: Browser;
let page: Page;
const violations: string[] = [];
const urls: string[] = [];

beforeAll(async () => {
  const merchants = [
    { name: 'Atlas Electronics', storeName: 'Atlas Casablanca', apiKey: KEY, variant: 1 as const },
    { name: 'Other', storeName: 'Other', apiKey: OTHER, variant: 1 as const },
  ];
  await build(); // the page script, as npm run build writes it
  s = await startTestServer({ merchants, mount: (app) => mountSite(app, { merchants, mode: 'sandbox' }) });
  browser = await chromium.launch(CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  page.on('request', (r) => urls.push(r.url()));
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const create = async (key: string, over: Record<string, unknown> = {}) =>
  (await (
    await fetch(`${s.baseUrl}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'X-Service-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        customerPhone: '212612345678',
        total: 1299.5,
        currency: 'MAD',
        items: [{ name: 'Wireless headphones', quantity: 1, unitPrice: 1299.5 }],
        ...over,
      }),
    })
  ).json()) as { id: string };

// @checks ADR-045
describe('the sandbox dashboard', () => {
  it('lists, filters, shows a timeline, runs actions, updates live, keeps the key out of URLs', async () => {
    const first = await create(KEY, { vendorReference: 'ORDER-1001' });
    await create(OTHER, { vendorReference: 'ORDER-OTHER' });
    const res = await page.goto(`${s.baseUrl}/dashboard`);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.fill('#key', KEY);
    await page.click('#key-form button[type=submit]');
    await expect.poll(() => page.locator('#transactions tbody tr').count()).toBe(1);
    expect(await page.evaluate(() => sessionStorage.getItem('paylater.dashboard.key'))).toBe(KEY);
    await expect.poll(() => page.locator('#transactions').textContent()).toContain('ORDER-1001');
    expect(await page.locator('#transactions').textContent()).not.toContain('ORDER-OTHER');

    // live: a transaction created elsewhere appears through the event stream once it emits an event
    const second = await create(KEY, { vendorReference: 'ORDER-1002' });
    await fetch(`${s.baseUrl}/api/v1/sandbox/transactions/${second.id}/cancel`, { method: 'POST', headers: { 'X-API-Key': KEY } });
    await expect.poll(() => page.locator('#transactions tbody tr').count(), { timeout: 10_000 }).toBe(2);

    // filter by status and by vendorReference
    await page.selectOption('#filter-status', 'CANCELED');
    await page.click('#filters button');
    await expect.poll(() => page.locator('#transactions tbody tr').count()).toBe(1);
    await page.selectOption('#filter-status', '');
    await page.fill('#filter-ref', 'ORDER-1001');
    await page.click('#filters button');
    await expect.poll(() => page.locator('#transactions tbody tr').count()).toBe(1);

    // timeline and an action: only the moves x-state-machine allows from the transaction's status
    const offered = () => page.locator('#detail-actions button:visible').evaluateAll((bs) => bs.map((b) => b.textContent));
    await page.click(`#transactions tbody tr[data-id="${first.id}"]`);
    await expect.poll(() => page.locator('#timeline').textContent()).toContain('SMS to 212612345678');
    expect(await offered()).toEqual(['Confirm', 'Cancel']);
    await page.click('#detail-actions button[data-action=confirm]');
    await expect.poll(() => page.locator('#detail-title').textContent()).toContain('APPROVED');
    await expect.poll(offered).toEqual(['Complete']);
    await expect.poll(() => page.locator('#timeline').textContent()).toContain('webhook transaction.approved');
    await page.click('#timeline button[data-redeliver]');
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/redelivery of msg_\w+ queued/);
    await page.click('#advance');
    await expect.poll(() => page.locator('#clock').textContent()).toContain('offset 60 s');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard.png'), fullPage: true });
    await page.click('#reset');
    await expect.poll(() => page.locator('#clock').textContent()).toContain('offset 0 s');

    expect(urls.filter((u) => u.includes(KEY))).toEqual([]);
    expect(violations).toEqual([]);
    await refreshReadmeShot(path.join(SHOTS, 'dashboard.png'), README_SHOT);
  }, 60_000);
});
