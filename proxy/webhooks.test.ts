/**
 * The proxy's webhook side: each delivery is forwarded unchanged (body bytes and headers) and the
 * receiver's answer returned to the sender; its signature is verified (Standard Webhooks, the
 * SDK's verifier) and its payload validated against the AsyncAPI document, a failure of either
 * being a finding (the delivery still forwarded); an unreachable receiver is a 502 to the sender.
 * Its HAR holds the deliveries, which `paylater judge` judges to the same findings.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/free-port.ts';
import { parseHar } from '../recorded/har.ts';
import { judgeRecorded } from '../judge/recorded.ts';
import { startLiveProxy, type LiveProxy } from './server.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let receiver: Server;
let proxy: LiveProxy;
const got: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];

function approved(over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event: 'transaction.approved',
    timestamp: new Date().toISOString(),
    data: {
      id: randomUUID(),
      vendorReference: 'ref-1',
      orderReference: 'ORD-ABCDE12345',
      status: 'APPROVED',
      amount: 600,
      currency: 'MAD',
      customerPhone: '212612345678',
      merchantName: 'M',
      storeName: 'S',
      createdAt: new Date().toISOString(),
      approvedAt: new Date().toISOString(),
      ...over,
    },
  });
}

function signed(body: string, key = secret): Record<string, string> {
  const id = `msg_${randomUUID().replace(/-/g, '')}`;
  const now = new Date();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, now, body),
  };
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(202, { 'content-type': 'text/plain', 'x-receiver': 'yes' }).end('got it');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const forwardTo = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks?x=1`;
  // its keys' only client (ADR-087): it judges the signature of an event about a transaction it never saw
  proxy = await startLiveProxy({
    upstream: `http://127.0.0.1:${await freePort()}`,
    variant: 1,
    soleClient: true,
    webhooks: { port: 0, forwardTo, secret },
  });
});
afterAll(async () => {
  await proxy?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((r) => receiver?.close(() => r()));
});

const send = (body: string, headers: Record<string, string>) => fetch(`${proxy.webhookUrl!}/anything`, { method: 'POST', headers, body });

describe('webhook side', () => {
  it('forwards a valid delivery unchanged and returns the receiver’s answer; no finding', async () => {
    const body = approved();
    const headers = signed(body);
    const res = await send(body, headers);
    expect(res.status).toBe(202);
    expect(res.headers.get('x-receiver')).toBe('yes');
    expect(await res.text()).toBe('got it');
    const last = got.at(-1)!;
    expect(last.body).toBe(body);
    for (const [k, v] of Object.entries(headers)) expect(last.headers[k]).toBe(v);
    expect(proxy.recorder.findings).toEqual([]);
    // a transaction the proxy never saw: counted, not a finding
    expect(proxy.recorder.coverage().events.unknownTransaction).toBe(1);
  });

  it('a bad signature and a payload outside the AsyncAPI schema are findings; both still forwarded', async () => {
    const n = got.length;
    const bad = approved();
    expect((await send(bad, signed(bad, `whsec_${randomBytes(24).toString('base64')}`))).status).toBe(202);
    const invalid = approved({ amount: '600.00' });
    expect((await send(invalid, signed(invalid))).status).toBe(202);
    expect(got.length).toBe(n + 2);
    const messages = proxy.recorder.findings.map((f) => `${f.kind}: ${f.message}`);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^webhook-payload: signature: bad_signature/);
    expect(messages[1]).toMatch(/^webhook-payload: payload \$\.data\.amount: .*\(AsyncAPI\)/);
    expect(JSON.stringify(proxy.recorder.report())).not.toContain(secret.slice(6));
  });

  it("its HAR holds each delivery (where it was sent, the receiver's answer), judged offline to the proxy's findings but the signature's (masked)", async () => {
    const har = proxy.recorder.har() as { log: { entries: { request: { url: string }; response: { status: number } }[] } };
    expect(har.log.entries.map((e) => [e.request.url, e.response.status])).toEqual(Array(3).fill([`${proxy.webhookUrl!}/anything`, 202]));
    const read = parseHar(Buffer.from(JSON.stringify(har)), 'hooks.har');
    expect(read.exchanges).toEqual([]);
    expect(read.deliveries.map((d) => d.seq)).toEqual([1, 2, 3]);
    const live = proxy.recorder.findings.map((f) => [f.kind, f.message, f.exchanges.map((x) => x.n)]);
    expect(live.map(([, m]) => String(m).split(':')[0])).toEqual(['signature', 'payload $.data.amount']);
    expect((await judgeRecorded(read)).findings.map((f) => [f.kind, f.message, f.exchanges])).toEqual(live.slice(1));
  });

  it('an unreachable receiver: 502 to the sender', async () => {
    const dead = await startLiveProxy({
      upstream: `http://127.0.0.1:${await freePort()}`,
      variant: 1,
      webhooks: { port: 0, forwardTo: `http://127.0.0.1:${await freePort()}/hooks`, secret },
    });
    try {
      const body = approved();
      expect((await fetch(dead.webhookUrl!, { method: 'POST', headers: signed(body), body })).status).toBe(502);
    } finally {
      await dead.close();
    }
  });
});
