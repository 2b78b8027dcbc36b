/**
 * A shared sandbox: two and three `paylater serve --database-url` processes on one PostgreSQL
 * database (one throwaway cluster for the file), behind a round-robin proxy. The database makes
 * the answers exact across instances: one winner of concurrent cancels and of a confirm racing
 * a cancel, one create per vendorReference, exactly the rate limit, every transition's webhook
 * delivered under one `webhook-id` (also when an instance is killed mid-deliveries), an expiry
 * emitted once, the event stream of one instance showing another's events. Then an outage of
 * the database, and start-up refusals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnPaylater } from '../../../scripts/lib/paylater-process.ts';
import { DEFAULT_DATA_FILE, parseServeArgs } from '../../cli.ts';
import { DEMO_MERCHANTS, type MerchantConfigInput } from '../../config.ts';
import { call, errorOf, item, partnerBody, sessionBodyV1, type Answer } from '../../test-support/helpers.ts';
import { startCluster, type Cluster } from '../../test-support/pg-cluster.ts';
import { migrateUrl } from './migrate.ts';
import {
  roundRobinProxy,
  startInstance,
  startReceiver,
  type Instance,
  type Proxy,
  type Receiver,
} from '../../test-support/pg-instances.ts';

let cluster: Cluster;
let dir: string;
let url: string;
let receiver: Receiver;
let instances: Instance[] = [];
let p2: Proxy;
let p3: Proxy;

/** One Variant 1 merchant per use, so their rate-limit windows and clocks stay apart. */
const NAMES = ['two', 'three', 'expiry', 'stream', 'crash', 'credit', 'faults'] as const;
const KEY = Object.fromEntries(NAMES.map((n) => [n, `sk_test_v1_shared_${n}_${'0'.repeat(20 - n.length)}`])) as Record<
  (typeof NAMES)[number],
  string
>;

beforeAll(async () => {
  cluster = await startCluster({ pausable: true });
  dir = mkdtempSync(path.join(tmpdir(), 'paylater-multi-'));
  url = await cluster.createDatabase();
  await migrateUrl(url); // once, before three instances start together (they would serialise on the lock anyway)
  receiver = await startReceiver();
  const merchants: MerchantConfigInput[] = NAMES.map((n) => ({
    ...DEMO_MERCHANTS[0]!,
    name: `Shared ${n}`,
    storeName: `Shared ${n} store`,
    apiKey: KEY[n],
    webhookUrl: receiver.url,
    ...(n === 'credit' ? { creditLimit: 10_000 } : {}),
  }));
  instances = await Promise.all([0, 1, 2].map(() => startInstance({ databaseUrl: url, merchants, dir, args: ['--no-auth-throttle'] })));
  p2 = await roundRobinProxy(() => instances.slice(0, 2).map((i) => i.baseUrl));
  p3 = await roundRobinProxy(() => instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null).map((i) => i.baseUrl));
}, 120_000);

