/**
 * A sandbox that has lived: the reference server first serves two suite runs directly (each moves
 * its merchant's sandbox clock forward and resets it back, as any test run does, and leaves its
 * SMS, deliveries, transactions and a 410-disabled-then-reenabled endpoint behind); then
 * `paylater proxy` (no --variant) is started in front of it and a third run goes through it. The
 * server is correct: the proxy reports nothing, on both variants. It sees records made before it
 * started, lists whose instants a reset put out of order, deliveries with attempts on both sides of
 * a reset, and a clock it first saw already reset. Its HAR, judged with the sole-client assumption
 * (ADR-087: the third run was the keys' only client), gives nothing either.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { merchantPair, type MerchantPair } from '../conformance/merchant-pairs.ts';
import { runSuite } from '../conformance/run.ts';
import { stateMachine } from '../generated/index.ts';
import { judgeRecorded } from '../judge/recorded.ts';
import { parseHar } from '../recorded/har.ts';
import { routeTable } from '../server/routes.ts';
import { listening } from '../lib/listen.ts';
import { createRequest, partnerRecord } from '../judge/test-support/record.ts';
import { startLiveProxy } from './server.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: TestServer;
const pairs: MerchantPair[] = [];

beforeAll(async () => {
  const merchants = [];
  for (const v of [1, 2] as const) {
    const { pair, merchants: m } = await merchantPair('lived', v, v, secret);
    pairs.push(pair);
    merchants.push(...m);
  }
  server = await startTestServer({ merchants, mode: 'sandbox' });
});
afterAll(async () => {
  await server?.close();
});

/** One suite run of `pair` against `baseUrl` (sandbox profile, a short random search after the coverage tour). */
async function suiteRun(pair: MerchantPair, baseUrl: string, seed: number): Promise<string[]> {
  const r = await runSuite({
    baseUrl,
    apiKey: pair.main,
    otherApiKey: pair.other,
    variant: pair.variant,
    profile: 'sandbox',
    runs: 1,
    seed,
    maxCommands: 10,
    paymentWindowSeconds: stateMachine.paymentWindow.defaultSeconds,
    timeLimitMs: 60_000,
  });
  return r.findings.map((f) => f.message);
}

describe('the proxy in front of a sandbox that has lived', () => {
  for (const v of [1, 2] as const)
    it(`variant ${v}: two suite runs direct, then a third through the proxy: 0 suite findings, 0 proxy findings`, async () => {
      const pair = pairs[v - 1]!;
      expect(await suiteRun(pair, server.baseUrl, 7100 + v)).toEqual([]);
      expect(await suiteRun(pair, server.baseUrl, 7200 + v)).toEqual([]);
      // every exchange in its HAR: judged again below as the run's sole client
      const proxy = await startLiveProxy({ upstream: server.baseUrl, keepExchanges: 1_000_000 });
      try {
        expect(await suiteRun(pair, proxy.url, 7300 + v)).toEqual([]);
        proxy.recorder.sweep();
        expect(proxy.recorder.findings.map((f) => `${f.kind} ${f.operation} ${f.jsonPath}: ${f.message}`)).toEqual([]);
        // it judged the third run: the lists of the earlier runs, the clock's moves, the records
        const cov = proxy.recorder.coverage();
        for (const op of [
          'sandboxListSms',
          'sandboxListWebhookDeliveries',
          'sandboxListTransactions',
          'sandboxReset',
          'sandboxAdvanceClock',
        ])
          expect(cov.operations.exercised).toContain(op);
        expect(proxy.recorder.report().keysPinned).toEqual({ 1: v === 1 ? 2 : 0, 2: v === 2 ? 2 : 0 });
        // the third run was the keys' only client once the proxy started (ADR-087): its HAR judged so, nothing
        // either, though the sandbox's records, rule, endpoint and clock were left by runs it never saw
        const har = parseHar(Buffer.from(JSON.stringify(proxy.recorder.har())), 'lived-in.har');
        const judged = await judgeRecorded(har, { soleClient: true });
        expect(judged.findings.map((f) => `${f.kind} ${f.operation} ${f.jsonPath}: ${f.message}`)).toEqual([]);
        expect(judged.exchanges.length).toBe(proxy.recorder.report().judged);
      } finally {
        await proxy.close();
      }
    }, 300_000);
});

