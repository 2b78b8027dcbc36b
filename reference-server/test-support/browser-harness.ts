/**
 * Harness of checkout/checkout.browser.test.ts: the reference server at 127.0.0.1 with the checkout
 * router and the demo shop mounted, headless Debian Chromium (playwright-core), and a browser
 * context per test that records every CSP violation and dialog. `setUpCheckoutBrowser()`
 * registers the suite's beforeAll/afterAll; `base` (a live binding) is the server's address
 * once they have run.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { build } from '../../scripts/build.ts';
import { ROOT } from '../../scripts/lib/paths.ts';
import { UPDATE_SCREENSHOTS_ENV } from '../../scripts/screenshots.ts';
import { startTestServer, type TestServer } from '../testing.ts';
import { createCheckoutRouter } from '../checkout/router.ts';

export const V1_KEY = 'sk_test_v1_browser_4f7c2a9e1b3d';
export const V2_KEY = 'sk_test_v2_browser_8b1e6d3c5a7f';
export const SHOTS = path.join(ROOT, '.artifacts', 'screenshots');
export const README_SHOTS = path.join(ROOT, 'sdk', 'browser', 'screenshots');

/**
 * Copies screenshot `shot` (under `.artifacts/`) over the README's committed copy `target`, only
 * when `npm run screenshots` asks for it or the copy is missing, so a test run leaves the tree
 * clean. True when it copied.
 */
export async function refreshReadmeShot(shot: string, target: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env[UPDATE_SCREENSHOTS_ENV] !== '1' && existsSync(target)) return false;
  await mkdir(path.dirname(target), { recursive: true });
  await copyFile(shot, target);
  return true;
}

/** Debian's Chromium, headless (`apt-get install chromium`). */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
};

let server: TestServer;
let browser: Browser;
export let base: string;
export const cspViolations: string[] = [];

/** Builds the bundles, starts the server and the browser before the suite; stops them after. */
export function setUpCheckoutBrowser(): void {
  beforeAll(async () => {
    await build();
    server = await startTestServer({
      merchants: [
        { name: 'Atlas Electronics', storeName: 'Atlas Casablanca', apiKey: V1_KEY, variant: 1, allowedOrigins: [] },
        { name: 'Souk Digital', storeName: 'Souk Digital Rabat', apiKey: V2_KEY, variant: 2, allowedOrigins: [] },
      ],
      mount: (app) => app.use(createCheckoutRouter({ demo: { merchants: { v1: { apiKey: V1_KEY }, v2: { apiKey: V2_KEY } } } })),
    });
    base = server.baseUrl;
    // The merchants' allowed origin is this server's own origin, known only once it listens on
    // port 0; startTestServer has no port option, so it is added to the running configuration.
    for (const m of server.handle.core.merchantsById.values()) m.allowedOrigins.push(base);
    browser = await chromium.launch(CHROMIUM);
    await mkdir(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
}

export interface Ctx {
  context: BrowserContext;
  page: Page;
  dialogs: string[];
  console: string[];
}

/** A fresh browser context that reports every CSP violation (any page, any popup) and every dialog. */
export async function open(): Promise<Ctx> {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const consoleLines: string[] = [];
  const dialogs: string[] = [];
  await context.exposeBinding('__reportCsp', (_src, v: string) => {
    cspViolations.push(v);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __reportCsp(v: string): void }).__reportCsp(`${e.violatedDirective} ${e.blockedURI} @ ${e.documentURI}`);
    });
  });
  const watch = (p: Page) => {
    p.on('console', (m) => {
      consoleLines.push(`${m.type()}: ${m.text()}`);
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(`console: ${m.text()}`);
    });
    p.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
  };
  context.on('page', watch);
  const page = await context.newPage();
  return { context, page, dialogs, console: consoleLines };
}

/** Shop → cart (headphones + case = 779.49 MAD) → the pay page with the SDK button. */
export async function toPayPage(page: Page, variant: 1 | 2, opts: { flow?: 'redirect' | 'popup'; locale?: string } = {}): Promise<void> {
  await page.goto(`${base}/demo/v${variant}`);
  await page.fill('input[name="qty_case-s"]', '1');
  if (opts.locale) await page.selectOption('[data-testid="locale"]', opts.locale);
  if (opts.flow) await page.selectOption('[data-testid="flow"]', opts.flow);
  await page.click('[data-testid="checkout"]');
  await page.waitForURL(/\/orders\/[0-9a-f-]+\/pay$/);
  await page.waitForSelector('[data-paylater="pay-button"]:not([disabled])');
}

/**
 * Clicks a control of the hosted page's popup that posts its outcome and closes the popup. The
 * click itself reaches the page, but Playwright's click may then reject with "Target page, context
 * or browser has been closed" because the window closed while the action was finishing (a race on
 * a loaded machine, microsoft/playwright#26900; CI saw it once). That rejection is accepted only
 * when the popup really closed within 5 s; any other failure is thrown as it came.
 */
export async function clickClosingPopup(popup: Page, selector: string): Promise<void> {
  const closed = popup.waitForEvent('close', { timeout: 5000 }).then(
    () => true,
    () => popup.isClosed(),
  );
  try {
    await popup.click(selector);
  } catch (error) {
    if (!(await closed)) throw error;
  }
}

export const sessionToken = (page: Page) => page.getAttribute('#paylater-demo', 'data-session-token') as Promise<string>;
export const events = (page: Page) => page.$$eval('[data-testid="events"] li', (lis) => lis.map((l) => l.textContent ?? ''));

/** The demo keeps the token server-side; tests read it back through the pay page of the order. */
export async function sessionTokenOfOrder(orderId: string): Promise<string> {
  const html = await (await fetch(`${base}/demo/v2/orders/${orderId}/pay`)).text();
  return /data-session-token="([^"]+)"/.exec(html)![1]!;
}
