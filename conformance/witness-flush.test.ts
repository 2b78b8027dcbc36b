/**
 * The witnesses read back (`witness.ts`, `flushWitnesses`) against the reference server in sandbox
 * mode, once as it is and once behind a fault that repeats one write of the main merchant with the
 * other merchant's key (a storage update or a sandbox operation whose scope is not its caller): the
 * other merchant's sandbox state after a merchant-wide write, and its record sharing a
 * vendorReference with a B4 cancel, are found changed, the finding naming the write.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerBody } from '../reference-server/test-support/helpers.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { ConformanceError } from '../judge/answer.ts';
import { flushWitnesses, takeWitnessBaseline } from './witness.ts';
import { World, type Tx, type Who } from './world.ts';

const main = `sk_test_witness_main_${randomBytes(6).toString('hex')}`;
const other = `sk_test_witness_other_${randomBytes(6).toString('hex')}`;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    mode: 'sandbox',
    merchants: [
      { name: 'Main', storeName: 'Main store', apiKey: main, variant: 1 },
      { name: 'Other', storeName: 'Other store', apiKey: other, variant: 1 },
    ],
  });
});
afterAll(() => server?.close());

/**
 * A fetch that, after a successful request of the main merchant matching `reaches` (method and
 * path), sends it again with the other merchant's key in the same header: the write reaches the
 * other merchant too. The suite sees the main merchant's answer only.
 */
function reachingOther(reaches: (method: string, path: string) => boolean): (input: string, init?: RequestInit) => Promise<Response> {
  // the suite's client calls fetch(url, init) with the url a string and the headers an object
  return async (input: string, init?: RequestInit) => {
    const res = await fetch(input, init);
    const method = init?.method ?? 'GET';
    const url = new URL(input);
    const headers = { ...(init?.headers as Record<string, string>) };
    const keyed = Object.keys(headers).filter((h) => headers[h] === main);
    if (res.ok && keyed.length && reaches(method, url.pathname)) {
      for (const h of keyed) headers[h] = other;
      await (await fetch(input, { ...init, headers })).arrayBuffer();
    }
    return res;
  };
}

/** A sandbox-profile world on the test server (through `fetchImpl`), its other merchant's state read as at the setup. */
async function world(fetchImpl: (input: string, init?: RequestInit) => Promise<Response> = fetch): Promise<World> {
  const cfg = { baseUrl: server.baseUrl, apiKey: main, otherApiKey: other, variant: 1 as const, profile: 'sandbox' as const };
  const w = new World(cfg, fetchImpl);
  w.suiteStartIso = new Date().toISOString();
  await takeWitnessBaseline(w);
  return w;
}

/** Creates a PENDING partner transaction for `who` with `vendorReference`, known to the model as the suite's commands note it. */
async function create(w: World, who: Who, vendorReference: string): Promise<Tx> {
  const op = 'createPartnerTransaction';
  const ex = await w.client.call(op, { headers: w.auth(op, w.key(who)), body: partnerBody({ vendorReference }) });
  expect(ex.status, ex.responseText).toBe(201);
  const created = ex.json as Record<string, unknown>;
  const tx: Tx = {
    id: String(created.id),
    who,
    kind: 'partner',
    status: 'PENDING',
    vendorReference,
    created,
    sentAt: ex.sentAt,
    receivedAt: ex.receivedAt,
    advAtCreation: w.state.advanced[who],
    runId: w.state.runId,
    emitted: [],
  };
  w.state.txs.set(tx.id, tx);
  return tx;
}

/** The B4 cancel of the main merchant's transaction with `ref`, the other merchant's with the same reference then read back. */
async function cancelShared(w: World): Promise<{ theirs: Tx; error: unknown }> {
  const ref = `WIT-${randomBytes(4).toString('hex')}`;
  const mine = await create(w, 'main', ref);
  const theirs = await create(w, 'other', ref);
  await flushWitnesses(w); // the creations: each other's witness, both PENDING
  const op = 'cancelPartnerTransactionByVendorReference';
  const ex = await w.client.call(op, { pathParams: { vendorReference: ref }, headers: w.auth(op, main) });
  expect(ex.status, ex.responseText).toBe(200);
  mine.status = 'CANCELED';
  return { theirs, error: await flushWitnesses(w).catch((e: unknown) => e) };
}

