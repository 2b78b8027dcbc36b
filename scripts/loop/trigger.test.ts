/** `paylater trigger` and `paylater events resend`, end to end: the CLI as a process against a server started here. */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { ROOT } from '../lib/paths.ts';

const run = promisify(execFile);
let s: TestServer;
let hook: Server;
let answer = 500;

beforeAll(async () => {
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(answer).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks`;
  s = await startTestServer({
    merchants: [
      {
        name: 'V1',
        storeName: 'V1',
        apiKey: 'sk_test_trigger_v1_0001',
        variant: 1,
        webhookUrl: url,
        webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
      { name: 'V2', storeName: 'V2', apiKey: 'sk_test_trigger_v2_0001', variant: 2 },
    ],
  });
});
afterAll(async () => {
  await s.close();
  await new Promise((r) => hook.close(r));
});

async function paylater(args: string[], key = 'sk_test_trigger_v1_0001'): Promise<{ code: number; out: string; err: string }> {
  try {
    const r = await run(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'scripts', 'paylater.ts'), ...args, '--base-url', s.baseUrl, '--api-key', key],
      { cwd: ROOT },
    );
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

const txId = (out: string) => /transaction ([0-9a-f-]{36})/.exec(out)?.[1];

describe('paylater trigger', () => {
  it('transaction.approved: creates, confirms, prints the ids and the delivery', async () => {
    const r = await paylater(['trigger', 'transaction.approved']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/created transaction [0-9a-f-]{36} \(vendorReference TRIGGER-/);
    expect(r.out).toMatch(/is APPROVED/);
    expect(r.out).toMatch(/webhook delivery msg_\w+ transaction\.approved /);
  }, 30_000);

  it('transaction.cancelled and transaction.expired (by the sandbox clock) go through the state machine', async () => {
    const c = await paylater(['trigger', 'transaction.cancelled']);
    expect(c.out).toMatch(/is CANCELED/);
    expect(c.out).toMatch(/transaction\.cancelled/);
    const x = await paylater(['trigger', 'transaction.expired']);
    expect(x.code, x.err).toBe(0);
    expect(x.out).toMatch(/clock advanced \d+ s/);
    expect(x.out).toMatch(/is EXPIRED/);
    expect(x.out).toMatch(/transaction\.expired/);
    const id = txId(x.out)!;
    const tx = (await (
      await fetch(`${s.baseUrl}/api/v1/public/partner/transactions/${id}`, { headers: { 'X-API-Key': 'sk_test_trigger_v1_0001' } })
    ).json()) as { status: string };
    expect(tx.status).toBe('EXPIRED');
  }, 30_000);

  it("--transaction moves an existing one; a terminal one is refused with the server's answer", async () => {
    const created = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'X-Service-Key': 'sk_test_trigger_v1_0001', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        customerPhone: '212612345678',
        total: 600,
        currency: 'MAD',
        items: [{ name: 'x', quantity: 1, unitPrice: 600 }],
      }),
    });
    const { id } = (await created.json()) as { id: string };
    const r = await paylater(['trigger', 'transaction.approved', '--transaction', id]);
    expect(r.out).not.toMatch(/created transaction/);
    expect(r.out).toContain(`transaction ${id} is APPROVED`);
    const again = await paylater(['trigger', 'transaction.cancelled', '--transaction', id]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/answered 400 TRANSACTION_NOT_PENDING: Transaction is not in PENDING status \(current status: APPROVED\)/);
  }, 30_000);

  it('checkout.paid works in both variants (total as a number or a string)', async () => {
    for (const key of ['sk_test_trigger_v1_0001', 'sk_test_trigger_v2_0001']) {
      const r = await paylater(['trigger', 'checkout.paid'], key);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/checkout session paid: transaction [0-9a-f-]{36}/);
      expect(r.out).toMatch(/is APPROVED/);
    }
  }, 30_000);

  it('usage errors exit 2', async () => {
    const r = await paylater(['trigger', 'transaction.refunded']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/expected one event of transaction\.approved/);
  }, 30_000);
});

describe('paylater events resend', () => {
  it('queues a failed delivery again and prints its attempts; the receiver now answers 2xx', async () => {
    answer = 500;
    const t = await paylater(['trigger', 'transaction.approved']);
    const id = /webhook delivery (msg_\w+)/.exec(t.out)![1]!;
    for (let i = 0; i < 100; i++) {
      const list = (await (
        await fetch(`${s.baseUrl}/api/v1/sandbox/webhook-deliveries`, { headers: { 'X-API-Key': 'sk_test_trigger_v1_0001' } })
      ).json()) as { data: Array<{ id: string; attempts: unknown[] }> };
      if ((list.data.find((d) => d.id === id)?.attempts.length ?? 0) > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    answer = 204;
    const r = await paylater(['events', 'resend', id]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(new RegExp(`webhook delivery ${id} transaction\\.approved \\(transaction [0-9a-f-]{36}\\): pending`));
    expect(r.out).toMatch(/attempt 1 at .*: HTTP 500/);
    const missing = await paylater(['events', 'resend', 'msg_doesnotexist']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/404 DELIVERY_NOT_FOUND: Webhook delivery not found/);
  }, 30_000);
});
