import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { TransactionEvent } from '../webhooks/verify.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'paylater-receiver-'));
const secret = `whsec_${randomBytes(32).toString('base64')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  lines: string[];
  stop(): Promise<void>;
  waitFor(re: RegExp, count?: number): Promise<void>;
}

async function run(store: string, extra: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--port', '0', '--secret', secret, '--store', store, ...extra], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buf = '';
  const onData = (d: Buffer) => {
    buf += d.toString('utf8');
    const parts = buf.split('\n');
    buf = parts.pop()!;
    lines.push(...parts);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const waitFor = async (re: RegExp, count = 1) => {
    const deadline = Date.now() + 15_000;
    while (lines.filter((l) => re.test(l)).length < count) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${re} in:\n${lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await waitFor(/^listening on /);
  const url = /listening on (http:\/\/[^/]+\/)/.exec(lines.find((l) => l.startsWith('listening on'))!)![1]!;
  return {
    child,
    url,
    lines,
    waitFor,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function event(name: TransactionEvent['event'] = 'transaction.approved'): TransactionEvent {
  const data = {
    id: randomUUID(),
    vendorReference: `ORDER-${randomBytes(3).toString('hex')}`,
    orderReference: 'ORD-7K2M9Q4XAB',
    amount: 1299.5,
    currency: 'MAD' as const,
    customerPhone: '212612345678',
    merchantName: 'Atlas Electronics',
    storeName: 'Atlas Casablanca',
    createdAt: '2026-11-20T14:05:09.000Z',
  };
  const timestamp = new Date().toISOString();
  if (name === 'transaction.approved') return { event: name, timestamp, data: { ...data, status: 'APPROVED', approvedAt: timestamp } };
  if (name === 'transaction.expired') return { event: name, timestamp, data: { ...data, status: 'EXPIRED', expiredAt: timestamp } };
  return { event: name, timestamp, data: { ...data, status: 'CANCELED' } };
}

/** Sends a delivery signed by the independent standardwebhooks package (a fresh timestamp each time). */
async function send(url: string, body: string, id: string, key = secret): Promise<{ status: number; body: unknown; ms: number }> {
  const now = new Date();
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign(id, now, body),
    },
    body,
  });
  return { status: res.status, body: await res.json(), ms: performance.now() - t0 };
}

describe('sdk/examples/webhook-receiver.ts (run as a process)', () => {
  it('answers 200 before processing, processes each webhook-id once, and stays idempotent across a restart', async () => {
    const store = join(dir, 'inbox.json');
    // Processing waits 5 s after the 200: the first request to a freshly started process, on a
    // busy machine, is answered well within that, so the answer coming first shows it does not wait.
    const processDelayMs = 5000;
    const r1 = await run(store, ['--process-delay-ms', String(processDelayMs)]);
    try {
      const e1 = event('transaction.approved');
      const e2 = event('transaction.cancelled');
      const b1 = JSON.stringify(e1);
      const b2 = JSON.stringify(e2);
      const first = await send(r1.url, b1, 'msg_a1');
      expect(first).toMatchObject({ status: 200, body: { status: 'accepted' } });
      expect(first.ms).toBeLessThan(processDelayMs); // the answer does not wait for the processing
      expect(r1.lines.some((l) => l.startsWith('processed msg_a1 '))).toBe(false);
      // duplicates: concurrent and sequential
      const dups = await Promise.all([
        send(r1.url, b1, 'msg_a1'),
        send(r1.url, b1, 'msg_a1'),
        send(r1.url, b2, 'msg_b2'),
        send(r1.url, b2, 'msg_b2'),
      ]);
      expect(dups.map((d) => d.status)).toEqual([200, 200, 200, 200]);
      expect(dups.filter((d) => (d.body as { status: string }).status === 'accepted')).toHaveLength(1); // msg_b2 once
      // bad signature, missing header, wrong body
      expect((await send(r1.url, b1, 'msg_c3', `whsec_${randomBytes(32).toString('base64')}`)).status).toBe(401);
      expect((await fetch(r1.url, { method: 'POST', body: b1 })).status).toBe(401);
      const notEvent = JSON.stringify({ hello: 'world' });
      expect((await send(r1.url, notEvent, 'msg_d4')).status).toBe(400);
      await r1.waitFor(/^processed msg_b2 /);
      await r1.waitFor(/^processed msg_a1 /);
      expect(r1.lines.filter((l) => l.startsWith('processed msg_a1 '))).toHaveLength(1);
      expect(r1.lines.filter((l) => l.startsWith('processed msg_b2 '))).toHaveLength(1);
      expect(r1.lines.find((l) => l.startsWith('processed msg_a1 '))).toContain(`order=${e1.data.vendorReference}: fulfil the order`);
    } finally {
      await r1.stop();
    }
    const saved = JSON.parse(readFileSync(store, 'utf8')) as { events: Record<string, { processedAt: string | null }> };
    expect(Object.keys(saved.events).sort()).toEqual(['msg_a1', 'msg_b2']);
    expect(Object.values(saved.events).every((e) => e.processedAt !== null)).toBe(true);

    // restart: the ids are still known
    const r2 = await run(store);
    try {
      const again = await send(r2.url, JSON.stringify(event()), 'msg_a1');
      expect(again).toMatchObject({ status: 200, body: { status: 'duplicate' } });
      const fresh = await send(r2.url, JSON.stringify(event('transaction.expired')), 'msg_e5');
      expect(fresh).toMatchObject({ status: 200, body: { status: 'accepted' } });
      await r2.waitFor(/^processed msg_e5 .*payment window expired/);
      expect(r2.lines.some((l) => l.startsWith('processed msg_a1'))).toBe(false);
    } finally {
      await r2.stop();
    }
  });

  it('processes at start the events accepted but not processed before a crash', async () => {
    const store = join(dir, 'crashed.json');
    const e = event('transaction.cancelled');
    writeFileSync(
      store,
      JSON.stringify({
        version: 1,
        events: {
          msg_left: {
            event: e.event,
            transactionId: e.data.id,
            vendorReference: e.data.vendorReference,
            receivedAt: new Date().toISOString(),
            processedAt: null,
            payload: e,
          },
        },
      }),
    );
    const r = await run(store);
    try {
      await r.waitFor(/^processed msg_left transaction\.cancelled/);
      expect((await send(r.url, JSON.stringify(e), 'msg_left')).body).toEqual({ status: 'duplicate' });
    } finally {
      await r.stop();
    }
    expect(
      (JSON.parse(readFileSync(store, 'utf8')) as { events: Record<string, { processedAt: string | null }> }).events.msg_left!.processedAt,
    ).not.toBeNull();
  });
});
