/**
 * The reference server's real deliveries, end to end: a merchant whose webhook URL is a local
 * receiver, transitions driven through the API and the sandbox endpoints, every delivery
 * verified with the independent `standardwebhooks` package AND with sdk/webhooks/verify.ts,
 * every payload validated against the AsyncAPI document as parsed by `@asyncapi/parser`, the
 * delivery list validated against the OpenAPI schema, and a redelivery.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { DiagnosticSeverity, fromFile, Parser } from '@asyncapi/parser';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../../generated/index.ts';
import { validatorFor } from '../../scripts/lib/schema-validator.ts';
import { createPayLaterClientV1 } from '../../sdk/client/index.ts';
import { verifyWebhook, type TransactionEvent } from '../../sdk/webhooks/verify.ts';
import type { MerchantConfigInput } from '../config.ts';
import { startTestServer, type TestServer } from '../testing.ts';
import { generateWebhookSecret } from './signing.ts';

interface Hit {
  headers: Record<string, string>;
  body: string;
  at: number;
}

const hits: Hit[] = [];
/** Answers for the next requests of a given transaction id (default 200). */
const scripted = new Map<string, number[]>();
let receiver: Server;
let server: TestServer;
let client: ReturnType<typeof createPayLaterClientV1>;
const secret = generateWebhookSecret();
const asyncapiValidators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const body = Buffer.concat(chunks).toString('utf8');
      hits.push({ headers, body, at: Date.now() });
      let status = 200;
      try {
        const txId = (JSON.parse(body) as TransactionEvent).data.id;
        const queue = scripted.get(txId);
        if (queue && queue.length > 0) status = queue.shift()!;
      } catch {
        status = 400;
      }
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const { port } = receiver.address() as AddressInfo;

  server = await startTestServer({
    merchants: [
      {
        name: 'Atlas Electronics',
        storeName: 'Atlas Casablanca',
        apiKey: 'sk_test_webhooks_integration_7f3a9c1e',
        variant: 1,
        webhookUrl: `http://127.0.0.1:${port}/webhooks/paylater`,
        webhookSecret: secret,
        allowedOrigins: ['http://127.0.0.1:4010'],
      },
    ],
  });
  client = createPayLaterClientV1({ baseUrl: server.baseUrl, apiKey: server.merchants[0]!.apiKey });

  const parsed = await fromFile(new Parser(), fileURLToPath(new URL('../../spec/asyncapi.yaml', import.meta.url))).parse();
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-comparison -- diagnostics carry the DiagnosticSeverity of a nested copy of @stoplight/types, the same enum values under another type
  expect(parsed.diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error)).toEqual([]);
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  for (const m of parsed.document!.messages().all()) {
    const payload = m.payload()!.json<{ schemaFormat: string; schema: Record<string, unknown> }>();
    expect(payload.schemaFormat).toBe('application/schema+json;version=draft-07');
    asyncapiValidators.set(m.name()!, ajv.compile(payload.schema));
  }
  expect([...asyncapiValidators.keys()].sort()).toEqual(['transaction.approved', 'transaction.cancelled', 'transaction.expired']);
});

afterAll(async () => {
  await server?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
});

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const hitsFor = (txId: string) => hits.filter((h) => (JSON.parse(h.body) as TransactionEvent).data.id === txId);

