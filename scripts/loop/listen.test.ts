/**
 * `paylater listen` end to end: the CLI as a process against a server started here, which has no
 * webhook URL for the merchant (it cannot reach the "laptop"): events come through the stream.
 * The two-instance case (several sandbox instances sharing one store) waits for the shared
 * PostgreSQL store; the stream already reads from the store and resumes after an event id.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/webhooks/verify.ts';
import { BEFORE_ANY_EVENT } from '../../reference-server/handlers/sandbox-events.ts';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { spawnPaylater } from '../lib/paylater-process.ts';
import { listenSecret, runListen } from './listen.ts';

const KEY = 'sk_test_listen_e2e_0001';
/** A merchant no event is ever recorded for before its stream opens. */
const FRESH_KEY = 'sk_test_listen_e2e_0002';
let s: TestServer;
let local: Server;
let localUrl: string;
const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
let failFirst = 0;

beforeAll(async () => {
  local = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failFirst > 0) {
        failFirst--;
        res.writeHead(503).end();
        return;
      }
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
  localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}/webhooks`;
  s = await startTestServer({
    merchants: [
      { name: 'Laptop shop', storeName: 'Laptop', apiKey: KEY, variant: 1 },
      { name: 'Fresh shop', storeName: 'Fresh', apiKey: FRESH_KEY, variant: 1 },
    ],
  });
});
afterAll(async () => {
  await s.close();
  await new Promise((r) => local.close(r));
});

const api = (method: string, p: string, body?: unknown, header = 'X-API-Key', key = KEY) =>
  fetch(`${s.baseUrl}${p}`, {
    method,
    headers: { [header]: key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

async function approve(key = KEY): Promise<string> {
  const r = await api(
    'POST',
    '/api/v1/public/partner/transactions',
    { customerPhone: '212612345678', total: 600, currency: 'MAD', items: [{ name: 'x', quantity: 1, unitPrice: 600 }] },
    'X-Service-Key',
    key,
  );
  const { id } = (await r.json()) as { id: string };
  await api('POST', `/api/v1/sandbox/transactions/${id}/confirm`, undefined, 'X-API-Key', key);
  return id;
}

function waitFor(child: ChildProcessWithoutNullStreams, output: () => string, re: RegExp, ms = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out waiting for ${String(re)}; output:\n${output()}`)), ms);
    const check = () => {
      if (re.test(output())) {
        clearTimeout(t);
        child.stdout.off('data', check);
        resolve();
      }
    };
    child.stdout.on('data', check);
    check();
  });
}