/** A clock advance and a fault rule set by the main merchant, the other merchant's state then read back. */
async function mainSandboxWrites(w: World): Promise<unknown> {
  const clock = await w.client.call('sandboxAdvanceClock', { headers: w.auth('sandboxAdvanceClock', main), body: { seconds: 60 } });
  expect(clock.status, clock.responseText).toBe(200);
  w.state.advanced.main += 60;
  const set = 'sandboxSetFaultRule';
  const rule = { failure: '503', operations: ['createPartnerTransaction'], times: 2 };
  const ex = await w.client.call(set, { headers: w.auth(set, main), body: { rule } });
  expect(ex.status, ex.responseText).toBe(200);
  const error = await flushWitnesses(w).catch((e: unknown) => e);
  await w.client.call(set, { headers: w.auth(set, main), body: { rule: null } });
  return error;
}

describe("a write's witnesses: what the other merchant holds, read back after the main merchant's writes", () => {
  it("a correct server: the other merchant's record sharing a reference with a B4 cancel, and its sandbox state, read back unchanged", async () => {
    const w = await world();
    const before = w.client.transcript.length;
    const { error } = await cancelShared(w);
    expect(error).toBeUndefined();
    // the witness was read: B2 with the other key, its list filtered by the reference, its SMS, its deliveries
    const reads = w.client.transcript.slice(before).filter((ex) => ex.method === 'GET' && Object.values(ex.headers).includes(other));
    expect(new Set(reads.map((ex) => ex.opId))).toEqual(
      new Set(['getPartnerTransaction', 'sandboxListTransactions', 'sandboxListSms', 'sandboxListWebhookDeliveries']),
    );
    expect(await mainSandboxWrites(w)).toBeUndefined();
  }, 30_000);

  it("a B4 cancel whose storage update also cancels the other merchant's transaction with the same reference: found, naming the write", async () => {
    const w = await world(reachingOther((method, path) => method === 'PUT' && path.endsWith('/cancel')));
    const { theirs, error } = await cancelShared(w);
    expect(error).toBeInstanceOf(ConformanceError);
    const e = error as ConformanceError;
    expect(e.operation).toBe('getPartnerTransaction');
    expect(e.jsonPath).toBe('$.status');
    expect(e.message).toMatch(
      new RegExp(
        `after PUT /api/v1/public/partner/transactions/vendor/WIT-[0-9a-f]+/cancel by the main merchant \\(answered 200\\), the other merchant's transaction ${theirs.id} sharing a key with it: status CANCELED, the model expects PENDING`,
      ),
    );
  }, 30_000);

  /** Merchant-wide writes that reach the other merchant, and the state read that shows it. */
  const reachingState = [
    {
      what: "a clock advance that also moves the other merchant's clock",
      write: ['POST', '/api/v1/sandbox/clock/advance'],
      // the clock's exact offset (ADR-085) is the member read first
      read: ['sandboxGetClock', '/api/v1/sandbox/clock', 'offsetMilliseconds'],
    },
    {
      what: 'a fault rule that is also set for the other merchant',
      write: ['PUT', '/api/v1/sandbox/faults'],
      read: ['sandboxGetFaultRule', '/api/v1/sandbox/faults', 'rule'],
    },
  ] as const;
  it.each(reachingState)(
    '$what: its state read changed, the finding naming the write',
    async ({ write, read }) => {
      const [method, path] = write;
      const [op, readPath, member] = read;
      const w = await world(reachingOther((m, p) => m === method && p === path));
      const e = (await mainSandboxWrites(w)) as ConformanceError;
      expect(e).toBeInstanceOf(ConformanceError);
      expect([e.operation, e.jsonPath]).toEqual([op, `$.${member}`]);
      expect(e.message).toContain(
        `after ${method} ${path} by the main merchant (answered 200), the other merchant's GET ${readPath} changed (${member}`,
      );
      // the other merchant's clock back to real time for the next test's baseline
      await fetch(`${server.baseUrl}/api/v1/sandbox/reset`, {
        method: 'POST',
        headers: { 'X-API-Key': other, 'Content-Type': 'application/json' },
        body: '{}',
      });
    },
    30_000,
  );
});
