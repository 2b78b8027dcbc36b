/**
 * The landing page `/` in headless Chromium: styled by the docs' stylesheet (computed font and
 * colours, not the browser's defaults), a card per user with their next step (the merchant's
 * demo, dashboard and docs; the implementer's scaffold and conform commands; the API designer's
 * spec, lint and diff gate), no CSP violation. Screenshot: .artifacts/screenshots/landing.png.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from './config.ts';
import { mountSite } from './site.ts';
import { startTestServer, type TestServer } from './testing.ts';
import { CHROMIUM, SHOTS } from './test-support/browser-harness.ts';
import { expectDocsLook } from './test-support/docs-look.ts';

let s: TestServer;
let browser: Browser;

beforeAll(async () => {
  s = await startTestServer({
    merchants: [...DEMO_MERCHANTS],
    mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox' }),
  });
  browser = await chromium.launch(CHROMIUM);
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

describe('the landing page', () => {
  it('looks like the docs and tells merchants, implementers and API designers their next step', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const res = await page.goto(`${s.baseUrl}/`);
    expect(res!.status()).toBe(200);
    await expectDocsLook(page, 'main.page a');
    const cards = page.locator('.cards .card');
    await expect.poll(() => cards.count()).toBe(3);
    const [merchant, implementer, designer] = await cards.allTextContents();
    for (const link of ['Demo shop', 'Dashboard', 'Merchant docs']) expect(merchant).toContain(link);
    expect(implementer).toContain('npx paylater init server');
    expect(implementer).toContain('npx paylater conform');
    for (const step of ['spec/', 'npm run lint', 'npm run diff']) expect(designer).toContain(step);
    for (const href of ['/demo', '/dashboard', '/docs/merchants.html']) {
      expect(await page.locator(`.cards a[href="${href}"]`).count(), href).toBe(1);
      expect((await fetch(`${s.baseUrl}${href}`)).status, href).toBe(200);
    }
    // the cards sit side by side like the docs' (the stylesheet's grid), not stacked like plain blocks
    const boxes = await Promise.all([0, 1].map(async (i) => (await cards.nth(i).boundingBox())!));
    expect(boxes[1]!.x).toBeGreaterThan(boxes[0]!.x + boxes[0]!.width - 1);
    expect(violations).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'landing.png'), fullPage: true });
    await page.close();
  });
});
