/**
 * A HAR recorded by Playwright (`recordHar`) while Chromium buys in the demo shop, judged by
 * `paylater judge`: both variants, no finding (Variant 2 with its bodies embedded, Variant 1 as a
 * `.zip` with its bodies attached). The shopper's browser alone is recorded: the shop's backend
 * calls (A1, A2) are not in it, so the judge starts in the middle, from the SDK's calls with a
 * session token it never saw made. The same HAR with one answer edited, a status and an amount,
 * gives a finding naming that exchange.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../scripts/build.ts';
import { CHROMIUM, clickClosingPopup } from '../reference-server/test-support/browser-harness.ts';
import { createCheckoutRouter } from '../reference-server/checkout/router.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { instant } from '../judge/clock.ts';
import { judgeRecorded } from '../judge/recorded.ts';
import { readHar } from '../recorded/har.ts';

const V1_KEY = `sk_test_harb_v1_${randomUUID().slice(0, 8)}`;
const V2_KEY = `sk_test_harb_v2_${randomUUID().slice(0, 8)}`;
const dir = mkdtempSync(path.join(tmpdir(), 'paylater-har-browser-'));
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  await build();
  server = await startTestServer({
    merchants: [
      { name: 'Atlas Electronics', storeName: 'Atlas Casablanca', apiKey: V1_KEY, variant: 1 },
      { name: 'Souk Digital', storeName: 'Souk Digital Rabat', apiKey: V2_KEY, variant: 2 },
    ],
    mount: (app) => app.use(createCheckoutRouter({ demo: { merchants: { v1: { apiKey: V1_KEY }, v2: { apiKey: V2_KEY } } } })),
  });
  // the merchants' allowed origin is the server's own, known once it listens (as the checkout browser tests do)
  for (const m of server.handle.core.merchantsById.values()) m.allowedOrigins.push(server.baseUrl);
  browser = await chromium.launch(CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A purchase in the demo shop of `variant`, recorded by Playwright into `file` (a `.zip` attaches the bodies). */
async function purchase(variant: 1 | 2, file: string): Promise<void> {
  const context: BrowserContext = await browser.newContext({
    recordHar: { path: file, content: file.endsWith('.zip') ? 'attach' : 'embed' },
  });
  const page = await context.newPage();
  await page.goto(`${server.baseUrl}/demo/v${variant}`);
  await page.fill('input[name="qty_case-s"]', '1');
  await page.click('[data-testid="checkout"]');
  await page.waitForURL(/\/orders\/[0-9a-f-]+\/pay$/);
  await page.waitForSelector('[data-paylater="pay-button"]:not([disabled])');
  if (variant === 2) {
    await page.click('[data-paylater="pay-button"]');
    await page.waitForURL(/\/checkout\/[0-9a-f-]{36}/);
    await page.waitForSelector('[data-testid="simulate-success"]');
    await page.click('[data-testid="simulate-success"]');
  } else {
    const [popup] = await Promise.all([context.waitForEvent('page'), page.click('[data-paylater="pay-button"]')]);
    await popup.waitForSelector('[data-testid="simulate-success"]');
    await clickClosingPopup(popup, '[data-testid="simulate-success"]');
  }
  await page.waitForURL(new RegExp(`/demo/v${variant}/return\\?`));
  expect(await page.getAttribute('[data-testid="order-status"]', 'data-paid')).toBe('true');
  await context.close(); // writes the HAR
}

describe('a Chromium purchase in the demo shop, recorded by Playwright, judged offline', () => {
  const v2 = path.join(dir, 'v2.har');

  it('Variant 2 (bodies embedded): the SDK calls judged, the pages counted, no finding', async () => {
    await purchase(2, v2);
    const har = readHar(v2);
    const judged = await judgeRecorded(har);
    expect(judged.findings.map((f) => f.message)).toEqual([]);
    const cov = judged.judge.coverage();
    expect(cov.operations.exercised).toEqual(expect.arrayContaining(['sdkGetSession', 'sdkCreatePaymentIntent', 'sdkSimulatePayment']));
    expect(cov.unrouted).toBeGreaterThan(5); // the shop's pages, scripts and styles
  }, 120_000);

  it('Variant 1 (a .zip, bodies attached): no finding', async () => {
    const v1 = path.join(dir, 'v1.zip');
    await purchase(1, v1);
    const har = readHar(v1);
    expect(har.creator).toMatch(/^Playwright /);
    const judged = await judgeRecorded(har);
    expect(judged.findings.map((f) => f.message)).toEqual([]);
    expect(judged.judge.coverage().operations.exercised).toEqual(expect.arrayContaining(['sdkGetSession', 'sdkSimulatePayment']));
    // the bodies came out of the zip: the session read's answer is there
    const read = har.exchanges.find((x) => x.url.endsWith('/api/v1/public/sdk/session') && !x.responseTruncated);
    expect(JSON.parse(read!.responseText)).toMatchObject({ merchant_name: 'Atlas Electronics' });
  }, 120_000);

  it('the Variant 2 HAR with one answer edited (a status; an amount): the finding names that exchange', async () => {
    const original = readFileSync(v2, 'utf8');
    const entries = (
      JSON.parse(original) as {
        log: { entries: { startedDateTime: string; request: { url: string }; response: { status: number; content: { text?: string } } }[] };
      }
    ).log.entries;
    const at = entries.findIndex((e) => e.request.url.endsWith('/api/v1/public/sdk/session') && e.response.content.text);
    expect(at).toBeGreaterThanOrEqual(0);
    const edited = (edit: (e: (typeof entries)[number]) => void): string => {
      const har = JSON.parse(original) as { log: { entries: typeof entries } };
      edit(har.log.entries[at]!);
      const f = path.join(dir, `edited-${randomUUID().slice(0, 8)}.har`);
      writeFileSync(f, JSON.stringify(har));
      return f;
    };
    // the edited entry's number: its place once the entries are ordered by their start
    const seq = readHar(v2).exchanges.find(
      (x) => x.url === entries[at]!.request.url && x.sentAt === instant(entries[at]!.startedDateTime),
    )!.seq;
    const status = edited((e) => (e.response.status = 201));
    const amount = edited((e) => (e.response.content.text = e.response.content.text!.replace(/"total":([\d.]+)/, '"total":$1' + '5')));
    for (const [f, jsonPath] of [
      [status, '$'],
      [amount, '$.total'],
    ] as const) {
      const judged = await judgeRecorded(readHar(f));
      expect(judged.findings.map((x) => [x.kind, x.operation, x.jsonPath])).toEqual([['answer', 'sdkGetSession', jsonPath]]);
      expect(judged.findings[0]!.exchanges).toEqual([seq]);
    }
  });
});