afterAll(async () => {
  await Promise.allSettled([p2?.close(), p3?.close(), receiver?.close()]);
  await Promise.allSettled(instances.map((i) => i.stop()));
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Tx = { id: string; status: string; vendorReference: string };
const api = <B = unknown>(base: string, method: string, p: string, key: string, json?: unknown): Promise<Answer<B>> =>
  call<B>(base, method, p, { headers: { 'X-API-Key': key }, ...(json === undefined ? {} : { json }) });
let refs = 0;
const ref = () => `MI-${Date.now().toString(36)}-${refs++}`;

async function create(base: string, key: string, vendorReference = ref()): Promise<Tx> {
  const r = await call<Tx>(base, 'POST', '/api/v1/public/partner/transactions', {
    headers: { 'X-Service-Key': key },
    json: partnerBody({ vendorReference }),
  });
  expect(r.status, r.text).toBe(201);
  return r.body;
}
const cancel = (base: string, key: string, t: Tx) =>
  api<Tx>(base, 'PUT', `/api/v1/public/partner/transactions/vendor/${t.vendorReference}/cancel`, key);
const confirm = (base: string, key: string, t: Tx) => api<Tx>(base, 'POST', `/api/v1/sandbox/transactions/${t.id}/confirm`, key);

type Delivery = { id: string; event: string; transactionId: string; state: string };
async function deliveriesOf(key: string, transactionId: string): Promise<Delivery[]> {
  const r = await api<{ data: Delivery[] }>(p3.baseUrl, 'GET', '/api/v1/sandbox/webhook-deliveries?limit=100', key);
  expect(r.status, r.text).toBe(200);
  return r.body.data.filter((d) => d.transactionId === transactionId);
}
const received = (id: string) => receiver.deliveries.filter((d) => d.id === id).length;

describe.each([
  [2, 'two'],
  [3, 'three'],
] as const)('%i instances on one database', (n, name) => {
  const key = KEY[name];
  const base = () => (n === 2 ? p2 : p3).baseUrl;

  it('50 concurrent cancels of one transaction: exactly one 200, and one webhook', async () => {
    const t = await create(base(), key);
    const answers = await Promise.all(Array.from({ length: 50 }, () => cancel(base(), key, t)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual(Array(49).fill(400));
    const events = await deliveriesOf(key, t.id);
    expect(events.map((e) => e.event)).toEqual(['transaction.cancelled']);
    await expect.poll(() => received(events[0]!.id), { timeout: 10_000 }).toBe(1);
  });

  it('50 concurrent creates with one vendorReference: one 201 and 49 × 409', async () => {
    const vendorReference = ref();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(base(), 'POST', '/api/v1/public/partner/transactions', {
          headers: { 'X-Service-Key': key },
          json: partnerBody({ vendorReference }),
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(49);
  });

  it('customer confirm racing merchant cancel: one winner; stored state and the single webhook match it', async () => {
    for (let round = 0; round < 5; round++) {
      const t = await create(base(), key);
      const [c, x] = await Promise.all([confirm(base(), key, t), cancel(base(), key, t)]);
      expect([c.status, x.status].filter((s) => s === 200)).toHaveLength(1);
      const winner = c.status === 200 ? 'APPROVED' : 'CANCELED';
      const stored = await api<Tx>(base(), 'GET', `/api/v1/public/partner/transactions/${t.id}`, key);
      expect(stored.body.status).toBe(winner);
      const events = await deliveriesOf(key, t.id);
      expect(events.map((e) => e.event)).toEqual([winner === 'APPROVED' ? 'transaction.approved' : 'transaction.cancelled']);
      await expect.poll(() => received(events[0]!.id), { timeout: 10_000 }).toBe(1);
      const got = receiver.deliveries.find((d) => d.id === events[0]!.id)!;
      expect(got.body.data?.status).toBe(winner);
    }
  });

  it('101 A1 requests of one key spread over the instances: exactly 100 pass, then 429', async () => {
    const answers = await Promise.all(
      Array.from({ length: 101 }, () => api(base(), 'POST', '/api/v1/public/sessions', key, sessionBodyV1())),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(100);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(1);
    expect((await api(base(), 'POST', '/api/v1/public/sessions', key, sessionBodyV1())).status).toBe(429);
  });
});

describe('three instances: background work', () => {
  it('an expiry at the window is emitted once, whichever instance sweeps', async () => {
    const key = KEY.expiry;
    const t = await create(p3.baseUrl, key);
    const adv = await api(p3.baseUrl, 'POST', '/api/v1/sandbox/clock/advance', key, { seconds: 31 * 60 });
    expect(adv.status, adv.text).toBe(200);
    // Every instance sweeps each second, on the clock it re-reads from the database.
    await expect
      .poll(async () => (await deliveriesOf(key, t.id)).map((e) => e.event), { timeout: 15_000 })
      .toEqual(['transaction.expired']);
    const [ev] = await deliveriesOf(key, t.id);
    await expect.poll(() => received(ev!.id), { timeout: 10_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 2500)); // more sweeps on every instance
    expect((await deliveriesOf(key, t.id)).length).toBe(1);
    expect(received(ev!.id)).toBe(1);
    expect((await api<Tx>(instances[0]!.baseUrl, 'GET', `/api/v1/public/partner/transactions/${t.id}`, key)).body.status).toBe('EXPIRED');
  });

  it('a fault rule set through one instance is applied by the next call to another, exactly `times` (ADR-052)', async () => {
    // The conformance suite sets a rule of one B1 call and makes that call at once, through a
    // round-robin proxy: the instance serving it must read the rule from the database then,
    // not wait for the change notice (CI once saw 201 there, then the stale rule fail a later call).
    const key = KEY.faults;
    const b1 = (base: string) =>
      call(base, 'POST', '/api/v1/public/partner/transactions', {
        headers: { 'X-Service-Key': key },
        json: partnerBody({ vendorReference: ref() }),
      });
    for (let round = 0; round < 10; round++) {
      const [a, b] = round % 2 === 0 ? [instances[0]!, instances[1]!] : [instances[1]!, instances[2]!];
      const set = await api(a.baseUrl, 'PUT', '/api/v1/sandbox/faults', key, {
        rule: { failure: '500', operations: ['createPartnerTransaction'], times: 1 },
      });
      expect(set.status, set.text).toBe(200);
      const failed = await b1(b.baseUrl);
      expect(failed.status, `round ${round}: ${failed.text}`).toBe(500);
      expect(errorOf(failed).code).toBe('INTERNAL_ERROR');
      // used up, whichever instance serves the next calls
      expect((await b1(a.baseUrl)).status).toBe(201);
      expect((await b1(b.baseUrl)).status).toBe(201);
    }
    const off = await api(instances[2]!.baseUrl, 'PUT', '/api/v1/sandbox/faults', key, { rule: null });
    expect(off.status, off.text).toBe(200);
  });

  it('the event stream of one instance shows an event made on another', async () => {
    const key = KEY.stream;
    const ac = new AbortController();
    const res = await fetch(`${instances[0]!.baseUrl}/api/v1/sandbox/events`, { headers: { 'X-API-Key': key }, signal: ac.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    const t = await create(instances[1]!.baseUrl, key);
    expect((await confirm(instances[2]!.baseUrl, key, t)).status).toBe(200);
    const [ev] = await deliveriesOf(key, t.id);
    const deadline = Date.now() + 10_000;
    while (!text.includes(`id: ${ev!.id}`) && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    expect(text).toMatch(new RegExp(`id: ${ev!.id}\\nevent: transaction.approved\\n`));
  });

  it('30 concurrent creates against a credit limit on three instances: exactly what fits passes', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        call(p3.baseUrl, 'POST', '/api/v1/public/partner/transactions', {
          headers: { 'X-Service-Key': KEY.credit },
          json: partnerBody({ total: 1000, items: [item(1000)] }),
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(20);
    for (const a of refused) expect(errorOf(a).code).toBe('CREDIT_LIMIT_EXCEEDED');
  });

  it('paylater listen on one instance forwards an event made on another', async () => {
    const key = KEY.stream;
    const forwarded = await startReceiver();
    const { child, output } = spawnPaylater([
      'listen',
      '--forward-to',
      forwarded.url,
      '--base-url',
      instances[0]!.baseUrl,
      '--api-key',
      key,
    ]);
    try {
      await expect.poll(output, { timeout: 20_000 }).toMatch(/listen signing secret/);
      // Not a pause: a stream opened without a resume point starts after the newest event, so the
      // event made next is forwarded only if the stream answered before it was recorded.
      await expect.poll(output, { timeout: 20_000 }).toMatch(/Connected to the event stream/);
      const t = await create(instances[1]!.baseUrl, key);
      expect((await cancel(instances[2]!.baseUrl, key, t)).status).toBe(200);
      await expect.poll(() => forwarded.deliveries.map((d) => d.body.data?.id), { timeout: 15_000 }).toContain(t.id);
      expect(forwarded.deliveries.find((d) => d.body.data?.id === t.id)?.body.event).toBe('transaction.cancelled');
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
      await forwarded.close();
    }
  });

  it('every webhook delivered under its one webhook-id when an instance is killed (kill -9) mid-deliveries', async () => {
    const key = KEY.crash;
    const txs = await Promise.all(Array.from({ length: 40 }, () => create(p3.baseUrl, key)));
    const before = receiver.deliveries.length;
    receiver.delayMs = 1000; // deliveries stay in flight
    const answers = await Promise.all(txs.map((t) => cancel(p3.baseUrl, key, t)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await expect.poll(() => receiver.deliveries.length - before, { timeout: 10_000, interval: 20 }).toBeGreaterThan(3);
    await instances[2]!.kill();
    receiver.delayMs = 0;
    const events = new Map<string, string>();
    for (const t of txs) {
      const ev = await deliveriesOf(key, t.id);
      expect(ev.map((e) => e.event)).toEqual(['transaction.cancelled']);
      events.set(ev[0]!.id, t.id);
    }
    // The killed instance's claims run out (an attempt's timeout and a margin); the others deliver the rest.
    await expect.poll(() => [...events.keys()].filter((id) => received(id) === 0).length, { timeout: 45_000, interval: 500 }).toBe(0);
    // …and every delivery is recorded delivered: the killed instance's in-flight attempts were taken over.
    await expect
      .poll(
        async () => {
          const r = await api<{ data: Delivery[] }>(p3.baseUrl, 'GET', '/api/v1/sandbox/webhook-deliveries?limit=100', key);
          return r.body.data.filter((d) => d.state !== 'delivered').length;
        },
        { timeout: 45_000, interval: 500 },
      )
      .toBe(0);
    const ids = new Set(receiver.deliveries.slice(before).map((d) => d.id));
    expect([...ids].sort()).toEqual([...events.keys()].sort());
    for (const id of ids) expect(receiver.deliveries.find((d) => d.id === id)!.body.data?.id).toBe(events.get(id));
    // Up to here, nothing else was ever delivered twice.
    const earlier = receiver.deliveries.slice(0, before).map((d) => d.id);
    expect(new Set(earlier).size).toBe(earlier.length);
  }, 90_000);
});

describe('operations', () => {
  it('a lost database: 503 STORAGE_UNAVAILABLE with Retry-After, /readyz not ready; recovers when it is back', async () => {
    const base = instances[0]!.baseUrl;
    await cluster.pause();
    try {
      const r = await call(base, 'POST', '/api/v1/public/partner/transactions', {
        headers: { 'X-Service-Key': KEY.two },
        json: partnerBody({ vendorReference: ref() }),
      });
      expect(r.status, r.text).toBe(503);
      expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      const e = errorOf(r);
      expect(e.code).toBe('STORAGE_UNAVAILABLE');
      expect(e.message).toBe(`Storage is unavailable, retry after ${r.headers.get('retry-after')} seconds`);
      const ready = await call(base, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(errorOf(ready).code).toBe('NOT_READY');
      expect((await call(base, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await cluster.start();
    }
    await expect.poll(async () => (await call(base, 'GET', '/readyz')).status, { timeout: 30_000, interval: 500 }).toBe(200);
    await create(base, KEY.two);
  }, 60_000);

  it('paylater serve options: --database-url or PAYLATER_DATABASE_URL; never with --data or --memory', () => {
    const env = { PAYLATER_DATABASE_URL: 'postgres://env@127.0.0.1/x' };
    expect(parseServeArgs(['--database-url', 'postgres://a@127.0.0.1/y'], {})).toMatchObject({
      databaseUrl: 'postgres://a@127.0.0.1/y',
      data: null,
    });
    expect(parseServeArgs([], env)).toMatchObject({ databaseUrl: env.PAYLATER_DATABASE_URL, data: null });
    expect(parseServeArgs(['--memory'], env)).toMatchObject({ databaseUrl: null, data: null });
    expect(parseServeArgs(['--data', 'd.json'], env)).toMatchObject({ databaseUrl: null, data: 'd.json' });
    expect(parseServeArgs([], {})).toMatchObject({ databaseUrl: null, data: DEFAULT_DATA_FILE });
    expect(() => parseServeArgs(['--database-url', 'postgres://a@h/y', '--memory'], {})).toThrow(
      /--database-url and --memory cannot be used together/,
    );
    expect(() => parseServeArgs(['--data', 'x', '--database-url=postgres://a@h/y'], {})).toThrow(
      /--database-url and --data cannot be used together/,
    );
  });

  it('start-up fails clearly on a wrong URL and on a database at a newer migration', async () => {
    const serve = async (databaseUrl: string) => {
      const { child, output } = spawnPaylater(['serve', '--port', '0', '--database-url', databaseUrl]);
      const [code] = (await once(child, 'exit')) as [number];
      return { code, text: output() };
    };
    const newer = await cluster.createDatabase();
    await migrateUrl(newer);
    const c = new pg.Client({ connectionString: newer });
    await c.connect();
    await c.query("INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'from_the_future', 'x')");
    await c.end();
    const [wrong, future] = await Promise.all([serve('postgres://nobody:secret@127.0.0.1:1/none'), serve(newer)]);
    expect(wrong.code).toBe(1);
    expect(wrong.text).toMatch(/paylater serve: cannot connect to the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/);
    expect(wrong.text).not.toMatch(/secret/);
    expect(future.code).toBe(1);
    expect(future.text).toMatch(
      /paylater serve: the database at postgres:\/\/\S+ is at migration 999 \(from_the_future\), newer than this server's latest/,
    );
  }, 60_000);
});
