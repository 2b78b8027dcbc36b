/**
 * Figure: the conformance suite's requests/s (core profile) ÷ a plain loop sending the same
 * requests without checks (target ≥ 0.7). Two fresh servers with the same merchants per round: the
 * suite runs against the first, the loop replays its requests against the second
 * (`measureConformanceThroughput` in conformance/bench.ts says how the replay is kept fair).
 */
import { measureConformanceThroughput } from '../../conformance/bench.ts';
import { startTestServer, type TestServer } from '../../reference-server/testing.ts';
import { fmt, median, type Figure } from './tools.ts';

export const conformanceThroughput: Figure = {
  id: 'conformance-throughput',
  title: 'Conformance suite rps ÷ the same requests in a plain loop (core)',
  target: '≥ 0.7',
  pass: (r) => r >= 0.7,
  async run(ctx) {
    const merchants = [
      { name: 'Bench A', storeName: 'Bench A', apiKey: 'sk_test_conf_bench_main_0001', variant: 1 as const },
      { name: 'Bench B', storeName: 'Bench B', apiKey: 'sk_test_conf_bench_other_0001', variant: 1 as const },
    ];
    const ratios: number[] = [];
    const lines: string[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      const a = await startTestServer({ merchants, webhookDispatcherFactory: null });
      const b = await startTestServer({ merchants, webhookDispatcherFactory: null });
      try {
        const k = (s: TestServer) => ({ baseUrl: s.baseUrl, apiKey: merchants[0]!.apiKey, otherApiKey: merchants[1]!.apiKey });
        const r = await measureConformanceThroughput(k(a), k(b), {
          variant: 1,
          profile: 'core',
          runs: 30,
          seed: 100 + round,
          maxCommands: 25,
        });
        if (r.findings) throw new Error(`the suite reported ${r.findings} finding(s) against the reference server`);
        ratios.push(r.ratio);
        lines.push(
          `suite ${fmt(r.suiteRequestsPerSecond)} req/s, ${fmt(r.commandsPerSecond)} commands/s (${r.suiteCommands} commands, ${r.suiteRequests} requests; its pauses, taken out: ${fmt(r.suitePausedMs)} ms) vs loop ${fmt(r.loopRequestsPerSecond)} req/s, ${r.sameStatus}/${r.suiteRequests} same status`,
        );
      } finally {
        await a.close();
        await b.close();
      }
    }
    return {
      ratio: median(ratios),
      detail: `median of ${ctx.rounds} rounds (${ratios.map((x) => x.toFixed(2)).join('/')}); ${lines.join('; ')}`,
    };
  },
};
