/**
 * `paylater certify`, the webhook receiver items end to end: the SDK's example receiver passes
 * every one; a receiver that skips the signature check, a slow one and one answering 500 each
 * fail the right items with the right reason. Then the report's three forms and `--help`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGuides } from '../scripts/docs/build.ts';
import { slugify } from '../scripts/docs/commonmark.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { createWebhookReceiver } from '../sdk/examples/webhook-receiver.ts';
import { verifyWebhook, WebhookVerificationError } from '../sdk/webhooks/verify.ts';
import { GUIDE_SECTIONS, type CertifyReport, type CheckItem } from './checklist.ts';
import { CERTIFY_FLAGS, CERTIFY_OPTIONS, CERTIFY_USAGE, runCertify, runCertifyCli } from './certify.ts';
import { DELIVERY_TIMEOUT_MS } from './receiver.ts';

const dir = mkdtempSync(join(tmpdir(), 'paylater-certify-'));
let s: TestServer;
let key: string;
let secret: string;
const servers: Server[] = [];
beforeAll(async () => {
  s = await startTestServer({ webhookDispatcherFactory: null });
  key = s.merchants[0]!.apiKey;
  secret = s.merchants[0]!.webhookSecret!;
});
afterAll(async () => {
  for (const x of servers) {
    x.closeAllConnections();
    x.close();
  }
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

/** A receiver verifying with the SDK, then answering as `after` says. */
function verifying(after: (res: ServerResponse) => void): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      } catch (e) {
        res.writeHead(e instanceof WebhookVerificationError ? 401 : 500).end();
        return;
      }
      after(res);
    });
  });
}

const verdicts = (r: CertifyReport) => Object.fromEntries(r.items.filter((i) => i.group === 'receiver').map((i) => [i.id, i.verdict]));
const itemOf = (r: CertifyReport, id: string): CheckItem => r.items.find((i) => i.id === id)!;
const REJECTIONS = ['receiver.forged', 'receiver.wrongSecret', 'receiver.staleTimestamp', 'receiver.tampered'];

