/**
 * The sandbox dashboard (/dashboard) in Chromium through `paylater proxy`: the page and every call
 * its script makes (the lists, the clock, the moves, the redelivery, the reset, the event stream)
 * go through the proxy, and so do the merchant backend's calls beside it (B1 with a fault rule on,
 * then off: the dashboard offers no fault rule, a backend sets it) and the sandbox's webhooks (the
 * merchants' endpoint is the proxy's webhook port, forwarding to a receiver). One merchant per
 * variant, one proxy with no --variant. The server is correct: the proxy reports nothing, and its
 * coverage shows it judged each of those operations. The same tour with one answer altered on its
 * way (the sandbox clock's offset, a second off) is reported.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../scripts/build.ts';
import { freePort } from '../lib/free-port.ts';
import { CHROMIUM } from '../reference-server/test-support/browser-harness.ts';
import { mountSite } from '../reference-server/site.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { judgeRecorded } from '../judge/recorded.ts';
import { parseHar } from '../recorded/har.ts';
import { startLiveProxy, type LiveProxy } from './server.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const KEYS = { 1: `sk_test_dash_v1_${randomUUID().slice(0, 8)}`, 2: `sk_test_dash_v2_${randomUUID().slice(0, 8)}` } as const;
/** Events the receiver got, by webhook-id: a redelivery comes again with the same id. */
const received: { id: string; event: string }[] = [];
let hookPort: number;
let receiver: Server;
let server: TestServer;
let browser: Browser;

const listen = async (s: Server): Promise<string> => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
};
const close = (s: Server | undefined): Promise<void> => {
  s?.closeAllConnections();
  return new Promise((r) => (s ? s.close(() => r()) : r()));
};

beforeAll(async () => {
  await build(); // the dashboard's script, as npm run build writes it
  hookPort = await freePort();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string };
      received.push({ id: String(req.headers['webhook-id']), event: body.event });
      res.writeHead(204).end();
    });
  });
  await listen(receiver);
  const merchants = ([1, 2] as const).map((v) => ({
    name: `Dashboard ${v}`,
    storeName: `Dashboard store ${v}`,
    apiKey: KEYS[v],
    variant: v,
    webhookUrl: `http://127.0.0.1:${hookPort}/hooks`,
    webhookSecret: secret,
  }));
  server = await startTestServer({ merchants, mode: 'sandbox', mount: (app) => mountSite(app, { merchants, mode: 'sandbox' }) });
  browser = await chromium.launch(CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await close(receiver);
});

/** A proxy in front of `upstream`, its webhook side on the merchants' endpoint port, forwarding to the receiver. */
const proxyTo = async (upstream: string): Promise<LiveProxy> =>
  startLiveProxy({
    upstream,
    webhooks: { port: hookPort, forwardTo: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`, secret },
  });

/**
 * The tour of merchant `v`'s dashboard through `proxy`: B1 refused by a fault rule, the rule
 * removed, two transactions made; in the dashboard one confirmed (its webhook redelivered), the
 * other canceled, the clock advanced, the sandbox reset. Returns once the receiver got the webhooks.
 */
async function tour(proxy: LiveProxy, v: 1 | 2): Promise<void> {
  const key = KEYS[v];
  const call = (method: string, path: string, body?: unknown, header = 'X-API-Key') =>
    fetch(`${proxy.url}${path}`, {
      method,
      headers: { [header]: key, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const create = (vendorReference: string) =>
    call(
      'POST',
      '/api/v1/public/partner/transactions',
      {
        customerPhone: '212612345678',
        total: 1299.5,
        currency: 'MAD',
        items: [{ name: 'Lamp', quantity: 1, unitPrice: 1299.5 }],
        vendorReference,
      },
      'X-Service-Key',
    );
  const run = randomUUID().slice(0, 6);
  expect(
    (await call('PUT', '/api/v1/sandbox/faults', { rule: { failure: '503', operations: ['createPartnerTransaction'], times: 1 } })).status,
  ).toBe(200);
  expect((await create(`DASH-${run}-0`)).status).toBe(503);
  expect((await call('PUT', '/api/v1/sandbox/faults', { rule: null })).status).toBe(200);
  const first = (await (await create(`DASH-${run}-1`)).json()) as { id: string };
  const second = (await (await create(`DASH-${run}-2`)).json()) as { id: string };
  expect(first.id).toBeTruthy();
  expect(second.id).toBeTruthy();
  const before = received.length;

  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${proxy.url}/dashboard`);
    await page.fill('#key', key);
    await page.click('#key-form button[type=submit]');
    await expect.poll(() => page.locator(`#transactions tbody tr[data-id="${second.id}"]`).count()).toBe(1);

    await page.click(`#transactions tbody tr[data-id="${first.id}"]`);
    await expect.poll(() => page.locator('#detail-title').textContent()).toContain('PENDING');
    await page.click('#detail-actions button[data-action=confirm]');
    await expect.poll(() => page.locator('#detail-title').textContent()).toContain('APPROVED');
    // the approval's webhook, delivered through the proxy's webhook side, then sent again from the timeline
    await expect.poll(() => received.slice(before).filter((r) => r.event === 'transaction.approved').length).toBe(1);
    await expect.poll(() => page.locator('#timeline').textContent()).toContain('webhook transaction.approved');
    await page.click('#timeline button[data-redeliver]');
    await expect.poll(() => received.slice(before).filter((r) => r.event === 'transaction.approved').length).toBe(2);

    await page.click(`#transactions tbody tr[data-id="${second.id}"]`);
    await expect.poll(() => page.locator('#detail-title').textContent()).toContain(second.id);
    await page.click('#detail-actions button[data-action=cancel]');
    await expect.poll(() => page.locator('#detail-title').textContent()).toContain('CANCELED');
    await expect.poll(() => received.slice(before).filter((r) => r.event === 'transaction.cancelled').length).toBe(1);

    await page.click('#advance');
    await expect.poll(() => page.locator('#clock').textContent()).toContain('offset 60 s');
    await page.click('#reset');
    await expect.poll(() => page.locator('#clock').textContent()).toContain('offset 0 s');
  } finally {
    await context.close();
  }
}

