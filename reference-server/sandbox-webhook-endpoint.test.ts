/** ADR-042: the webhook endpoint set at run time, and secret rotation with both signatures during the window. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../sdk/webhooks/verify.ts';
import { call, errorOf, partnerBody } from './test-support/helpers.ts';
import { startTestServer, type TestServer } from './testing.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
let s: TestServer;
let K: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  // A merchant with no webhook URL, as the demo merchants were.
  s = await startTestServer({ merchants: [{ name: 'Shop', storeName: 'Shop', apiKey: 'sk_test_endpoint_runtime_0001', variant: 1 }] });
  K = s.merchants[0]!.apiKey;
});
afterAll(async () => {
  await s.close();
  await new Promise((r) => receiver.close(r));
});

/** The fields these answers carry (webhook endpoint, test event, deliveries), all read loosely. */
interface Body {
  id?: string;
  url?: string | null;
  secret?: string;
  previousSecret?: string | null;
  transactionId?: string;
  data?: Array<{ state: string }>;
}
const api = (m: string, p: string, json?: unknown) =>
  call<Body>(s.baseUrl, m, p, { headers: { 'X-API-Key': K }, ...(json === undefined ? {} : { json }) });

/** Creates and confirms a transaction; resolves with the delivery it caused. */
async function approvedDelivery(): Promise<Received> {
  const n = received.length;
  const tx = await call<Body>(s.baseUrl, 'POST', '/api/v1/public/partner/transactions', {
    headers: { 'X-Service-Key': K },
    json: partnerBody(),
  });
  expect(tx.status).toBe(201);
  expect((await api('POST', `/api/v1/sandbox/transactions/${tx.body.id as string}/confirm`)).status).toBe(200);
  for (let i = 0; i < 200 && received.length === n; i++) await new Promise((r) => setTimeout(r, 25));
  expect(received.length).toBe(n + 1);
  return received[n]!;
}

// @checks ADR-042
describe('webhook endpoint at run time', () => {
  it('starts with none; PUT sets the URL and generates a secret; deliveries reach it signed with that secret', async () => {
    const before = await api('GET', '/api/v1/sandbox/webhook-endpoint');
    expect(before.body).toEqual({ url: null, secret: null, previousSecret: null, previousSecretExpiresAt: null, enabled: true });
    const set = await api('PUT', '/api/v1/sandbox/webhook-endpoint', { url: receiverUrl });
    expect(set.status, set.text).toBe(200);
    expect(set.body.url).toBe(receiverUrl);
    expect(set.body.secret).toMatch(/^whsec_/);
    const d = await approvedDelivery();
    expect(verifyWebhook(d.body, d.headers as Record<string, string>, set.body.secret as string).event).toBe('transaction.approved');
  });

  it('PUT with a secret replaces it; a URL the policy refuses is a 400 on url', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect((await api('PUT', '/api/v1/sandbox/webhook-endpoint', { url: receiverUrl, secret })).body.secret).toBe(secret);
    const d = await approvedDelivery();
    expect(() => verifyWebhook(d.body, d.headers as Record<string, string>, secret)).not.toThrow();
    const bad = await api('PUT', '/api/v1/sandbox/webhook-endpoint', { url: 'http://10.0.0.1/hook' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('VALIDATION_ERROR');
    expect(errorOf(bad).details?.[0]?.path).toBe('body.url');
    expect((await api('GET', '/api/v1/sandbox/webhook-endpoint')).body.secret).toBe(secret);
  });

  it('rotation: both signatures during the window (either secret verifies), only the new one after it', async () => {
    const old = (await api('GET', '/api/v1/sandbox/webhook-endpoint')).body.secret as string;
    const rot = await api('POST', '/api/v1/sandbox/webhook-endpoint/rotate-secret', { overlapSeconds: 600 });
    expect(rot.status, rot.text).toBe(200);
    const fresh = rot.body.secret as string;
    expect(fresh).not.toBe(old);
    expect(rot.body.previousSecret).toBe(old);
    const during = await approvedDelivery();
    const sigs = String(during.headers['webhook-signature']).split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs.every((x) => x.startsWith('v1,'))).toBe(true);
    for (const secret of [old, fresh]) {
      expect(verifyWebhook(during.body, during.headers as Record<string, string>, secret).event).toBe('transaction.approved');
      // the reference implementation of Standard Webhooks accepts it with either secret too
      expect(() => new Webhook(secret.slice('whsec_'.length)).verify(during.body, during.headers as Record<string, string>)).not.toThrow();
    }
    expect((await api('POST', '/api/v1/sandbox/clock/advance', { seconds: 600 })).status).toBe(200);
    expect((await api('GET', '/api/v1/sandbox/webhook-endpoint')).body.previousSecret).toBeNull();
    const after = await approvedDelivery();
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verifyWebhook(after.body, after.headers as Record<string, string>, fresh)).not.toThrow();
    expect(() => verifyWebhook(after.body, after.headers as Record<string, string>, old)).toThrow();
  });

  it('a test event reaches the endpoint, signed, valid for its schema, about a sample transaction that does not exist', async () => {
    const secret = (await api('GET', '/api/v1/sandbox/webhook-endpoint')).body.secret as string;
    const n = received.length;
    const r = await api('POST', '/api/v1/sandbox/webhook-endpoint/test', { event: 'transaction.cancelled' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ event: 'transaction.cancelled', state: 'pending', url: receiverUrl });
    for (let i = 0; i < 200 && received.length === n; i++) await new Promise((res) => setTimeout(res, 25));
    const d = received[n]!;
    expect(d.headers['webhook-id']).toBe(r.body.id);
    const event = verifyWebhook(d.body, d.headers, secret);
    expect(event.event).toBe('transaction.cancelled');
    expect((event.data as { vendorReference: string }).vendorReference).toBe('TEST-WEBHOOK');
    expect((await api('GET', `/api/v1/public/partner/transactions/${r.body.transactionId as string}`)).status).toBe(404);
  });

  it('PUT url null stops delivering: events are recorded as no_endpoint', async () => {
    expect((await api('PUT', '/api/v1/sandbox/webhook-endpoint', { url: null })).body.url).toBeNull();
    const tx = await call<Body>(s.baseUrl, 'POST', '/api/v1/public/partner/transactions', {
      headers: { 'X-Service-Key': K },
      json: partnerBody(),
    });
    await api('POST', `/api/v1/sandbox/transactions/${tx.body.id as string}/confirm`);
    const list = await api('GET', '/api/v1/sandbox/webhook-deliveries');
    expect(list.body.data?.[0]?.state).toBe('no_endpoint');
  });
});
