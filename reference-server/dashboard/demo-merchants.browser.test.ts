/**
 * Who the dashboard lists, as `paylater serve` decides it. A local sandbox on the built-in demo
 * merchants (no merchants file, the embedded store: `npm start`) offers them as buttons, so no key
 * is typed: in Chromium a click opens the merchant's transactions, on a page that looks like the
 * docs. A sandbox started with a merchants file, or on PostgreSQL, asks for a key and never lists a
 * merchant or a key: a shared sandbox must not show one merchant another's key.
 * Screenshot: .artifacts/screenshots/dashboard-demo.png.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.ts';
import { runServe } from '../cli.ts';
import { DEMO_MERCHANTS } from '../config.ts';
import { CHROMIUM, SHOTS } from '../test-support/browser-harness.ts';
import { expectDocsLook } from '../test-support/docs-look.ts';
import { startCluster, type Cluster } from '../test-support/pg-cluster.ts';

let browser: Browser;

/** `paylater serve argv` in this process; its base URL and a stop. */
async function serve(argv: string[]): Promise<{ baseUrl: string; stop: () => Promise<number> }> {
  let out = '';
  const ac = new AbortController();
  const done = runServe([...argv, '--port', '0'], { out: (s) => (out += s), err: (s) => (out += s), signal: ac.signal });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 50);
    void done.then((code) => {
      clearInterval(timer);
      reject(new Error(`paylater serve exited with ${code}:\n${out}`));
    });
  });
  return {
    baseUrl,
    stop: async () => {
      ac.abort();
      return done;
    },
  };
}

beforeAll(async () => {
  await build(); // the page script, as npm run build writes it
  browser = await chromium.launch(CHROMIUM);
  await mkdir(SHOTS, { recursive: true });
}, 300_000);
afterAll(async () => {
  await browser?.close();
});

describe('the dashboard of a sandbox', () => {
  it('on the built-in demo merchants: lists them; a click opens one, no key typed', async () => {
    const s = await serve(['--memory']);
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await page.goto(`${s.baseUrl}/dashboard`);
      await expectDocsLook(page, '.site-nav a.brand');
      const buttons = page.locator('#demo-merchants button');
      await expect.poll(() => buttons.count()).toBe(DEMO_MERCHANTS.length);
      for (const m of DEMO_MERCHANTS) expect(await page.locator('#demo-merchants').textContent()).toContain(m.name);
      // a transaction of the first demo merchant, then a click on it: the table shows it
      const created = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'X-Service-Key': DEMO_MERCHANTS[0]!.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          customerPhone: '212612345678',
          total: 1299.5,
          currency: 'MAD',
          items: [{ name: 'Lamp', quantity: 1, unitPrice: 1299.5 }],
          vendorReference: 'DEMO-PICK-1',
        }),
      });
      expect(created.status).toBe(201);
      await buttons.first().click();
      await expect.poll(() => page.locator('#transactions').textContent()).toContain('DEMO-PICK-1');
      expect(await page.locator('#key').inputValue()).toBe('');
      await page.screenshot({ path: path.join(SHOTS, 'dashboard-demo.png'), fullPage: true });
      await page.close();
    } finally {
      expect(await s.stop()).toBe(0);
    }
  }, 120_000);

  it('with a merchants file: asks for a key, lists no merchant and no key', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-dash-'));
    const file = path.join(dir, 'merchants.json');
    writeFileSync(
      file,
      JSON.stringify([{ name: 'Shared Shop', storeName: 'Shared', apiKey: 'sk_test_shared_shop_0000000000000001', variant: 1 }]),
    );
    const s = await serve(['--memory', '--merchants', file]);
    try {
      const html = await (await fetch(`${s.baseUrl}/dashboard`)).text();
      expect(html).toContain('id="key-form"');
      expect(html).not.toContain('demo-merchants');
      expect(html).not.toMatch(/sk_test_shared|Shared Shop/);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  }, 120_000);

  it('on PostgreSQL (the demo merchants, no file): asks for a key, lists no merchant and no key', async () => {
    let cluster: Cluster | undefined;
    try {
      cluster = await startCluster();
      const s = await serve(['--database-url', await cluster.createDatabase()]);
      try {
        const html = await (await fetch(`${s.baseUrl}/dashboard`)).text();
        expect(html).toContain('id="key-form"');
        expect(html).not.toContain('demo-merchants');
        for (const m of DEMO_MERCHANTS) expect(html).not.toContain(m.apiKey);
      } finally {
        expect(await s.stop()).toBe(0);
      }
    } finally {
      await cluster?.stop();
    }
  }, 180_000);
});