// @checks ADR-044
describe('GET /api/v1/sandbox/events', () => {
  it('streams from the store and resumes after Last-Event-ID', async () => {
    const first = await approve();
    const second = await approve();
    const deliveries = (await (await api('GET', '/api/v1/sandbox/webhook-deliveries')).json()) as {
      data: Array<{ id: string; transactionId: string }>;
    };
    const idOf = (tx: string) => deliveries.data.find((d) => d.transactionId === tx)!.id;
    const ac = new AbortController();
    const res = await fetch(`${s.baseUrl}/api/v1/sandbox/events`, {
      headers: { 'X-API-Key': KEY, 'Last-Event-ID': idOf(first) },
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(`id: ${idOf(second)}`)) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    expect(text).not.toContain(`id: ${idOf(first)}\n`);
    expect(text).toMatch(new RegExp(`id: ${idOf(second)}\\nevent: transaction.approved\\ndata: \\{"id":"${idOf(second)}"`));
    expect((await fetch(`${s.baseUrl}/api/v1/sandbox/events`, { headers: { 'X-API-Key': 'sk_test_wrong' } })).status).toBe(401);
    // without a resume point, the stream first says where it starts: after the newest event
    const fresh = new AbortController();
    const from = (
      await fetch(`${s.baseUrl}/api/v1/sandbox/events`, { headers: { 'X-API-Key': KEY }, signal: fresh.signal })
    ).body!.getReader();
    let head = '';
    while (!/\n\n[^]*\n\n/.test(head)) head += new TextDecoder().decode((await from.read()).value);
    fresh.abort();
    expect(head).toBe(`: paylater event stream\n\nid: ${idOf(second)}\n\n`);
  });
});

describe('paylater listen', () => {
  it('forwards each new event signed with the printed stable secret, shows a failed forward and retries it, stops on Ctrl-C', async () => {
    const { child, output } = spawnPaylater([
      'listen',
      '--forward-to',
      localUrl,
      '--base-url',
      s.baseUrl,
      '--api-key',
      KEY,
      '--events',
      'transaction.approved',
    ]);
    try {
      await waitFor(child, output, /Your listen signing secret is (whsec_\S+)/);
      const secret = /Your listen signing secret is (whsec_\S+)/.exec(output())![1]!;
      expect(secret).toBe(listenSecret(KEY));
      // Not a pause: a stream opened without a resume point starts after the newest event, so the
      // event made next is forwarded only if the stream answered before it was recorded.
      await waitFor(child, output, /Connected to the event stream/);
      failFirst = 1;
      const tx = await approve();
      await waitFor(child, output, /\[200\]/);
      expect(output()).toMatch(new RegExp(`transaction\\.approved msg_\\w+ \\(transaction ${tx}\\)`));
      expect(output()).toMatch(/→ POST .* \[503\] \d+ ms, retry 1\/3/);
      expect(got).toHaveLength(1);
      const event = verifyWebhook(got[0]!.body, got[0]!.headers, secret);
      expect(event.event).toBe('transaction.approved');
      expect((event.data as { id: string }).id).toBe(tx);
      // A cancel is filtered out by --events.
      const c = await api(
        'POST',
        '/api/v1/public/partner/transactions',
        { customerPhone: '212612345678', total: 600, currency: 'MAD', items: [{ name: 'x', quantity: 1, unitPrice: 600 }] },
        'X-Service-Key',
      );
      await api('POST', `/api/v1/sandbox/transactions/${((await c.json()) as { id: string }).id}/cancel`);
      // the stream is in order: once an approval recorded after the cancel is shown, the cancel has come
      const after = await approve();
      await waitFor(child, output, new RegExp(`\\(transaction ${after}\\)`));
      expect(output()).not.toContain('transaction.cancelled');
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output()).toContain('Stopped.');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);

  it.each([
    ['after the newest event', KEY],
    ['before any event, for a merchant that has none', FRESH_KEY],
  ])(
    'a stream dropped before its first event is reopened from where it started (%s): an event recorded in between is forwarded',
    async (_, key) => {
      const newest = key === KEY ? await approve(key) : null; // without a resume point the stream starts after it
      // In front of the sandbox: the first connection gets the stream's first blocks, up to its start
      // point (an id-only block; 5 s without one, it is dropped all the same), and is then dropped;
      // the second is let through once an event has been recorded in between.
      let dropped!: () => void;
      const firstDropped = new Promise<void>((r) => (dropped = r));
      let letThrough!: () => void;
      const secondMayGo = new Promise<void>((r) => (letThrough = r));
      const resumedFrom: Array<string | undefined> = [];
      let startedAt: string | undefined;
      const upstreams: AbortController[] = [];
      const front = createServer((req, res) => {
        const connection = resumedFrom.push(req.headers['last-event-id'] as string | undefined);
        void (async () => {
          if (connection > 1) await secondMayGo;
          const ac = new AbortController();
          upstreams.push(ac);
          const up = await fetch(`${s.baseUrl}${req.url}`, { headers: req.headers as Record<string, string>, signal: ac.signal });
          res.writeHead(up.status, Object.fromEntries(up.headers));
          const reader = up.body!.getReader();
          if (connection > 1) {
            for (let next = await reader.read(); !next.done; next = await reader.read()) res.write(next.value);
            return res.end();
          }
          const giveUp = setTimeout(() => ac.abort(), 5000);
          let text = '';
          while (startedAt === undefined) {
            const next = await reader.read();
            if (next.done) break;
            text += new TextDecoder().decode(next.value);
            res.write(next.value);
            startedAt = /(?:^|\n)id: ([^\n]+)\n\n/.exec(text)?.[1];
          }
          clearTimeout(giveUp);
          ac.abort();
          res.end();
        })()
          .catch(() => res.destroy())
          .finally(() => connection === 1 && dropped());
      });
      await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
      const frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
      const stop = new AbortController();
      let out = '';
      const before = got.length;
      const listening = runListen(['--forward-to', localUrl, '--base-url', frontUrl, '--api-key', key], {
        out: (line) => (out += line),
        signal: stop.signal,
      });
      try {
        await firstDropped;
        const between = await approve(key);
        letThrough();
        const forwarded = () => got.slice(before).map((g) => (JSON.parse(g.body) as { data: { id: string } }).data.id);
        await expect.poll(forwarded, { timeout: 15_000 }).toContain(between);
        expect(forwarded()).not.toContain(newest);
        expect(resumedFrom).toHaveLength(2);
        expect(resumedFrom[0]).toBeUndefined();
        // resumed from the start point the sandbox sent: the newest event's id, or one naming no event
        expect(resumedFrom[1]).toBe(startedAt);
        if (newest === null) expect(startedAt).toBe(BEFORE_ANY_EVENT);
        else expect(startedAt).toMatch(/^msg_/);
      } finally {
        stop.abort();
        letThrough();
        for (const ac of upstreams) ac.abort();
        await listening;
        front.closeAllConnections();
        await new Promise((r) => front.close(r));
      }
      expect(out).toMatch(/stream (ended|failed)/);
    },
    30_000,
  );
});
