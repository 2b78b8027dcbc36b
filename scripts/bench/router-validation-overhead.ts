/**
 * Figure: B2 GET-by-id requests/s of the contract router (`createContractRouter` from
 * `paylater-contract/server`, its public options: request and response validation on, a constant
 * handler, anyone authenticated, no store) ÷ bare express answering the same JSON on the same
 * route (target ≥ 0.85, goal ≥ 1.0: a validated route can match bare express when the router
 * skips work the contract does not ask for). The JSON is a transaction the reference server
 * answers. Each server in a process of its own (./http-server.ts), alternating rounds after a
 * warm-up; each server's CPU µs per request beside its rps.
 */
import { cpuRatio, sample, sampleLine, spawnHttpServer, type HttpServer, type Sample } from './http-server.ts';
import { load, median, WARMUP_SECONDS, type Figure } from './tools.ts';

export const routerValidationOverhead: Figure = {
  id: 'router-validation-overhead',
  title: 'B2 GET rps, contract router (constant handler) ÷ bare express (goal 1.0)',
  target: '≥ 0.85',
  pass: (r) => r >= 0.85,
  async run(ctx) {
    const started: HttpServer[] = [];
    try {
      const reference = await spawnHttpServer('reference');
      await reference.stop();
      const router = await spawnHttpServer('router', reference.json);
      started.push(router);
      const bare = await spawnHttpServer('bare', reference.json);
      started.push(bare);
      const headers = reference.b2Headers;
      for (const s of started) await load({ url: s.base + s.b2Path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const samples = new Map<HttpServer, Sample[]>(started.map((s) => [s, []]));
      for (let round = 0; round < ctx.rounds; round++)
        for (const s of started) samples.get(s)!.push(await sample(s, false, headers, ctx.durationSeconds, ctx.connections));
      const rps = (s: HttpServer) => median(samples.get(s)!.map((x) => x.rps));
      return {
        ratio: rps(router) / rps(bare),
        detail: `medians of ${ctx.rounds} alternating rounds (rounds in brackets): ${sampleLine('contract router', samples.get(router)!)}; ${sampleLine('bare express', samples.get(bare)!)}; by CPU per request, bare express's ÷ the router's: ${cpuRatio(samples.get(router)!, samples.get(bare)!)}`,
      };
    } finally {
      for (const s of started) await s.stop();
    }
  },
};
