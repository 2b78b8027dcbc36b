/** Mutation self-test: every injected fault is reported by the suite with its default number of runs. */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { DEFAULT_RUNS } from '../cli.ts';
import { runSuite } from '../run.ts';
import { mutants } from './catalog.ts';
import { startProxy } from './proxy.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: TestServer;
const proxyPorts: number[] = [];
const receiverPorts: number[] = [];
const keys: { main: string; other: string }[] = [];
const timings: string[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

beforeAll(async () => {
  const merchants = [];
  for (let i = 0; i < mutants.length; i++) {
    receiverPorts.push(await freePort());
    proxyPorts.push(0);
    keys.push({ main: `sk_test_mut_main_${i}_${randomBytes(6).toString('hex')}`, other: `sk_test_mut_other_${i}_${randomBytes(6).toString('hex')}` });
    // the relay address is only known once the proxy runs: the server posts to a fixed relay port
    merchants.push({ name: `Mutant ${i}`, storeName: `Store ${i}`, apiKey: keys[i]!.main, variant: 1 as const, webhookUrl: `http://127.0.0.1:${receiverPorts[i]! + 0}/relay`, webhookSecret: secret });
    merchants.push({ name: `Other ${i}`, storeName: `Other ${i}`, apiKey: keys[i]!.other, variant: 1 as const });
  }
  server = await startTestServer({ merchants, mode: 'sandbox' });
});
afterAll(async () => {
  await server?.close();
  console.log(`mutants (runs ${DEFAULT_RUNS}):\n${timings.join('\n')}`);
});

describe('mutation self-test', () => {
  it('has at least 15 mutants', () => expect(mutants.length).toBeGreaterThanOrEqual(15));
  mutants.forEach((mutant, i) => {
    it(`finds: ${mutant.name}`, async () => {
      // The merchant's webhook URL is the relay port: the proxy's webhook relay listens there and
      // forwards (mutated) deliveries to the suite's receiver on another port.
      const receiverPort = await freePort();
      const relay = await startRelay(receiverPorts[i]!, receiverPort, mutant, server.baseUrl, keys[i]!);
      try {
        const r = await runSuite({ baseUrl: relay.url, apiKey: keys[i]!.main, otherApiKey: keys[i]!.other, variant: 1, profile: mutant.profile === 'sandbox' ? 'sandbox' : 'core', runs: DEFAULT_RUNS, seed: 1000 + i, paymentWindowSeconds: 1800, webhookPort: receiverPort, webhookSecret: secret, webhookGraceMs: 60 });
        const f = r.findings[0];
        timings.push(`  ${mutant.name}: ${r.findings.length} finding(s), first after ${((r.firstFindingMs ?? NaN) / 1000).toFixed(2)} s, shrunk sequence ${f?.commands.length ?? '-'} commands (${f?.phase}): ${f?.message.slice(0, 140)}`);
        expect(r.findings.length).toBeGreaterThan(0);
      } finally {
        await relay.close();
      }
    }, 60_000);
  });
});

/** The proxy serves both the API (random port) and the webhook relay (the merchant's configured port). */
async function startRelay(relayPort: number, receiverPort: number, mutant: (typeof mutants)[number], upstream: string, k: { main: string; other: string }) {
  const proxy = await startProxy({ upstream, mutant, keys: k, webhookTarget: `http://127.0.0.1:${receiverPort}/hooks`, secret });
  const { createServer: http } = await import('node:http');
  const relay = http((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void fetch(proxy.webhookUrl, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }).catch(() => undefined);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => relay.listen(relayPort, '127.0.0.1', () => r()));
  return {
    url: proxy.url,
    close: async () => {
      relay.closeAllConnections();
      await new Promise<void>((r) => relay.close(() => r()));
      await proxy.close();
    },
  };
}
void proxyPorts;
