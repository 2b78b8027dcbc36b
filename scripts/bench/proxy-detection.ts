/**
 * Figure: with the conformance suite as traffic, the share of the catalogue's API mutants (those
 * that fault an answer, not only a webhook) the suite finds that `paylater proxy --sole-client`
 * (no --variant, in front of the mutant, its webhook side between the mutant and the suite's
 * receiver; the suite is its keys' only client, ADR-087) reports too; target ≥ 0.9. The controls
 * (the plain server, members reordered) must give 0 findings. One seed per mutant; the suite stops
 * at its first finding, so the proxy sees the same traffic up to it. Beside it, the same traffic as
 * the proxy's `--har` wrote it (masked), judged offline by `paylater judge`'s function: its share,
 * which should be the proxy's, and the mutants where the two differ; and that HAR judged without
 * the sole-client assumption, the share a proxy that may not make it reports.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateMachine } from '../../generated/contract.ts';
import { freePort } from '../../lib/free-port.ts';
import { DEFAULT_RUNS } from '../../conformance/cli.ts';
import { controls } from '../../conformance/mutants/controls.ts';
import { mutants } from '../../conformance/mutants/catalog.ts';
import type { Mutant } from '../../conformance/mutants/proxy.ts';
import { startRelay, type MerchantSpec } from '../../conformance/mutants/selftest.ts';
import { runSuite } from '../../conformance/run.ts';
import { startTestServer } from '../../reference-server/testing.ts';
import { parseHar } from '../../recorded/har.ts';
import { judgeRecorded } from '../../judge/recorded.ts';
import { startLiveProxy } from '../../proxy/server.ts';
import type { Figure } from './tools.ts';

/** The catalogue's mutants that change an answer of the API (a webhook-only fault is not API traffic). */
export const apiMutants = (): Mutant[] => mutants.filter((m) => m.onRequest !== undefined || m.onResponse !== undefined);

/** Runs the suite through the proxy in front of each mutant: per mutant, whether the suite and the proxy found it. */
export async function proxyDetection(list: Mutant[], log: (l: string) => void = () => {}) {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const slots = await Promise.all(
    list.map(async (_, i) => ({
      main: `sk_test_pxd_main_${i}_${randomBytes(6).toString('hex')}`,
      other: `sk_test_pxd_other_${i}_${randomBytes(6).toString('hex')}`,
      relayPort: await freePort(),
    })),
  );
  const merchants: MerchantSpec[] = slots.flatMap((s, i) => [
    {
      name: `Mutant ${i}`,
      storeName: `Store ${i}`,
      apiKey: s.main,
      variant: list[i]!.variant ?? 1,
      webhookUrl: `http://127.0.0.1:${s.relayPort}/relay`,
      webhookSecret: secret,
    },
    { name: `Other ${i}`, storeName: `Other ${i}`, apiKey: s.other, variant: list[i]!.variant ?? 1 },
  ]);
  const server = await startTestServer({ merchants, mode: 'sandbox' });
  const harDir = process.env.PROXY_DETECTION_HAR_DIR;
  const out: { name: string; suite: boolean; proxy: boolean; har: boolean; withoutSoleClient: boolean; message: string }[] = [];
  try {
    for (const [i, m] of list.entries()) {
      const s = slots[i]!;
      // webhooks go server → relay (the mutant) → the proxy's webhook side → the suite's receiver,
      // so the proxy judges the events of the traffic as it judges its answers
      const receiverPort = await freePort();
      const hookPort = await freePort();
      const relay = await startRelay(s.relayPort, hookPort, m, server.baseUrl, s, secret);
      const proxy = await startLiveProxy({
        upstream: relay.url,
        // the suite is the keys' only client (ADR-087)
        soleClient: true,
        // every exchange in the HAR: the offline judge sees what the proxy saw
        keepExchanges: 1_000_000,
        webhooks: { port: hookPort, forwardTo: `http://127.0.0.1:${receiverPort}/hooks`, secret },
      });
      try {
        const r = await runSuite({
          baseUrl: proxy.url,
          apiKey: s.main,
          otherApiKey: s.other,
          variant: m.variant ?? 1,
          profile: m.profile,
          runs: DEFAULT_RUNS,
          seed: 1000 + i,
          paymentWindowSeconds: stateMachine.paymentWindow.defaultSeconds,
          webhookPort: receiverPort,
          webhookSecret: secret,
          webhookGraceMs: 60,
          webhookTimeoutMs: 1000,
          timeLimitMs: 30_000,
          bail: true,
        });
        const harText = JSON.stringify(proxy.recorder.har());
        // PROXY_DETECTION_HAR_DIR: each mutant's HAR kept there, to read what the proxy saw while developing a judge
        if (harDir) writeFileSync(join(harDir, `${m.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.har`), harText);
        const recorded = () => parseHar(Buffer.from(harText), `${m.name}.har`);
        const har = await judgeRecorded(recorded(), { soleClient: true });
        // and without the sole-client assumption: what a proxy that may not assume it reports
        const assumingNothing = await judgeRecorded(recorded());
        const row = {
          name: m.name,
          suite: r.findings.length > 0,
          proxy: proxy.recorder.findingCount > 0,
          har: har.findings.length > 0,
          withoutSoleClient: assumingNothing.findings.length > 0,
          message: proxy.recorder.findings[0]?.message ?? '',
        };
        out.push(row);
        log(
          `  ${m.name}: suite ${row.suite ? 'found' : 'missed'}${harDir && r.findings[0] ? ` (${r.findings[0].message.slice(0, 300)})` : ''}, proxy ${row.proxy ? `found (${row.message.slice(0, 120)})` : 'missed'}, its HAR ${row.har ? `found (${har.findings[0]!.message.slice(0, 120)})` : 'missed'}, without --sole-client ${row.withoutSoleClient ? 'found' : 'missed'}`,
        );
      } finally {
        await proxy.close();
        await relay.close();
      }
    }
  } finally {
    await server.close();
  }
  return out;
}

