/**
 * Figure: B2 GET-by-id requests/s of the reference server (store, authentication, API log, full
 * request + response validation) ÷ bare express serving the same JSON on the same route (target
 * ≥ 0.6, goal 0.7). Each server in a process of its own (./http-server.ts); alternating rounds
 * after a warm-up on both sides; the median rps of the server is shared as `oursB2Rps`.
 *
 * Beside it, in the same rounds: B1 creates (the bench's create body) on the reference server and
 * the same POST on bare express (`express.json()` reads the body, the same JSON answered), and each
 * server's CPU µs per request for B2 and B1 (`process.cpuUsage` in the server's process, over the
 * round): steadier than requests/s on shared cores.
 */
import { cpuRatio, sample, sampleLine, spawnHttpServer, type HttpServer, type Sample } from './http-server.ts';
import { load, median, WARMUP_SECONDS, type Figure } from './tools.ts';

export const b2ValidationOverhead: Figure = {
  id: 'b2-validation-overhead',
  title: 'B2 GET rps, reference server ÷ bare express, same JSON (goal 0.7)',
  target: '≥ 0.6',
  pass: (r) => r >= 0.6,
  async run(ctx) {
    const started: HttpServer[] = [];
    try {
      const ours = await spawnHttpServer('reference');
      started.push(ours);
      const bare = await spawnHttpServer('bare', ours.json);
      started.push(bare);
      const { b1Headers, b2Headers } = ours;
      const sides = [ours, bare];
      // Warm-up, both sides alike: steady state is measured, not the JIT's first seconds.
      for (const s of sides) {
        await load({ url: s.base + s.b2Path, headers: b2Headers, connections: ctx.connections, duration: WARMUP_SECONDS });
        await sample(s, true, b1Headers, 1, ctx.connections);
      }
      const b2 = new Map<HttpServer, Sample[]>(sides.map((s) => [s, []]));
      const b1 = new Map<HttpServer, Sample[]>(sides.map((s) => [s, []]));
      for (let round = 0; round < ctx.rounds; round++) {
        for (const s of sides) b2.get(s)!.push(await sample(s, false, b2Headers, ctx.durationSeconds, ctx.connections));
        for (const s of sides) b1.get(s)!.push(await sample(s, true, b1Headers, ctx.durationSeconds, ctx.connections));
      }
      const rps = (xs: Sample[]) => median(xs.map((x) => x.rps));
      ctx.shared.set('oursB2Rps', rps(b2.get(ours)!));
      return {
        ratio: rps(b2.get(ours)!) / rps(b2.get(bare)!),
        detail: [
          `B2, medians of ${ctx.rounds} alternating rounds (rounds in brackets): ${sampleLine('reference server', b2.get(ours)!)}; ${sampleLine('bare express', b2.get(bare)!)}; by CPU per request, bare express's ÷ the server's: ${cpuRatio(b2.get(ours)!, b2.get(bare)!)}`,
          `B1 creates, same rounds: ${sampleLine('reference server', b1.get(ours)!)}; ${sampleLine('bare express (express.json(), the same JSON answered)', b1.get(bare)!)}; ratio ${(rps(b1.get(ours)!) / rps(b1.get(bare)!)).toFixed(2)}, by CPU per request ${cpuRatio(b1.get(ours)!, b1.get(bare)!)}`,
        ].join('\n  '),
      };
    } finally {
      for (const s of started) await s.stop();
    }
  },
};
