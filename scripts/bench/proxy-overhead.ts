/**
 * Figure: B2 GET-by-id requests/s through `paylater proxy` ÷ straight to the reference server, in
 * the same run (target ≥ 0.8). The proxy runs as the installed command does (compiled, ./shipped.ts), in a process of its own, judging
 * every answer (the suite's response judge, the state tracker, the exchange ring); the server runs
 * in this process, autocannon in a worker thread. Alternating rounds after a warm-up on both paths;
 * the CPU model (/proc/cpuinfo) and the load average before and after are printed with the figure,
 * since the machine may be shared. The proxy must end with 0 findings (its report is read at the end).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ROOT } from '../lib/paths.ts';
import { shipped, shippedBin } from './shipped.ts';
import { checkClean, fmt, load, median, partnerBody, WARMUP_SECONDS, type Figure } from './tools.ts';

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  } catch {
    return 'unknown CPU';
  }
}

/** CPU time (ms, user + system) a process has used so far, from /proc/<pid>/stat; null off Linux. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

const load1 = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** `paylater proxy` in a child process, on a free port; stop() ends it with SIGTERM and gives its exit code. */
async function spawnProxy(
  upstream: string,
  variant: 1 | 2,
): Promise<{ url: string; pid: number | undefined; stop(): Promise<number | null> }> {
  // the command as installed (./shipped.ts), run by node itself, so the signal reaches the proxy directly
  const child = spawn(
    process.execPath,
    [await shippedBin(), 'proxy', '--upstream', upstream, '--variant', String(variant), '--port', '0', '--quiet'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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
      reject(new Error(`paylater proxy exited: ${out}`));
    });
  });
  return {
    url,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
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
    const before = load1();
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
      await load({ url: s.baseUrl + p, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      await load({ url: proxy.url + p, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const direct: number[] = [];
      const through: number[] = [];
      let proxyCpuMs = 0;
      let proxied = 0;
      for (let round = 0; round < ctx.rounds; round++) {
        const d = await load({ url: s.baseUrl + p, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('direct B2', d);
        const cpu0 = cpuMs(proxy.pid);
        const t = await load({ url: proxy.url + p, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        const cpu1 = cpuMs(proxy.pid);
        if (cpu0 !== null && cpu1 !== null) {
          proxyCpuMs += cpu1 - cpu0;
          proxied += t.requests.total;
        }
        checkClean('B2 through the proxy', t);
        direct.push(d.requests.average);
        through.push(t.requests.average);
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
      return {
        ratio: t / d,
        detail: `through the proxy ${fmt(t)} req/s vs direct ${fmt(d)} req/s (medians of ${ctx.rounds} alternating rounds: ${through.map((x) => fmt(x)).join('/')} vs ${direct.map((x) => fmt(x)).join('/')}); ${fmt(report.requests)} requests judged, 0 findings; the proxy's CPU: ${proxied ? `${fmt((proxyCpuMs * 1000) / proxied)} µs per request` : 'not read'}; CPU ${cpuModel()}, load average ${before} before, ${load1()} after`,
      };
    } finally {
      await proxy.stop();
      await s.close();
    }
  },
};