describe('paylater certify: webhook receiver', () => {
  it("the SDK's example receiver passes every receiver item", async () => {
    const receiver = createWebhookReceiver({ secret, storePath: join(dir, 'inbox.json'), log: () => {} });
    const url = await listen(receiver.server);
    const r = await runCertify({ baseUrl: s.baseUrl, apiKey: key, webhookUrl: url });
    expect(verdicts(r)).toEqual({
      'receiver.valid': 'pass',
      'receiver.forged': 'pass',
      'receiver.wrongSecret': 'pass',
      'receiver.staleTimestamp': 'pass',
      'receiver.tampered': 'pass',
      'receiver.redelivery': 'pass',
    });
    expect(itemOf(r, 'receiver.forged').seen).toMatch(/answered 401/);
    expect(itemOf(r, 'receiver.staleTimestamp').seen).toMatch(/answered 400/);
    // the valid event and its redelivery were accepted once: one inbox entry
    await receiver.drain();
    expect(receiver.inbox.size()).toBe(1);
    // nothing was observed: those items say so, and the report is not "ready"
    expect(itemOf(r, 'verification.before-fulfilment').verdict).toBe('not_observed');
    expect(r.ready).toBe(false);
  });

  it('a receiver that skips the signature check fails each rejection item, saying it accepted the event', async () => {
    const url = await listen(createServer((_req, res) => res.writeHead(200).end('ok')));
    const r = await runCertify({ baseUrl: s.baseUrl, apiKey: key, webhookUrl: url });
    expect(itemOf(r, 'receiver.valid').verdict).toBe('pass');
    expect(itemOf(r, 'receiver.redelivery').verdict).toBe('pass');
    for (const id of REJECTIONS) {
      expect(itemOf(r, id).verdict, id).toBe('fail');
      expect(itemOf(r, id).seen, id).toMatch(/answered 200 .*accepted an event it cannot trust/);
      expect(itemOf(r, id).guide).toBe(`${s.baseUrl}/docs/guide-go-live.html#webhook-receiver`);
    }
  });

  it('a slow receiver fails the valid event and the redelivery: no answer within the delivery timeout', async () => {
    const url = await listen(verifying((res) => setTimeout(() => res.writeHead(200).end(), DELIVERY_TIMEOUT_MS + 2000)));
    const r = await runCertify({ baseUrl: s.baseUrl, apiKey: key, webhookUrl: url });
    for (const id of ['receiver.valid', 'receiver.redelivery']) {
      expect(itemOf(r, id).verdict, id).toBe('fail');
      expect(itemOf(r, id).seen, id).toMatch(/no answer within 10 s \(the delivery timeout\)/);
    }
    for (const id of REJECTIONS) expect(itemOf(r, id).verdict, id).toBe('pass');
  }, 40_000);

  it('a receiver answering 500 fails the valid event and the redelivery, naming the status', async () => {
    const url = await listen(verifying((res) => res.writeHead(500).end()));
    const r = await runCertify({ baseUrl: s.baseUrl, apiKey: key, webhookUrl: url });
    for (const id of ['receiver.valid', 'receiver.redelivery']) {
      expect(itemOf(r, id).verdict, id).toBe('fail');
      expect(itemOf(r, id).seen, id).toMatch(/answered 500 in \d+ ms/);
    }
    for (const id of REJECTIONS) expect(itemOf(r, id).verdict, id).toBe('pass');
  });

  it('no webhook URL: the receiver items are not observed, saying why', async () => {
    const r = await runCertify({ baseUrl: s.baseUrl, apiKey: s.merchants[1]!.apiKey });
    // the second demo merchant has a secret but no URL
    for (const i of r.items.filter((x) => x.group === 'receiver')) {
      expect(i.verdict).toBe('not_observed');
      expect(i.seen).toMatch(/no webhook URL/);
    }
  });
});