/** Checks one received delivery every way there is; returns the event. */
function checkDelivery(hit: Hit): TransactionEvent {
  const headers = {
    'webhook-id': hit.headers['webhook-id']!,
    'webhook-timestamp': hit.headers['webhook-timestamp']!,
    'webhook-signature': hit.headers['webhook-signature']!,
  };
  const byPackage = new Webhook(secret).verify(hit.body, headers) as TransactionEvent;
  const bySdk = verifyWebhook(hit.body, hit.headers, secret);
  expect(bySdk).toEqual(byPackage);
  const validate = asyncapiValidators.get(bySdk.event)!;
  expect({ event: bySdk.event, valid: validate(bySdk), errors: validate.errors ?? null }).toEqual({
    event: bySdk.event,
    valid: true,
    errors: null,
  });
  // tampering fails both verifiers
  const tampered = hit.body.replace(/"amount":[0-9.]+/, '"amount":1');
  expect(tampered).not.toBe(hit.body);
  expect(() => new Webhook(secret).verify(tampered, headers)).toThrow();
  expect(() => verifyWebhook(tampered, hit.headers, secret)).toThrow(expect.objectContaining({ code: 'bad_signature' }));
  expect(() => new Webhook(generateWebhookSecret()).verify(hit.body, headers)).toThrow();
  expect(() => new Webhook(secret).verify(hit.body, { ...headers, 'webhook-id': `${headers['webhook-id']}0` })).toThrow();
  expect(() =>
    new Webhook(secret).verify(hit.body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }),
  ).toThrow();
  return bySdk;
}

let seq = 0;
async function partnerTransaction(total = 1299.5) {
  seq++;
  return client.createPartnerTransaction({
    customerPhone: '212612345678',
    total,
    currency: 'MAD',
    items: [{ name: 'Casque audio', reference: `SKU-${seq}`, quantity: 1, unitPrice: total }],
    vendorReference: `ORDER-WH-${Date.now()}-${seq}`,
  });
}