/**
 * Another client of the same keys beside the proxy, which the proxy never sees (a shared sandbox key,
 * a dashboard open beside the tests): it advances the clock the proxy last saw answered, resets it,
 * enables the endpoint a 410 disabled, deletes the merchant's data. Each step, on the assumption
 * that the judge followed the clock and saw every call, reads as a fault of the correct server: a
 * createdAt an hour ahead of the clock, an A1 token's lifetime from a clock an hour behind, an
 * endpoint enabled after a 410, a 404 for a transaction it saw made, lists without it, its
 * vendorReference taken again.
 */
describe('the proxy beside another client of the same keys', () => {
  for (const v of [1, 2] as const)
    it(`variant ${v}: the other client moves the clock both ways, enables the endpoint after a 410, deletes the data: 0 findings`, async () => {
      const key = pairs[v - 1]!.main;
      const routes = routeTable(v).byId;
      const gone = createServer((_req, res) => res.writeHead(410).end());
      const goneUrl = `http://127.0.0.1:${await listening(gone, 0, '127.0.0.1')}/hooks`;
      const proxy = await startLiveProxy({ upstream: server.baseUrl });
      /** `opId` with the merchant's key, through the proxy (`seen`) or straight to the server, answered `status` (else any 2xx); its JSON. */
      const call = async (
        seen: boolean,
        opId: string,
        body?: unknown,
        params: Record<string, string> = {},
        status?: number,
      ): Promise<Record<string, unknown>> => {
        const r = routes.get(opId)!;
        const path = r.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(params[name]!));
        const res = await fetch((seen ? proxy.url : server.baseUrl) + path, {
          method: r.method,
          headers: { [r.auth!.header]: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        if (status === undefined) expect(res.status, `${opId}: ${res.status}`).toBeLessThan(300);
        else expect(res.status, opId).toBe(status);
        return (await res.json()) as Record<string, unknown>;
      };
      try {
        await call(true, 'sandboxReset', {});
        await call(true, 'sandboxGetClock');
        // an hour ahead, unseen: a transaction made through the proxy is stamped an hour ahead of the clock it saw
        await call(false, 'sandboxAdvanceClock', { seconds: 3600 });
        const made = await call(true, 'createPartnerTransaction', createRequest(partnerRecord(Date.now())));
        await call(true, 'sandboxGetClock');
        // back to real time, unseen: a token's lifetime, and a transaction's instant, from a clock an hour behind the one it saw
        await call(false, 'sandboxReset', {});
        const item = { id: 'SKU-1', name: 'x', price: 600, quantity: 1 };
        await call(true, 'createSession', { total: v === 1 ? 600 : '600.00', currency: 'MAD', items: [item] });
        await call(true, 'createPartnerTransaction', createRequest(partnerRecord(Date.now())));
        // a 410 the proxy lists disables the endpoint; the other client enables it again
        await call(true, 'sandboxSetWebhookEndpoint', { url: goneUrl });
        await call(true, 'cancelPartnerTransactionByVendorReference', undefined, { vendorReference: String(made.vendorReference) });
        const deadline = Date.now() + 10_000;
        const listed410 = async () => {
          const list = await call(true, 'sandboxListWebhookDeliveries');
          return JSON.stringify(list.data).includes('"status":410');
        };
        while (!(await listed410())) {
          if (Date.now() > deadline) throw new Error('no 410 attempt listed within 10 s');
          await new Promise((r) => setTimeout(r, 100));
        }
        await call(false, 'sandboxSetWebhookEndpoint', { url: goneUrl });
        expect((await call(true, 'sandboxGetWebhookEndpoint')).enabled).toBe(true);
        // the merchant's data deleted, unseen: its transaction answered 404, the lists without it, its reference free again
        await call(false, 'sandboxReset', { deleteData: true });
        await call(true, 'getPartnerTransaction', undefined, { transactionId: String(made.id) }, 404);
        await call(true, 'sandboxListTransactions');
        await call(true, 'sandboxListSms');
        await call(true, 'createPartnerTransaction', {
          ...createRequest(partnerRecord(Date.now())),
          vendorReference: made.vendorReference,
        });
        proxy.recorder.sweep();
        expect(proxy.recorder.findings.map((f) => `${f.kind} ${f.operation} ${f.jsonPath}: ${f.message}`)).toEqual([]);
        expect(proxy.recorder.report().judged).toBeGreaterThanOrEqual(10);
      } finally {
        await call(false, 'sandboxReset', {}).catch(() => undefined);
        await proxy.close();
        gone.close();
      }
    }, 60_000);
});