export const proxyDetectionFigure: Figure = {
  id: 'proxy-detection',
  title: 'Proxy (--sole-client): share of the API mutants the suite finds that the proxy reports (suite as traffic)',
  target: '≥ 0.9',
  pass: (r) => r >= 0.9,
  async run(ctx) {
    // PROXY_DETECTION_ONLY (a regular expression): only the mutants and controls whose name matches, while developing a judge
    const only = process.env.PROXY_DETECTION_ONLY ? new RegExp(process.env.PROXY_DETECTION_ONLY, 'i') : undefined;
    const rows = await proxyDetection(
      [...apiMutants(), ...controls.filter((c) => c.onWebhook === undefined || c.onResponse !== undefined)].filter(
        (m) => only === undefined || only.test(m.name),
      ),
      ctx.log,
    );
    const isControl = (n: string) => controls.some((c) => c.name === n);
    const dirty = rows.filter((r) => isControl(r.name) && (r.proxy || r.har || r.withoutSoleClient));
    if (dirty.length) throw new Error(`proxy or HAR findings on a control: ${dirty.map((r) => `${r.name}: ${r.message}`).join('; ')}`);
    const found = rows.filter((r) => !isControl(r.name) && r.suite);
    const both = found.filter((r) => r.proxy);
    const har = found.filter((r) => r.har);
    const without = found.filter((r) => r.withoutSoleClient);
    const apart = found.filter((r) => r.har !== r.proxy).map((r) => `${r.name} (${r.proxy ? 'proxy only' : 'HAR only'})`);
    return {
      ratio: found.length ? both.length / found.length : null,
      detail: `${both.length} of ${found.length} mutants the suite finds reported by the proxy; its HAR judged offline: ${har.length} of ${found.length} (${(har.length / Math.max(1, found.length)).toFixed(2)}); without --sole-client (the HAR judged so): ${without.length} of ${found.length} (${(without.length / Math.max(1, found.length)).toFixed(2)})${apart.length ? `; apart: ${apart.join(', ')}` : ', the same mutants'}; controls clean`,
      reason: found.length ? undefined : 'no mutant found by the suite',
    };
  },
};
