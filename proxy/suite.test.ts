/**
 * The conformance suite drives the reference server through `paylater proxy`: the suite finds
 * nothing, the proxy finds nothing, and the proxy's coverage shows what the suite exercised
 * (operations, transitions, events), live at GET /_paylater/report. One proxy, with no --variant,
 * serves both variants' merchants: each key's variant is learned from its answers (ADR-070).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { merchantPair, type MerchantPair } from '../conformance/merchant-pairs.ts';
import { runConformance } from '../conformance/index.ts';
import { freePort } from '../lib/free-port.ts';
import { REPORT_PATH, startLiveProxy, type LiveProxy } from './server.ts';
import { sleep } from './test-support/relay.ts';
import type { JudgeCoverage as ProxyCoverage } from '../judge/exchange.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: TestServer;
let v1: MerchantPair;
let v2: MerchantPair;
let hookPort: number;
let proxy: LiveProxy;

beforeAll(async () => {
  hookPort = await freePort();
  const a = await merchantPair('pxs', 0, 1, secret);
  const b = await merchantPair('pxs', 1, 2, secret);
  v1 = a.pair;
  v2 = b.pair;
  // the v1 merchant's webhooks go to the proxy's webhook side, which forwards them to the suite's receiver
  a.merchants[0]!.webhookUrl = `http://127.0.0.1:${hookPort}/hooks`;
  server = await startTestServer({ merchants: [...a.merchants, ...b.merchants], mode: 'sandbox' });
  proxy = await startLiveProxy({
    upstream: server.baseUrl,
    webhooks: { port: hookPort, forwardTo: `http://127.0.0.1:${v1.port}/hooks`, secret, windowMs: 2000 },
  });
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

describe('the suite through the proxy', () => {
  it('variant 1, sandbox profile, webhooks through the proxy: 0 suite findings, 0 proxy findings, every transition and event covered', async () => {
    const r = await runConformance({
      baseUrl: proxy.url,
      apiKey: v1.main,
      otherApiKey: v1.other,
      variant: 1,
      profile: 'sandbox',
      runs: 5,
      seed: 3001,
      maxCommands: 15,
      webhooks: { port: v1.port, secret },
    });
    expect(r.findings.map((f) => f.message)).toEqual([]);
    await sleep(2200); // past the delivery window: an event still missing would now be a finding
    const live = (await (await fetch(proxy.url + REPORT_PATH)).json()) as {
      findings: number;
      findingList: { message: string }[];
      requests: number;
      coverage: ProxyCoverage;
      exitCode: number;
    };
    expect(live.findingList.map((f) => f.message)).toEqual([]);
    expect(live.findings).toBe(0);
    expect(live.exitCode).toBe(0);
    expect(live.requests).toBeGreaterThanOrEqual(r.requests);
    // the transitions the suite exercised, the proxy saw
    expect(live.coverage.transitions.missing).toEqual([]);
    for (const t of r.coverage.transitions.exercised) expect(live.coverage.transitions.exercised).toContain(t);
    expect(live.coverage.events.exercised.sort()).toEqual(['transaction.approved', 'transaction.cancelled', 'transaction.expired']);
    for (const op of [
      'createSession',
      'createPartnerTransaction',
      'getPartnerTransaction',
      'getPartnerTransactionByVendorReference',
      'cancelPartnerTransactionByVendorReference',
      'verifyTransaction',
      'sandboxPaySession',
    ])
      expect(live.coverage.operations.exercised).toContain(op);
    // every code the suite exercised, the proxy counted
    for (const c of r.coverage.codes.exercised) expect(live.coverage.codes.exercised).toContain(c);
    // nothing in clear: no key, no webhook secret in the report
    const text = JSON.stringify(proxy.recorder.report()) + JSON.stringify(proxy.recorder.har());
    for (const k of [v1.main, v1.other, secret, secret.slice(6)]) expect(text).not.toContain(k);
  }, 110_000);

  it('variant 2, sandbox then core profile, through the same proxy: 0 findings, the public operations covered, keys of both variants pinned', async () => {
    for (const profile of ['sandbox', 'core'] as const) {
      const r = await runConformance({
        baseUrl: proxy.url,
        apiKey: v2.main,
        otherApiKey: v2.other,
        variant: 2,
        profile,
        runs: 5,
        seed: 3002,
        maxCommands: 15,
        webhooks: { port: v2.port, secret },
      });
      expect(r.findings.map((f) => f.message)).toEqual([]);
    }
    const rep = proxy.recorder.report() as {
      findingList: { message: string }[];
      coverage: ProxyCoverage;
      keysPinned: Record<string, number>;
    };
    expect(rep.keysPinned[1]).toBeGreaterThanOrEqual(1);
    expect(rep.keysPinned[2]).toBeGreaterThanOrEqual(1);
    expect(rep.findingList.map((f) => f.message)).toEqual([]);
    expect(rep.coverage.operations.exercised).toEqual(
      expect.arrayContaining([
        'createSession',
        'getTransactionStatusBySessionToken',
        'createPartnerTransaction',
        'getPartnerTransaction',
        'getPartnerTransactionByVendorReference',
        'cancelPartnerTransactionByVendorReference',
      ]),
    );
  }, 150_000);
});