describe('webhooks from the reference server (sandbox, loopback receiver)', () => {
  it('confirm -> transaction.approved, verified by standardwebhooks and the SDK, valid per AsyncAPI', async () => {
    const tx = await partnerTransaction();
    await client.sandbox.confirmTransaction(tx.id);
    const hit = await until('approved delivery', () => hitsFor(tx.id)[0]);
    const ev = checkDelivery(hit);
    expect(ev.event).toBe('transaction.approved');
    if (ev.event !== 'transaction.approved') return;
    expect(ev.data).toMatchObject({
      id: tx.id,
      vendorReference: tx.vendorReference,
      orderReference: tx.orderReference,
      status: 'APPROVED',
      amount: 1299.5,
      currency: 'MAD',
      customerPhone: '212612345678',
      merchantName: 'Atlas Electronics',
      storeName: 'Atlas Casablanca',
    });
    expect(typeof ev.data.approvedAt).toBe('string');
    expect('expiredAt' in ev.data).toBe(false);
    expect(hit.headers['content-type']).toMatch(/^application\/json/);
    // the AsyncAPI validators do reject a payload that is not the message
    const v = asyncapiValidators.get('transaction.approved')!;
    expect(v({ ...ev, data: { ...ev.data, status: 'CANCELED' } })).toBe(false);
    expect(v({ ...ev, data: { ...ev.data, expiredAt: ev.data.approvedAt } })).toBe(false);
    expect(v({ ...ev, extra: true })).toBe(false);
  });

  it('a paid checkout session -> transaction.approved for the checkout transaction (vendorReference null)', async () => {
    const session = await client.createSession({
      total: 1500,
      currency: 'MAD',
      items: [{ id: 'sku-1', name: 'Montre', price: 750, quantity: 2 }],
    });
    const paid = await client.sandbox.paySession({ session_token: session.token, outcome: 'success' });
    expect(paid.status).toBe('APPROVED');
    const hit = await until('checkout approved delivery', () => hitsFor(paid.transaction_id)[0]);
    const ev = checkDelivery(hit);
    expect(ev.event).toBe('transaction.approved');
    expect(ev.data).toMatchObject({ id: paid.transaction_id, vendorReference: null, status: 'APPROVED', amount: 1500 });
  });

  it('customer cancel and B4 -> transaction.cancelled (ADR-004)', async () => {
    const a = await partnerTransaction(600);
    const b = await partnerTransaction(700);
    await client.sandbox.cancelTransaction(a.id);
    await client.cancelPartnerTransactionByVendorReference(b.vendorReference!);
    for (const tx of [a, b]) {
      const hit = await until(`cancelled delivery of ${tx.id}`, () => hitsFor(tx.id)[0]);
      const ev = checkDelivery(hit);
      expect(ev.event).toBe('transaction.cancelled');
      expect(ev.data).toMatchObject({ id: tx.id, vendorReference: tx.vendorReference, status: 'CANCELED', amount: tx.totalAmount });
      expect('approvedAt' in ev.data || 'expiredAt' in ev.data).toBe(false);
    }
  });

  it('clock advanced past the payment window -> transaction.expired with data.expiredAt (signed in real time)', async () => {
    const tx = await partnerTransaction(800);
    const before = await client.sandbox.getClock();
    await client.sandbox.advanceClock({ seconds: 30 * 60 + 1 });
    const hit = await until('expired delivery', () => hitsFor(tx.id)[0]);
    const ev = checkDelivery(hit); // standardwebhooks checks webhook-timestamp against the real clock
    expect(ev.event).toBe('transaction.expired');
    if (ev.event !== 'transaction.expired') return;
    expect(ev.data).toMatchObject({ id: tx.id, status: 'EXPIRED' });
    expect(typeof ev.data.expiredAt).toBe('string');
    const expiredAt = ev.data.expiredAt as string;
    expect(Date.parse(expiredAt)).toBeGreaterThanOrEqual(Date.parse(tx.createdAt) + 30 * 60 * 1000);
    expect(Date.parse(expiredAt)).toBeGreaterThan(Date.parse(before.now));
    expect(Math.abs(Number(hit.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('a failing receiver is retried on the compressed schedule; every attempt is listed', async () => {
    const tx = await partnerTransaction(900);
    scripted.set(tx.id, [500, 503]);
    await client.sandbox.confirmTransaction(tx.id);
    await until('3 attempts', () => hitsFor(tx.id).length >= 3);
    const got = hitsFor(tx.id);
    expect(new Set(got.map((h) => h.headers['webhook-id'])).size).toBe(1);
    expect(new Set(got.map((h) => h.body)).size).toBe(1);
    for (const h of got) checkDelivery(h);
    const delivery = await until('delivered state', async () => {
      const list = await client.sandbox.listWebhookDeliveries();
      const d = list.data.find((x) => x.transactionId === tx.id);
      return d && d.state === 'delivered' ? d : undefined;
    });
    expect(delivery.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
    expect(delivery.attempts.map((a) => a.headers['webhook-signature'])).toEqual(got.map((h) => h.headers['webhook-signature']));
  });

  it('lists deliveries (valid per the OpenAPI schema) and redelivers one: same id and body, fresh signature', async () => {
    const list = await client.sandbox.listWebhookDeliveries();
    const validate = validatorFor(loadBundledDocument(1))('#/components/schemas/WebhookDeliveryList');
    expect({ valid: validate(list), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    expect(list.data.length).toBeGreaterThanOrEqual(6);
    expect(list.data.every((d) => d.state === 'delivered')).toBe(true);
    // newest first
    const created = list.data.map((d) => Date.parse(d.createdAt));
    expect([...created].sort((x, y) => y - x)).toEqual(created);
    // every delivered payload is the body that was received, byte for byte
    for (const d of list.data) {
      const received = hits.find((h) => h.headers['webhook-id'] === d.id);
      expect(received).toBeDefined();
      expect(JSON.stringify(d.payload)).toBe(received!.body);
    }

    const target = list.data.find((d) => d.event === 'transaction.expired')!;
    const before = hits.filter((h) => h.headers['webhook-id'] === target.id).length;
    const queued = await client.sandbox.redeliverWebhook(target.id);
    expect(queued.id).toBe(target.id);
    await until('redelivery', () => hits.filter((h) => h.headers['webhook-id'] === target.id).length > before);
    const [first, again] = hits.filter((h) => h.headers['webhook-id'] === target.id).slice(-2) as [Hit, Hit];
    expect(again.body).toBe(first.body);
    checkDelivery(again);
    const after = await until('recorded', async () => {
      const d = (await client.sandbox.listWebhookDeliveries()).data.find((x) => x.id === target.id)!;
      return d.attempts.length === target.attempts.length + 1 && d.state === 'delivered' ? d : undefined;
    });
    expect(after.attempts.at(-1)).toMatchObject({ attempt: target.attempts.length + 1, status: 200, error: null });

    await expect(client.sandbox.redeliverWebhook('msg_doesnotexist000000000')).rejects.toMatchObject({
      status: 404,
      code: 'DELIVERY_NOT_FOUND',
    });
  });
});

describe('durable outbox across a restart (SQLite database file)', () => {
  it('an event recorded while the receiver is down is delivered by the next server process, same id, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paylater-wh-restart-'));
    const dataFile = join(dir, 'paylater.db');
    // a port where nothing listens yet
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    const key = generateWebhookSecret();
    const merchants: MerchantConfigInput[] = [
      {
        name: 'Restart Co',
        storeName: 'Restart Rabat',
        apiKey: 'sk_test_webhooks_restart_19d2c4b7',
        variant: 1 as const,
        webhookUrl: `http://127.0.0.1:${port}/hook`,
        webhookSecret: key,
      },
    ];
    const received: Hit[] = [];
    const up = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        res.writeHead(204).end();
      });
    });
    try {
      const s1 = await startTestServer({ merchants, dataFile });
      const c1 = createPayLaterClientV1({ baseUrl: s1.baseUrl, apiKey: merchants[0]!.apiKey });
      const tx = await c1.createPartnerTransaction({
        customerPhone: '212612345678',
        total: 990,
        currency: 'MAD',
        items: [{ name: 'Tapis', quantity: 1, unitPrice: 990 }],
      });
      await c1.sandbox.confirmTransaction(tx.id);
      const refused = await until('two refused attempts', async () => {
        const d = (await c1.sandbox.listWebhookDeliveries()).data.find((x) => x.transactionId === tx.id);
        return d && d.attempts.length >= 2 ? d : undefined;
      });
      expect(refused.state).toBe('pending');
      expect(refused.attempts.every((a) => a.status === null && a.error === 'ECONNREFUSED')).toBe(true);
      await s1.close();

      await new Promise<void>((r) => up.listen(port, '127.0.0.1', () => r()));
      const s2 = await startTestServer({ merchants, dataFile });
      try {
        const c2 = createPayLaterClientV1({ baseUrl: s2.baseUrl, apiKey: merchants[0]!.apiKey });
        const hit = await until('delivery after restart', () => received[0]);
        expect(hit.headers['webhook-id']).toBe(refused.id);
        const ev = new Webhook(key).verify(hit.body, {
          'webhook-id': hit.headers['webhook-id']!,
          'webhook-timestamp': hit.headers['webhook-timestamp']!,
          'webhook-signature': hit.headers['webhook-signature']!,
        }) as TransactionEvent;
        expect(ev).toMatchObject({ event: 'transaction.approved', data: { id: tx.id, status: 'APPROVED' } });
        expect(JSON.stringify(refused.payload)).toBe(hit.body);
        const after = await until('delivered', async () => {
          const d = (await c2.sandbox.listWebhookDeliveries()).data.filter((x) => x.transactionId === tx.id);
          return d.length === 1 && d[0]!.state === 'delivered' ? d[0] : undefined;
        });
        expect(after.attempts.length).toBeGreaterThanOrEqual(refused.attempts.length + 1);
        expect(after.attempts.at(-1)).toMatchObject({ status: 204, error: null });
        await new Promise((r) => setTimeout(r, 100));
        expect(received).toHaveLength(1);
      } finally {
        await s2.close();
      }
    } finally {
      up.closeAllConnections();
      await new Promise<void>((r) => (up.listening ? up.close(() => r()) : r()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
