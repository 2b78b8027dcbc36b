import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { webhookDelivery } from '../../generated/contract.ts';
import type { OutboxEvent, WebhookPayload } from '../domain/outbox-event.ts';
import { createWebhookDispatcher, MAX_ATTEMPTS, parseRetryAfter, retryDelayMs } from './dispatcher.ts';
import { MemoryWebhookStore } from './memory.ts';
import { generateWebhookSecret } from './signing.ts';

// ------------------------------------------------------------------ helpers

interface Hit {
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}
/** `delayMs`: the answer after that long; `until`: the answer once the promise resolves (never sent when the connection is gone). */
type Answer = { status: number; headers?: Record<string, string>; delayMs?: number; until?: Promise<void> } | 'destroy';

class Receiver {
  readonly hits: Hit[] = [];
  /** The held answers' timers, cleared at close: a held answer must not keep the worker busy after its test. */
  private readonly timers = new Set<NodeJS.Timeout>();
  server!: Server;
  port = 0;
  constructor(public answer: (hit: Hit, n: number) => Answer = () => ({ status: 200 })) {}
  get url() {
    return `http://127.0.0.1:${this.port}/webhooks`;
  }
  async listen(port = 0) {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        const hit = { path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        this.hits.push(hit);
        const a = this.answer(hit, this.hits.length);
        if (a === 'destroy') {
          req.socket.destroy();
          return;
        }
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(a.status, a.headers ?? {});
          res.end('ok');
        };
        if (a.until) void a.until.then(send);
        else if (a.delayMs) this.timers.add(setTimeout(send, a.delayMs));
        else send();
      });
    });
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }
  async close() {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

function payload(
  event: 'transaction.approved' | 'transaction.cancelled' | 'transaction.expired' = 'transaction.cancelled',
): WebhookPayload {
  const base = {
    id: randomUUID(),
    vendorReference: 'ORDER-2026-000123',
    orderReference: 'ORD-7K2M9Q4XAB',
    amount: 1299.5,
    currency: 'MAD' as const,
    customerPhone: '212612345678',
    merchantName: 'Atlas Electronics',
    storeName: 'Atlas Casablanca — Maârif',
    createdAt: '2026-11-20T14:05:09.000Z',
  };
  const timestamp = new Date().toISOString();
  if (event === 'transaction.approved') return { event, timestamp, data: { ...base, status: 'APPROVED', approvedAt: timestamp } };
  if (event === 'transaction.expired') return { event, timestamp, data: { ...base, status: 'EXPIRED', expiredAt: timestamp } };
  return { event, timestamp, data: { ...base, status: 'CANCELED' } };
}

const M = 'merchant-1';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(opts: {
  answer?: (hit: Hit, n: number) => Answer;
  mode?: 'sandbox' | 'production';
  compression?: number;
  timeoutMs?: number;
  random?: () => number;
  concurrency?: number;
  noListen?: boolean;
}) {
  const store = new MemoryWebhookStore();
  const receiver = new Receiver(opts.answer);
  if (!opts.noListen) {
    await receiver.listen();
    cleanups.push(() => receiver.close());
  }
  const secret = generateWebhookSecret();
  store.setEndpoint(M, receiver.url, secret);
  const logs: string[] = [];
  const dispatcher = createWebhookDispatcher({
    repository: store,
    merchants: store,
    clock: store,
    mode: opts.mode ?? 'sandbox',
    compression: opts.compression ?? 100_000,
    timeoutMs: opts.timeoutMs,
    random: opts.random ?? (() => 0.5),
    concurrency: opts.concurrency,
    log: (l) => logs.push(l),
  });
  dispatcher.start();
  cleanups.push(() => dispatcher.stop());
  return { store, receiver, secret, dispatcher, logs };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function settled(store: MemoryWebhookStore, id: string, timeoutMs = 10_000): Promise<OutboxEvent> {
  return until(
    `event ${id} to settle`,
    async () => {
      const e = await store.get(M, id);
      return e && e.state !== 'pending' ? e : undefined;
    },
    timeoutMs,
  );
}

function verifies(secret: string, hit: Hit): unknown {
  return new Webhook(secret).verify(hit.body, {
    'webhook-id': hit.headers['webhook-id']!,
    'webhook-timestamp': hit.headers['webhook-timestamp']!,
    'webhook-signature': hit.headers['webhook-signature']!,
  });
}

// ------------------------------------------------------------------ pure parts

describe('retry schedule (from the generated contract)', () => {
  it('is 8 attempts after 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(webhookDelivery.retry.delaysSeconds).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(MAX_ATTEMPTS).toBe(8);
  });

  it('applies ±20 % jitter and sandbox compression; is exhausted after the last attempt', () => {
    const p = { mode: 'production' as const, compression: 1000 };
    expect(retryDelayMs(1, { ...p, random: () => 0.5 })).toBe(5000);
    expect(retryDelayMs(1, { ...p, random: () => 0 })).toBe(4000);
    expect(retryDelayMs(1, { ...p, random: () => 0.999999 })).toBeCloseTo(6000, 0);
    expect(retryDelayMs(7, { ...p, random: () => 0.5 })).toBe(36_000_000);
    expect(retryDelayMs(8, { ...p, random: () => 0.5 })).toBeNull();
    expect(retryDelayMs(2, { mode: 'sandbox', compression: 1000, random: () => 0.5 })).toBe(300);
    expect(retryDelayMs(0, { mode: 'sandbox', compression: 1000, random: () => 0.9 })).toBe(0);
    const total = webhookDelivery.retry.delaysSeconds.reduce((a: number, b: number) => a + b, 0);
    expect(total).toBe(99_305); // about 27.6 h
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-20T14:00:00.000Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 14:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 13:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});

// ------------------------------------------------------------------ the engine against a real receiver

describe('webhook dispatcher', () => {
  it('delivers a signed event that the standardwebhooks package verifies; tampering fails', async () => {
    const { store, receiver, secret, dispatcher } = await setup({});
    const p = payload('transaction.expired');
    const e = store.addEvent(M, 'transaction.expired', p, p.data.id);
    dispatcher.kick(); // as the core does after its write
    const done = await settled(store, e.id);
    expect(done.state).toBe('delivered');
    expect(receiver.hits).toHaveLength(1);
    const hit = receiver.hits[0]!;
    expect(hit.path).toBe('/webhooks');
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.body).toBe(JSON.stringify(p));
    expect(hit.headers['webhook-id']).toBe(e.id);
    expect(verifies(secret, hit)).toEqual(p);
    // a changed body, id, timestamp or secret fails verification
    expect(() => verifies(secret, { ...hit, body: hit.body.replace('1299.5', '1.5') })).toThrow();
    expect(() => verifies(secret, { ...hit, headers: { ...hit.headers, 'webhook-id': `${e.id}x` } })).toThrow();
    expect(() =>
      verifies(secret, { ...hit, headers: { ...hit.headers, 'webhook-timestamp': String(Number(hit.headers['webhook-timestamp']) + 1) } }),
    ).toThrow();
    expect(() => verifies(generateWebhookSecret(), hit)).toThrow();
    // the attempt is recorded with the headers sent
    expect(done.attempts).toHaveLength(1);
    const a = done.attempts[0]!;
    expect(a).toMatchObject({ attempt: 1, status: 200, error: null });
    expect(a.headers['webhook-signature']).toBe(hit.headers['webhook-signature']);
    expect(a.headers['webhook-timestamp']).toBe(hit.headers['webhook-timestamp']);
    expect(Number.isInteger(a.durationMs)).toBe(true);
    expect(done.nextAttemptAt).toBeNull();
  });

  it('retries a 500 with the same id and body, a fresh signature each attempt', async () => {
    const { store, receiver, secret, dispatcher } = await setup({ answer: (_h, n) => ({ status: n <= 2 ? 500 : 204 }), compression: 1000 });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    const done = await settled(store, e.id);
    expect(done.state).toBe('delivered');
    expect(done.attempts.map((a) => a.status)).toEqual([500, 500, 204]);
    expect(new Set(receiver.hits.map((h) => h.headers['webhook-id']))).toEqual(new Set([e.id]));
    expect(new Set(receiver.hits.map((h) => h.body)).size).toBe(1);
    for (const h of receiver.hits) expect(verifies(secret, h)).toEqual(p);
    // delays 0 s, 5 s, 300 s / 1000 (no jitter with random = 0.5): 5 ms then 300 ms
    const gap2 = receiver.hits[2]!.receivedAt - receiver.hits[1]!.receivedAt;
    expect(gap2).toBeGreaterThanOrEqual(295);
    expect(done.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
  });

  it('retries a refused connection and delivers once the receiver comes up (at-least-once)', async () => {
    const probe = await new Receiver().listen();
    const port = probe.port;
    await probe.close(); // nothing listens on `port` now
    const store = new MemoryWebhookStore();
    const secret = generateWebhookSecret();
    store.setEndpoint(M, `http://127.0.0.1:${port}/webhooks`, secret);
    const d = createWebhookDispatcher({
      repository: store,
      merchants: store,
      clock: store,
      mode: 'sandbox',
      compression: 1000,
      random: () => 0.5,
    });
    d.start();
    cleanups.push(() => d.stop());
    const events = Array.from({ length: 5 }, () => {
      const p = payload();
      return store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    });
    d.kick();
    await until('two refused attempts each', async () => (await store.list(M)).every((e) => e.attempts.length >= 2));
    for (const e of await store.list(M)) {
      expect(e.state).toBe('pending');
      expect(e.attempts.slice(0, 2).map((a) => [a.status, a.error])).toEqual([
        [null, 'ECONNREFUSED'],
        [null, 'ECONNREFUSED'],
      ]);
    }
    const receiver = await new Receiver().listen(port); // third attempt is due 300 ms after the second
    cleanups.push(() => receiver.close());
    for (const e of events) expect((await settled(store, e.id)).state).toBe('delivered');
    expect(receiver.hits.map((h) => h.headers['webhook-id']).sort()).toEqual(events.map((e) => e.id).sort());
    for (const h of receiver.hits) verifies(secret, h);
  });

  it('times out a slow receiver (status null, error timeout) and retries', async () => {
    // The timeout bounds every attempt, the retry's too: 1.5 s is room for a stalled machine to
    // complete the second attempt (answered at once). The first answer is held 30 s, so only the
    // timeout can end that attempt well before then.
    const { store, receiver, dispatcher } = await setup({
      answer: (_h, n) => ({ status: 200, delayMs: n === 1 ? 30_000 : 0 }),
      timeoutMs: 1500,
    });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    const done = await settled(store, e.id, 40_000); // past the held answer, so the bounds below can fail
    expect(done.attempts.map((a) => [a.status, a.error])).toEqual([
      [null, 'timeout'],
      [200, null],
    ]);
    expect(done.attempts[0]!.durationMs).toBeGreaterThanOrEqual(1490);
    expect(done.attempts[0]!.durationMs).toBeLessThan(10_000); // cut by the timeout, not ended by the answer
    expect(receiver.hits).toHaveLength(2);
  });

  it('respects Retry-After on 429 (seconds) and 503 (HTTP date) when longer than the schedule, ignores it on 500', async () => {
    const answers: Array<() => Answer> = [
      () => ({ status: 429, headers: { 'retry-after': '1' } }),
      () => ({ status: 503, headers: { 'retry-after': new Date(Date.now() + 2500).toUTCString() } }),
      () => ({ status: 500, headers: { 'retry-after': '3600' } }),
    ];
    const { store, receiver, dispatcher } = await setup({ answer: (_h, n) => answers[n - 1]?.() ?? { status: 200 } });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    const done = await settled(store, e.id);
    expect(done.attempts.map((a) => a.status)).toEqual([429, 503, 500, 200]);
    const t = receiver.hits.map((h) => h.receivedAt);
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(990); // 1 s instead of 5 s / 100000
    expect(t[2]! - t[1]!).toBeGreaterThanOrEqual(1400); // until the HTTP date (1-second resolution)
    // Retry-After of a 500 is not honoured: honoured, the wait would be an hour; 5 s is room for a
    // stalled machine's hops around the schedule's 18 ms (30 min / 100000)
    expect(t[3]! - t[2]!).toBeLessThan(5_000);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const { store, receiver, dispatcher } = await setup({
      answer: (h, n) =>
        h.path === '/elsewhere'
          ? { status: 200 }
          : n === 1
            ? { status: 302, headers: { location: '/elsewhere' } }
            : { status: 307, headers: { location: '/elsewhere' } },
    });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    await until('two attempts', async () => ((await store.get(M, e.id))?.attempts.length ?? 0) >= 2);
    const got = (await store.get(M, e.id))!;
    expect(got.attempts.slice(0, 2).map((a) => a.status)).toEqual([302, 307]);
    expect(receiver.hits.every((h) => h.path === '/webhooks')).toBe(true);
  });

  it('410 disables the endpoint; later events are not attempted; redelivery re-enables it', async () => {
    let gone = true;
    const { store, receiver, dispatcher } = await setup({ answer: () => ({ status: gone ? 410 : 200 }) });
    const p1 = payload();
    const e1 = store.addEvent(M, 'transaction.cancelled', p1, p1.data.id);
    dispatcher.kick();
    expect((await settled(store, e1.id)).state).toBe('disabled');
    expect(store.endpoint(M)!.enabled).toBe(false);
    expect((await store.get(M, e1.id))!.attempts).toHaveLength(1);
    const p2 = payload('transaction.approved');
    const e2 = store.addEvent(M, 'transaction.approved', p2, p2.data.id);
    dispatcher.kick();
    expect((await settled(store, e2.id)).state).toBe('disabled');
    expect((await store.get(M, e2.id))!.attempts).toHaveLength(0);
    expect(receiver.hits).toHaveLength(1);

    gone = false;
    const queued = await dispatcher.redeliver(M, e1.id);
    expect(queued).toMatchObject({ id: e1.id, state: 'pending' });
    expect(store.endpoint(M)!.enabled).toBe(true);
    const done = await settled(store, e1.id);
    expect(done.state).toBe('delivered');
    expect(done.attempts.map((a) => a.status)).toEqual([410, 200]);
    expect(receiver.hits[1]!.headers['webhook-id']).toBe(e1.id);
    expect(receiver.hits[1]!.body).toBe(receiver.hits[0]!.body);
    expect(await dispatcher.redeliver(M, 'msg_unknown')).toBeUndefined();
  });

  it('walks the whole compressed schedule: 8 attempts, then failed (listed, redeliverable)', async () => {
    let up = false;
    const compression = 200_000; // 99,305 s of schedule in about 0.5 s
    const { store, receiver, secret, dispatcher } = await setup({
      answer: () => ({ status: up ? 200 : 500 }),
      compression,
      random: Math.random,
    });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    const t0 = Date.now();
    const failed = await settled(store, e.id, 30_000); // longer than the bound on `elapsed` below, so that one can fail
    const elapsed = Date.now() - t0;
    expect(failed.state).toBe('failed');
    expect(failed.nextAttemptAt).toBeNull();
    expect(failed.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(failed.attempts.every((a) => a.status === 500)).toBe(true);
    expect(receiver.hits).toHaveLength(8);
    for (const h of receiver.hits) verifies(secret, h);
    // each gap is at least the compressed delay minus 20 % jitter
    const delays = webhookDelivery.retry.delaysSeconds;
    for (let i = 1; i < 8; i++) {
      const gap = receiver.hits[i]!.receivedAt - receiver.hits[i - 1]!.receivedAt;
      expect(gap).toBeGreaterThanOrEqual(Math.floor(((delays[i] as number) * 1000 * 0.8) / compression) - 1);
    }
    // the 27.6 h schedule in well under 20 s: compressed at least 5,000-fold, with room for 8
    // real requests and their timers on a stalled machine (about 0.5 s when idle)
    expect(elapsed).toBeLessThan(20_000);
    expect((await store.list(M)).map((x) => x.id)).toContain(e.id);
    up = true;
    await dispatcher.redeliver(M, e.id);
    const done = await settled(store, e.id);
    expect(done.state).toBe('delivered');
    expect(done.attempts).toHaveLength(9);
  });

  it('counts delays on the merchant clock: advancing it makes the next retry due at once', async () => {
    // production-like real delays (compression 1): the 3rd attempt is 5 minutes away
    const { store, receiver, dispatcher } = await setup({ answer: (_h, n) => ({ status: n <= 2 ? 500 : 200 }), compression: 1 });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    await until('attempt 1', async () => ((await store.get(M, e.id))?.attempts.length ?? 0) >= 1);
    store.advance(M, 6_000); // past the 5 s (±20 %) delay
    dispatcher.kick();
    await until('attempt 2', async () => ((await store.get(M, e.id))?.attempts.length ?? 0) >= 2);
    const mid = (await store.get(M, e.id))!;
    expect(mid.state).toBe('pending');
    expect(Date.parse(mid.nextAttemptAt!) - store.now(M).getTime()).toBeGreaterThan(200_000);
    await dispatcher.idle(); // nothing due now
    expect(receiver.hits).toHaveLength(2);
    store.advance(M, 6 * 60_000);
    dispatcher.kick();
    expect((await settled(store, e.id)).state).toBe('delivered');
    expect(receiver.hits).toHaveLength(3);
    // the attempt time is the merchant's clock
    const done = (await store.get(M, e.id))!;
    expect(Date.parse(done.attempts[2]!.at) - Date.now()).toBeGreaterThan(6 * 60_000);
  });

  it("counts the next attempt's delay from the attempt's end on the clock it started on: a clock advanced while it is in flight does not postpone it", async () => {
    // the first attempt's answer is held until the merchant's clock has moved an hour on
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const { store, receiver, dispatcher, logs } = await setup({
      answer: (_h, n) => (n === 1 ? { status: 500, until: held } : { status: 200 }),
      compression: 1,
    });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    await until('the first attempt in flight', () => receiver.hits.length >= 1);
    store.advance(M, 3_600_000);
    release();
    // the second attempt is due at once, so the event may be delivered before it is read: its first attempt's schedule is logged
    const scheduled = await until('attempt 1 logged', () =>
      logs.map((l) => / attempt 1 -> 500 .* until (\S+)$/.exec(l)?.[1]).find(Boolean),
    );
    const attempt = (await settled(store, e.id)).attempts[0]!;
    // 5 s ± 20 % after the attempt's end on the clock it started on, not an hour later
    const wait = Date.parse(scheduled) - (Date.parse(attempt.at) + attempt.durationMs);
    expect(wait).toBeGreaterThanOrEqual(4000);
    expect(wait).toBeLessThanOrEqual(6000);
  });

  it('marks events of a merchant without URL or secret no_endpoint, without an attempt', async () => {
    const { store, dispatcher } = await setup({});
    store.setEndpoint('m-none', null, null);
    const p = payload();
    const e = store.addEvent('m-none', 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    expect(e.state).toBe('no_endpoint');
    // an endpoint removed after the event was written
    store.setEndpoint('m-later', 'http://127.0.0.1:9/x', generateWebhookSecret());
    const e2 = store.addEvent('m-later', 'transaction.cancelled', p, p.data.id);
    store.setEndpoint('m-later', null, null);
    dispatcher.kick();
    await until('no_endpoint', async () => (await store.get('m-later', e2.id))?.state === 'no_endpoint');
    expect((await store.get('m-later', e2.id))!.attempts).toEqual([]);
  });

  it('production mode refuses a loopback URL at delivery time (recorded, retried, never sent)', async () => {
    const { store, receiver, dispatcher } = await setup({ mode: 'production', compression: 1 });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    dispatcher.kick();
    dispatcher.kick();
    await until('attempt', async () => ((await store.get(M, e.id))?.attempts.length ?? 0) >= 1);
    const got = (await store.get(M, e.id))!;
    expect(got.state).toBe('pending');
    expect(got.attempts[0]!.status).toBeNull();
    expect(got.attempts[0]!.error).toMatch(/^url_refused: /);
    expect(receiver.hits).toHaveLength(0);
  });

  it('kick() and redeliver() return without waiting for the receiver', async () => {
    // The receiver holds each answer until the test lets it go (or the sender's 10 s timeout ends
    // the attempt): a caller waiting for the receiver would still be waiting, however slow the machine.
    let release = () => {};
    const { store, receiver, dispatcher } = await setup({
      answer: () => ({ status: 200, until: new Promise<void>((r) => (release = r)) }),
    });
    const p = payload();
    const e = store.addEvent(M, 'transaction.cancelled', p, p.data.id);
    const t0 = performance.now();
    dispatcher.kick();
    // synchronous, it only starts the pump (a stalled machine may still take a while)
    expect(performance.now() - t0).toBeLessThan(200);
    await until('request received', () => receiver.hits.length === 1);
    expect((await store.get(M, e.id))!.attempts).toHaveLength(0); // in flight, the caller was not held
    release();
    await dispatcher.idle();
    expect((await store.get(M, e.id))!.state).toBe('delivered');
    const queued = await dispatcher.redeliver(M, e.id);
    expect(queued!.state).toBe('pending');
    // back while the receiver holds the answer: the new attempt is not recorded yet
    expect((await store.get(M, e.id))!.attempts).toHaveLength(1);
    await until('request received again', () => receiver.hits.length === 2);
    release();
    await dispatcher.idle();
    expect((await store.get(M, e.id))!.attempts.map((a) => a.status)).toEqual([200, 200]);
  });

  it('1,000 events, a receiver failing a third of the time: every event arrives, once among the 2xx', async () => {
    // failure is decided by a hash of (the event's index, attempt number at the receiver): a
    // third of requests fail, the same ones on every run, independent of timing and interleaving
    const seen = new Map<string, number>();
    const acked = new Map<string, number>();
    let failures = 0;
    const { store, receiver, secret, dispatcher } = await setup({
      compression: 100_000,
      random: Math.random,
      answer: (h) => {
        const id = h.headers['webhook-id']!;
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        const ref = (JSON.parse(h.body) as { data: { vendorReference: string } }).data.vendorReference;
        const fail = createHash('sha256').update(`${ref}#${n}`).digest()[0]! % 3 === 0;
        if (fail) {
          failures++;
          return { status: 500 };
        }
        acked.set(id, (acked.get(id) ?? 0) + 1);
        return { status: 200 };
      },
    });
    const ids: string[] = [];
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) {
      const p = payload(i % 3 === 0 ? 'transaction.approved' : i % 3 === 1 ? 'transaction.cancelled' : 'transaction.expired');
      p.data.vendorReference = `LOAD-${i}`;
      ids.push(store.addEvent(M, p.event, p, p.data.id).id);
      if (i % 100 === 0) dispatcher.kick();
    }
    dispatcher.kick();
    await until('every event acknowledged', () => acked.size === 1000, 30_000);
    await dispatcher.idle();
    const ms = performance.now() - t0;
    expect((await store.list(M)).every((e) => e.state === 'delivered')).toBe(true);
    expect(acked.size).toBe(1000);
    for (const id of ids) expect(acked.get(id)).toBe(1);
    const total = receiver.hits.length;
    expect(failures / total).toBeGreaterThan(0.25);
    expect(failures / total).toBeLessThan(0.42);
    const all = await store.list(M);
    // the receiver's answers are a fixed function of (index, attempt): 1,516 requests, 516 failures
    expect(total).toBe(1516);
    expect(failures).toBe(516);
    // every request the receiver saw is a recorded attempt (a reset connection adds attempts it never saw)
    expect(all.reduce((s, e) => s + e.attempts.length, 0)).toBeGreaterThanOrEqual(total);
    for (const h of receiver.hits.slice(0, 50)) verifies(secret, h);
    console.log(`1,000 events: ${total} requests (${failures} failed) in ${Math.round(ms)} ms`);
    expect(ms).toBeLessThan(30_000);
  });
});
