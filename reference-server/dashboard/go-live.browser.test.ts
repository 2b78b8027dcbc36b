/**
 * The dashboard's go-live page in headless Chromium: the test key typed once, the check run on
 * the server against this sandbox, the SDK's example receiver passing every receiver item in the
 * table, the HTML report offered as a download, no CSP violation; and the run endpoint refusing
 * a missing key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.ts';
import { createWebhookReceiver, type WebhookReceiver } from '../../sdk/examples/webhook-receiver.ts';
import { CHROMIUM, SHOTS } from '../test-support/browser-harness.ts';
import { expectDocsLook } from '../test-support/docs-look.ts';
import { mountSite } from '../site.ts';
import { startTestServer, type TestServer } from '../testing.ts';

const KEY = 'sk_test_golive_0001';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const dir = mkdtempSync(join(tmpdir(), 'paylater-golive-'));
let s: TestServer;
let browser: Browser;
let receiver: WebhookReceiver;
let hookUrl: string;

beforeAll(async () => {
  const merchants = [{ name: 'Atlas Electronics', storeName: 'Atlas Casablanca', apiKey: KEY, variant: 1 as const, webhookSecret: SECRET }];
  await build();
  s = await startTestServer({ merchants, webhookDispatcherFactory: null, mount: (app) => mountSite(app, { merchants, mode: 'sandbox' }) });
  receiver = createWebhookReceiver({ secret: SECRET, storePath: join(dir, 'inbox.json'), log: () => {} });
  await new Promise<void>((r) => receiver.server.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks`;
  browser = await chromium.launch(CHROMIUM);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  receiver?.server.closeAllConnections();
  receiver?.server.close();
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('dashboard: go-live check page', () => {
  it('runs the checklist and shows each item with its guide link, no CSP violation', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${s.baseUrl}/dashboard/go-live`);
    await page.fill('#key', KEY);
    await page.fill('#webhook-url', hookUrl);
    await page.click('#run');
    await page.waitForSelector('#items tbody tr[data-item="receiver.redelivery"]');
    const rows = await page.$$eval('#items tbody tr', (trs) =>
      trs.map((t) => [t.getAttribute('data-item'), t.getAttribute('data-verdict')]),
    );
    expect(rows).toEqual([
      ['receiver.valid', 'pass'],
      ['receiver.forged', 'pass'],
      ['receiver.wrongSecret', 'pass'],
      ['receiver.staleTimestamp', 'pass'],
      ['receiver.tampered', 'pass'],
      ['receiver.redelivery', 'pass'],
      ['verification.before-fulfilment', 'not_observed'],
      ['key-hygiene.no-browser', 'not_observed'],
      ['resilience.retry-after', 'not_observed'],
      ['resilience.backoff', 'not_observed'],
    ]);
    expect(await page.textContent('#summary')).toBe('Not ready to go live. 6 passed, 0 failed, 4 not observed.');
    expect(await page.getAttribute('#items tbody tr[data-item="receiver.forged"] a', 'href')).toBe(
      `${s.baseUrl}/docs/guide-go-live.html#webhook-receiver`,
    );
    expect(await page.getAttribute('#download', 'href')).toMatch(/^blob:/);
    // the key is kept in the tab, never in the address
    expect(await page.evaluate(() => sessionStorage.getItem('paylater.dashboard.key'))).toBe(KEY);
    expect(page.url()).toBe(`${s.baseUrl}/dashboard/go-live`);
    expect(violations).toEqual([]);
    // it looks like the docs, and each verdict reads at a glance: its own colours, not the table's
    await expectDocsLook(page, '#items tbody a');
    const colours = async (item: string) =>
      page.$eval(`#items tbody tr[data-item="${item}"] td.verdict`, (td) => {
        const c = getComputedStyle(td);
        return [c.color, c.backgroundColor];
      });
    const [pass, notObserved] = [await colours('receiver.valid'), await colours('key-hygiene.no-browser')];
    expect(pass).toEqual(['rgb(11, 110, 79)', 'rgb(230, 243, 238)']);
    expect(notObserved[1]).not.toBe(pass[1]);
    expect(notObserved[1]).not.toBe('rgba(0, 0, 0, 0)');
    await mkdir(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'go-live.png'), fullPage: true });
    await page.close();
  });

  it('the run endpoint refuses a missing key and a bad body', async () => {
    const run = (headers: Record<string, string>, body: unknown) =>
      fetch(`${s.baseUrl}/dashboard/go-live/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await run({}, {})).status).toBe(401);
    expect((await run({ 'X-API-Key': KEY }, { observeSeconds: 601 })).status).toBe(400);
    const wrong = await run({ 'X-API-Key': 'sk_test_nobody_000000000000' }, {});
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/401 INVALID_API_KEY/);
  });
});