/** The proxy's findings once everything it forwarded is judged. */
const findingsOf = (proxy: LiveProxy): string[] => {
  proxy.recorder.sweep();
  return proxy.recorder.findings.map((f) => `${f.kind} ${f.operation} ${f.jsonPath}: ${f.message}`);
};

/** The operations each tour makes, all judged (the event stream too, but only once its connection ends: not listed). */
const TOUR = [
  'sandboxSetFaultRule',
  'createPartnerTransaction',
  'sandboxGetClock',
  'sandboxListTransactions',
  'sandboxListSms',
  'sandboxListWebhookDeliveries',
  'sandboxConfirmTransaction',
  'sandboxCancelTransaction',
  'sandboxRedeliverWebhook',
  'sandboxAdvanceClock',
  'sandboxReset',
];

describe('the sandbox dashboard in Chromium through the proxy', () => {
  it('both variants: fault rule on and off, confirm, redelivery, cancel, clock advanced, reset: 0 proxy findings', async () => {
    const proxy = await proxyTo(server.baseUrl);
    try {
      await tour(proxy, 1);
      await tour(proxy, 2);
      expect(findingsOf(proxy)).toEqual([]);
      const cov = proxy.recorder.coverage();
      expect(TOUR.filter((op) => !cov.operations.exercised.includes(op))).toEqual([]);
      expect(cov.statuses).toEqual(expect.arrayContaining(['createPartnerTransaction 503', 'createPartnerTransaction 201']));
      // the partner and sandbox answers read alike in both variants: no key is pinned to one (ADR-070)
      expect(proxy.recorder.report().keysPinned).toEqual({ 1: 0, 2: 0 });
      // every webhook the receiver got came through the proxy's webhook side: per variant an approval, its redelivery, a cancelation
      expect(received.filter((r) => r.event !== 'transaction.approved' && r.event !== 'transaction.cancelled')).toEqual([]);
      expect(received).toHaveLength(6);
      expect(proxy.recorder.webhooksReceived).toBe(6);
      // the tours were the keys' only client (ADR-087): their HAR judged so, nothing either
      const har = parseHar(Buffer.from(JSON.stringify(proxy.recorder.har())), 'dashboard.har');
      const judged = await judgeRecorded(har, { soleClient: true });
      expect(judged.findings.map((f) => `${f.kind} ${f.operation} ${f.jsonPath}: ${f.message}`)).toEqual([]);
      expect(judged.exchanges.length).toBe(proxy.recorder.report().judged);
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('the same tour with the clock read a second ahead of its offset on the way back: reported', async () => {
    // between the proxy and the server: every answer unchanged but GET /api/v1/sandbox/clock's, whose offsetMilliseconds gains 1000
    const wrapper = createServer((req, res) => {
      const altered = req.method === 'GET' && req.url === '/api/v1/sandbox/clock';
      const headers = { ...req.headers };
      if (altered) delete headers['accept-encoding']; // its answer read as plain JSON
      const up = request(server.baseUrl + (req.url ?? '/'), { method: req.method, headers }, (ans: IncomingMessage) => {
        if (!altered || ans.statusCode !== 200) {
          res.writeHead(ans.statusCode ?? 502, ans.headers);
          ans.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        ans.on('data', (c: Buffer) => chunks.push(c));
        ans.on('end', () => {
          const clock = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { offsetMilliseconds: number };
          const text = JSON.stringify({ ...clock, offsetMilliseconds: clock.offsetMilliseconds + 1000 });
          const { 'transfer-encoding': _chunked, ...rest } = ans.headers;
          res.writeHead(200, { ...rest, 'content-length': String(Buffer.byteLength(text)) }).end(text);
        });
      });
      req.pipe(up);
    });
    const proxy = await proxyTo(await listen(wrapper));
    try {
      received.length = 0;
      await tour(proxy, 1);
      const found = findingsOf(proxy);
      // the clock answer itself, and the moves whose updatedAt the judge now times by the altered offset
      expect(found).toEqual(expect.arrayContaining([expect.stringMatching(/^contradiction sandboxGetClock \$\.offsetSeconds: /)]));
    } finally {
      await proxy.close();
      await close(wrapper);
    }
  }, 90_000);
});
