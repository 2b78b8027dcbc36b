/**
 * Figure: B2 GET-by-id requests/s through `paylater proxy` ÷ straight to the reference server, in
 * the same run (target ≥ 0.8). The proxy runs as the installed command does (compiled, ./shipped.ts), in a process of its own, judging
 * every answer (the suite's response judge, the state tracker, the exchange ring); the server runs
 * in this process, autocannon in a worker thread. Alternating rounds after a warm-up on both paths;
 * the CPU model (/proc/cpuinfo) and the load average before and after are printed with the figure,
 * since the machine may be shared. The proxy must end with 0 findings (its report is read at the end).
 * Beside it, in the same rounds, the floor: the same engine forwarding the same way but judging nothing
 * (spawnFloor), its ratio and its CPU µs per request, so the detail shows what the second hop costs
 * and what judging adds.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib/paths.ts';
import { JS_DIST_DIR } from '../build.ts';
import { shipped, shippedBin } from './shipped.ts';
import { checkClean, cpuModel, cpuMs, fmt, load, loadAverage, median, partnerBody, WARMUP_SECONDS, type Figure } from './tools.ts';

/** A child process that prints `paylater proxy: URL ->` once it listens; stop() ends it with SIGTERM and gives its exit code. */
async function spawnListening(args: string[]): Promise<{ url: string; pid: number | undefined; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /paylater proxy: (http:\/\/127\.0\.0\.1:\d+) ->/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(m[1]!);
      }
    }, 50);
    child.once('exit', () => {
      clearInterval(t);
      reject(new Error(`the proxy process exited: ${out}`));
    });
  });
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** `paylater proxy` as installed (./shipped.ts), run by node itself, so the signal reaches the proxy directly. */
async function spawnProxy(upstream: string, variant: 1 | 2): ReturnType<typeof spawnListening> {
  return spawnListening([await shippedBin(), 'proxy', '--upstream', upstream, '--variant', String(variant), '--port', '0', '--quiet']);
}

/**
 * The floor: the same shipped proxy engine (`startLiveProxy` of dist/js/proxy/server.js, every module
 * of the command loaded, the same forward.ts path) in a process of its own, started with the internal
 * `judge: false`: it forwards each exchange as the proxy does and judges nothing. Its ratio is what the
 * second HTTP hop alone costs on this machine; the gap to the proxy's is what judging costs.
 */
async function spawnFloor(upstream: string, variant: 1 | 2): ReturnType<typeof spawnListening> {
  const server = pathToFileURL(path.join(JS_DIST_DIR, 'proxy', 'server.js')).href;
  await shippedBin();
  const script = `
    const { startLiveProxy } = await import(${JSON.stringify(server)});
    const p = await startLiveProxy({ upstream: ${JSON.stringify(upstream)}, variant: ${variant}, judge: false });
    process.stdout.write('paylater proxy: ' + p.url + ' -> (floor, judging nothing)\\n');
    process.once('SIGTERM', () => p.close().then(() => process.exit(0)));
  `;
  return spawnListening(['--input-type=module', '-e', script]);
}

export const proxyOverhead: Figure = {
  id: 'proxy-overhead',
  title: 'B2 GET rps through paylater proxy ÷ direct, same run',
  target: '≥ 0.8',
  pass: (r) => r >= 0.8,
  async run(ctx) {
    const { startTestServer } = await shipped<typeof import('../../reference-server/testing.ts')>('reference-server/testing.ts');
    const s = await startTestServer({ webhookDispatcherFactory: null });
    const m = s.merchants[0]!;
    const proxy = await spawnProxy(s.baseUrl, m.variant);
    const floor = await spawnFloor(s.baseUrl, m.variant).catch(async (e: unknown) => {
      await proxy.stop();
      throw e;
    });
    const before = loadAverage();
    try {
      const r = await fetch(`${proxy.url}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-Key': m.apiKey },
        body: partnerBody,
      });
      if (r.status !== 201) throw new Error(`create failed: ${r.status} ${await r.text()}`);
      const { id } = (await r.json()) as { id: string };
      const p = `/api/v1/public/partner/transactions/${id}`;
      const headers = { 'X-Api-Key': m.apiKey };
      /** Requests/s of a round on one path, and the CPU its proxy process used meanwhile (null: the path has none, or off Linux). */
      const measure = async (base: string, name: string, pid?: number): Promise<{ rps: number; total: number; cpuMs: number | null }> => {
        const cpu0 = pid === undefined ? null : cpuMs(pid);
        const res = await load({ url: base + p, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        const cpu1 = pid === undefined ? null : cpuMs(pid);
        checkClean(name, res);
        return { rps: res.requests.average, total: res.requests.total, cpuMs: cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null };
      };
      for (const base of [s.baseUrl, proxy.url, floor.url])
        await load({ url: base + p, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const direct: number[] = [];
      const through: number[] = [];
      const bare: number[] = [];
      const cpu = { proxy: { ms: 0, n: 0 }, floor: { ms: 0, n: 0 } };
      const count = (into: { ms: number; n: number }, r: { total: number; cpuMs: number | null }): void => {
        if (r.cpuMs === null) return;
        into.ms += r.cpuMs;
        into.n += r.total;
      };
      for (let round = 0; round < ctx.rounds; round++) {
        direct.push((await measure(s.baseUrl, 'direct B2')).rps);
        const t = await measure(proxy.url, 'B2 through the proxy', proxy.pid);
        through.push(t.rps);
        count(cpu.proxy, t);
        const f = await measure(floor.url, 'B2 through the floor forwarder', floor.pid);
        bare.push(f.rps);
        count(cpu.floor, f);
      }
      const report = (await (await fetch(`${proxy.url}/_paylater/report`)).json()) as {
        findings: number;
        requests: number;
        findingList: { kind: string; message: string }[];
      };
      if (report.findings)
        throw new Error(
          `the proxy reported ${report.findings} finding(s) on clean traffic, the first: ${report.findingList[0]?.kind}: ${report.findingList[0]?.message}`,
        );
      const t = median(through);
      const d = median(direct);
      const f = median(bare);
      const perRequest = (c: { ms: number; n: number }): string => (c.n ? `${fmt((c.ms * 1000) / c.n)} µs per request` : 'not read');
      const rounds = (xs: number[]): string => xs.map((x) => fmt(x)).join('/');
      return {
        ratio: t / d,
        detail:
          `through the proxy ${fmt(t)} req/s vs direct ${fmt(d)} req/s (medians of ${ctx.rounds} alternating rounds: ${rounds(through)} vs ${rounds(direct)}); ` +
          `${fmt(report.requests)} requests judged, 0 findings; the proxy's CPU: ${perRequest(cpu.proxy)}; ` +
          `floor (the same forwarding, judging nothing, same rounds): ${fmt(f)} req/s (${rounds(bare)}), ratio ${(f / d).toFixed(2)}, its CPU ${perRequest(cpu.floor)}; ` +
          `CPU ${cpuModel()}, load average ${before} before, ${loadAverage()} after`,
      };
    } finally {
      await floor.stop();
      await proxy.stop();
      await s.close();
    }
  },
};