describe('paylater certify: a partner integration observed', () => {
  const b1 = (vendorReference: string) =>
    fetch(`${s.baseUrl}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'X-Service-Key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        customerPhone: '212612345678',
        total: 1299.5,
        currency: 'MAD',
        vendorReference,
        items: [{ name: 'Wireless headphones', quantity: 1, unitPrice: 1299.5 }],
      }),
    }).then(async (r) => ((await r.json()) as { id: string }).id);
  const confirm = (id: string) =>
    fetch(`${s.baseUrl}/api/v1/sandbox/transactions/${id}/confirm`, { method: 'POST', headers: { 'X-API-Key': key } });
  const b3 = (ref: string) => fetch(`${s.baseUrl}/api/v1/public/partner/transactions/vendor/${ref}`, { headers: { 'X-Api-Key': key } });

  it('a backend reading B3 after the approval passes; one that does not, or sends its key to the SDK, fails', async () => {
    const good = `CERT-GOOD-${Date.now()}`;
    const r1 = await runCertify({
      baseUrl: s.baseUrl,
      apiKey: key,
      during: async () => {
        const id = await b1(good);
        expect((await confirm(id)).status).toBe(200);
        expect((await b3(good)).status).toBe(200); // the backend reads the transaction before fulfilling
      },
    });
    expect(itemOf(r1, 'verification.before-fulfilment').verdict, itemOf(r1, 'verification.before-fulfilment').seen).toBe('pass');
    expect(itemOf(r1, 'verification.before-fulfilment').seen).toMatch(/read by getPartnerTransactionByVendorReference/);
    expect(itemOf(r1, 'key-hygiene.no-browser').verdict).toBe('pass');

    let unread = '';
    const r2 = await runCertify({
      baseUrl: s.baseUrl,
      apiKey: key,
      during: async () => {
        const ref = `CERT-BAD-${Date.now()}`;
        unread = await b1(ref);
        // read before the approval only: no proof of the approval
        expect((await b3(ref)).status).toBe(200);
        expect((await confirm(unread)).status).toBe(200);
        // and the key sent to a route of the SDK
        await fetch(`${s.baseUrl}/api/v1/public/sdk/session`, { headers: { 'X-API-Key': key } });
      },
    });
    const v = itemOf(r2, 'verification.before-fulfilment');
    expect(v.verdict).toBe('fail');
    expect(v.seen).toContain(`${unread} (approved at`);
    const k = itemOf(r2, 'key-hygiene.no-browser');
    expect(k.verdict).toBe('fail');
    expect(k.seen).toMatch(/GET \/api\/v1\/public\/sdk\/session \(sent to the SDK's route sdkGetSession\)/);
  });
});

describe('paylater certify: the command and its reports', () => {
  it('--help documents every option', async () => {
    let text = '';
    expect(await runCertifyCli(['--help'], (x) => (text += x))).toBe(0);
    expect(text).toBe(CERTIFY_USAGE);
    for (const o of [...CERTIFY_OPTIONS, ...CERTIFY_FLAGS]) expect(text, o).toMatch(new RegExp(`^  --${o} `, 'm'));
    expect(text).toMatch(/^ {2}-h, --help/m);
    // dispatched by `paylater certify`, and listed in `paylater --help`
    const { main } = await import('../scripts/cli.ts');
    let written = '';
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk: string) => {
      written += chunk;
      return true;
    };
    try {
      expect(await main(['certify', '--help'])).toBe(0);
      expect(await main(['--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(written).toContain(CERTIFY_USAGE);
    expect(written).toMatch(/^ {2}certify {3}Run the go-live checklist against the sandbox\./m);
  });

  it('writes the report to the terminal, as JSON and as one self-contained HTML page; exit 1 when not ready', async () => {
    const receiver = createWebhookReceiver({ secret, storePath: join(dir, 'inbox-cli.json'), log: () => {} });
    const url = await listen(receiver.server);
    let text = '';
    const json = join(dir, 'report.json');
    const html = join(dir, 'report.html');
    const code = await runCertifyCli(
      ['--base-url', s.baseUrl, '--api-key', key, '--webhook-url', url, '--json', json, '--html', html],
      (x) => (text += x),
    );
    expect(code).toBe(1); // the observed items were not observed
    expect(text).toMatch(/^ {2}PASS {9}Answers a valid signed event 2xx within the delivery timeout$/m);
    expect(text).toMatch(/^ {2}NOT OBSERVED Verifies the transaction/m);
    expect(text).toMatch(/6 passed, 0 failed, 4 not observed: not ready to go live/);
    const report = JSON.parse(readFileSync(json, 'utf8')) as CertifyReport;
    expect(report.summary).toEqual({ pass: 6, fail: 0, not_observed: 4 });
    expect(report.webhookUrl).toBe(url);
    const page = readFileSync(html, 'utf8');
    for (const i of report.items) expect(page).toContain(`data-item="${i.id}" data-verdict="${i.verdict}"`);
    expect(page).not.toMatch(/<script|<link|\ssrc=/i);
    for (const g of Object.values(GUIDE_SECTIONS)) expect(page).toContain(`guide-go-live.html#${g.anchor}`);
  });

  it('every guide link names a section of the go-live guide', async () => {
    const guide = (await loadGuides()).find((g) => g.href === 'guide-go-live.html');
    expect(guide?.title).toBe('Before you go live');
    const anchors = [...guide!.source.matchAll(/^#{2,3}\s+(.+)$/gm)].map((m) => slugify(m[1]!));
    for (const g of Object.values(GUIDE_SECTIONS)) expect(anchors, g.heading).toContain(g.anchor);
  });

  it('refuses a live key and a bad --observe', async () => {
    await expect(runCertifyCli(['--api-key', 'sk_live_abcdefghijklmnop'], () => {})).rejects.toThrow(/test key/);
    await expect(runCertifyCli(['--api-key', key, '--observe', '-1'], () => {})).rejects.toThrow(/--observe/);
  });
});
