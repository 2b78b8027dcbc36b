/**
 * Catalogue mutants (conformance/mutants/) behind the proxy, the harness of mutants-*.test.ts: the
 * suite drives the reference server through `paylater proxy` → the mutant's faulty proxy → the
 * server; the proxy must report each fault by the kind of finding that names it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { runConformance } from '../../conformance/index.ts';
import { mutants } from '../../conformance/mutants/catalog.ts';
import { startProxy } from '../../conformance/mutants/proxy.ts';
import type { MerchantSpec } from '../../conformance/mutants/selftest.ts';
import { freePort } from '../../lib/free-port.ts';
import { startLiveProxy } from '../server.ts';
import { sleep, startRelay } from './relay.ts';

/**
 * Registers one test per [mutant name, kind of proxy finding that must name it]: one kind, or the
 * kinds any of which names it when which one the proxy can show depends on the order the
 * exchanges and events reached it in.
 */
export function describeMutantsBehindProxy(CASES: [string, string | string[]][]): void {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  let server: TestServer;
  const slots: { main: string; other: string; relayPort: number; hookPort: number }[] = [];

  beforeAll(async () => {
    const merchants: MerchantSpec[] = [];
    for (let i = 0; i < CASES.length; i++) {
      const s = {
        main: `sk_test_pxm_main_${i}_${randomBytes(6).toString('hex')}`,
        other: `sk_test_pxm_other_${i}_${randomBytes(6).toString('hex')}`,
        relayPort: await freePort(),
        hookPort: await freePort(),
      };
      slots.push(s);
      merchants.push({
        name: `Mutant ${i}`,
        storeName: `Store ${i}`,
        apiKey: s.main,
        variant: 1,
        webhookUrl: `http://127.0.0.1:${s.relayPort}/relay`,
        webhookSecret: secret,
      });
      merchants.push({ name: `Other ${i}`, storeName: `Other ${i}`, apiKey: s.other, variant: 1 });
    }
    server = await startTestServer({ merchants, mode: 'sandbox' });
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('mutants behind the proxy', () => {
    for (const [i, [name, accepted]] of CASES.entries()) {
      const kinds = [accepted].flat();
      it(`${name} → a ${kinds.join(' or ')} finding`, async () => {
        const mutant = mutants.find((m) => m.name === name);
        if (!mutant) throw new Error(`no mutant named ${name}`);
        const s = slots[i]!;
        const receiverPort = await freePort();
        // server → relay (the merchant's webhook URL) → the mutant → the proxy's webhook side → the suite's receiver
        const faulty = await startProxy({
          upstream: server.baseUrl,
          mutant,
          keys: { main: s.main, other: s.other },
          webhookTarget: `http://127.0.0.1:${s.hookPort}/hooks`,
          secret,
        });
        const relay = await startRelay(s.relayPort, () => faulty.webhookUrl);
        const proxy = await startLiveProxy({
          upstream: faulty.url,
          // the suite is the keys' only client: a test run through the proxy (ADR-087)
          soleClient: true,
          webhooks: { port: s.hookPort, forwardTo: `http://127.0.0.1:${receiverPort}/hooks`, secret, windowMs: 1500 },
        });
        try {
          const r = await runConformance({
            baseUrl: proxy.url,
            apiKey: s.main,
            otherApiKey: s.other,
            variant: 1,
            profile: mutant.profile,
            runs: 10,
            seed: 4000 + i,
            maxCommands: 15,
            webhooks: { port: receiverPort, secret },
            // The proxy judges a merchant's missing events only once one of its events was seen
            // to reach it (docs/traffic.md): a run stopped at its first finding may stop before any did.
            bail: !kinds.includes('webhook-missing'),
            timeLimitMs: 20_000,
          });
          await sleep(1700);
          proxy.recorder.sweep();
          const f = proxy.recorder.findings.find((x) => kinds.includes(x.kind));
          expect(
            f?.kind,
            `suite: ${r.findings[0]?.message ?? 'nothing'}; proxy: ${proxy.recorder.findings.map((x) => x.message).join(' | ')}`,
          ).toBeDefined();
          // each finding carries a runnable curl script of its exchanges, keys masked
          if (f!.kind !== 'webhook-missing') expect(f!.curl).toMatch(/^#!\/usr\/bin\/env bash\n/);
          expect(f!.curl).not.toContain(s.main);
          expect(f!.curl).not.toContain(s.other);
        } finally {
          await proxy.close();
          await relay.close();
          await faulty.close();
        }
        // The run is bounded (timeLimitMs) but its setup and phases are not; full runs took up to
        // 41 s here on 2 loaded cores, so the limit catches a hang, not a slow machine.
      }, 120_000);
    }
  });
}
