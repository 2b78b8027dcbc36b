/**
 * Figure: median wall time (s) of `paylater conform` as a user runs it (target < 10): the shipped
 * command (compiled, ./shipped.ts) in a process of its own, with its defaults (runs, request and
 * webhook timeouts, graces), the sandbox profile with webhooks checked (as docs/implementers.md
 * runs it), against `paylater serve --memory` in another process of its own: two Variant 1
 * merchants, the first one's webhook URL at the suite's receiver, `--no-auth-throttle` (serve's
 * help: for a sandbox that `paylater conform` checks). One run per seed of conformance-full-run,
 * each against a server of its own started before the clock starts; timed from the spawn of
 * `paylater conform` to its exit, so its start (loading its modules and the contract, compiling
 * validators) counts, as it does for a user. A run must end with exit 0 and 0 findings.
 *
 * Beside the median, where the time goes: each phase's median, read from the time each line the
 * command prints arrives (`PHASES`); the CPU time each process spent (/proc/<pid>/stat: the
 * suite's read every 20 ms until it exits, the server's once the suite has exited), to tell work
 * from waiting on these shared cores; the CPU model and the load average before and after.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../lib/free-port.ts';
import { ROOT } from '../lib/paths.ts';
import { SEEDS } from './conformance-detection.ts';
import { shippedBin } from './shipped.ts';
import { cpuModel, cpuMs, loadAverage, median, type Figure } from './tools.ts';

/** Each phase ends when the line matching it is printed; a phase runs from the previous one's end. */
export const PHASES: ReadonlyArray<[name: string, endsWith: RegExp]> = [
  ['start (modules, contract)', /^paylater conform: /],
  ['setup (keys, receiver)', /^webhook receiver on /],
  ['first look', /^coverage tour, first look passed/],
  ['probes', /^coverage tour probes passed/],
  ['tour', /^coverage tour passed/],
  ['scenarios', /^sandbox scenarios passed/],
  ['retry schedule', /^webhook retry schedule passed/],
  ['property', /^property passed/],
];
/** The last phase: from the random search's end to the process's exit (the sandbox reset, the summary, closing). */
const END = 'end (reset, summary, exit)';

const KEYS = { a: 'sk_test_cli_run_a_000000000000001', b: 'sk_test_cli_run_b_000000000000002' };
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** A process of `node args` and the time (ms since its spawn) each line it printed arrived. */
function run(args: string[]): { child: ReturnType<typeof spawn>; lines: Array<{ at: number; text: string }>; t0: number } {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<{ at: number; text: string }> = [];
  let partial = '';
  const take = (c: Buffer) => {
    const at = performance.now() - t0;
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop()!;
    for (const text of parts) lines.push({ at, text });
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return { child, lines, t0 };
}

/** `paylater serve --memory` with the two merchants, listening; stop() ends it. */
async function serve(bin: string, merchantsFile: string): Promise<{ baseUrl: string; pid: number | undefined; stop(): Promise<void> }> {
  const { child, lines } = run([bin, 'serve', '--memory', '--port', '0', '--merchants', merchantsFile, '--no-auth-throttle']);
  const exited = once(child, 'exit');
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = lines.map((l) => /listening on (http:\/\/\S+)/.exec(l.text)).find(Boolean);
      if (m) {
        clearInterval(t);
        resolve(m[1]!);
      }
    }, 20);
    void exited.then(() => {
      clearInterval(t);
      reject(new Error(`paylater serve exited: ${lines.map((l) => l.text).join('\n')}`));
    });
  });
  return {
    baseUrl,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** One timed `paylater conform` run: its wall time, its phases and its CPU time (ms). */
async function conform(
  bin: string,
  baseUrl: string,
  webhookPort: number,
  seed: number,
): Promise<{ ms: number; phases: Map<string, number>; cpuMs: number }> {
  const { child, lines, t0 } = run([
    bin,
    'conform',
    '--base-url',
    baseUrl,
    '--api-key',
    KEYS.a,
    '--other-api-key',
    KEYS.b,
    '--profile',
    'sandbox',
    '--webhook-port',
    String(webhookPort),
    '--webhook-secret',
    SECRET,
    '--seed',
    String(seed),
  ]);
  let cpu = 0;
  const sampler = setInterval(() => (cpu = cpuMs(child.pid) ?? cpu), 20);
  const [code] = (await once(child, 'exit')) as [number | null];
  const ms = performance.now() - t0;
  clearInterval(sampler);
  const text = lines.map((l) => l.text).join('\n');
  if (code !== 0 || !/; 0 finding\(s\)/.test(text)) throw new Error(`paylater conform --seed ${seed} exited ${code}:\n${text}`);
  const phases = new Map<string, number>();
  let from = 0;
  for (const [name, ends] of PHASES) {
    const at = lines.find((l) => ends.test(l.text))?.at;
    if (at === undefined) throw new Error(`paylater conform --seed ${seed} printed no line for the phase ${name}:\n${text}`);
    phases.set(name, at - from);
    from = at;
  }
  phases.set(END, ms - from);
  return { ms, phases, cpuMs: cpu };
}

export const conformanceCliRun: Figure = {
  id: 'conformance-cli-run',
  title: 'Conformance: paylater conform run from the command line (s)',
  target: '< 10',
  pass: (r) => r < 10,
  async run() {
    const bin = await shippedBin();
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-cli-run-'));
    const before = loadAverage();
    try {
      const runs: Array<{ ms: number; phases: Map<string, number>; cpuMs: number; serverCpuMs: number }> = [];
      for (const seed of SEEDS) {
        const webhookPort = await freePort();
        const merchantsFile = path.join(dir, `merchants-${seed}.json`);
        writeFileSync(
          merchantsFile,
          JSON.stringify([
            {
              name: 'CLI run A',
              storeName: 'CLI run A',
              apiKey: KEYS.a,
              variant: 1,
              webhookUrl: `http://127.0.0.1:${webhookPort}/hooks`,
              webhookSecret: SECRET,
            },
            { name: 'CLI run B', storeName: 'CLI run B', apiKey: KEYS.b, variant: 1 },
          ]),
        );
        const server = await serve(bin, merchantsFile);
        try {
          const cpu0 = cpuMs(server.pid) ?? 0;
          const r = await conform(bin, server.baseUrl, webhookPort, seed);
          runs.push({ ...r, serverCpuMs: (cpuMs(server.pid) ?? 0) - cpu0 });
        } finally {
          await server.stop();
        }
      }
      const s = (ms: number) => (ms / 1000).toFixed(1);
      const phases = [...PHASES.map(([name]) => name), END].map((name) => `${name} ${s(median(runs.map((r) => r.phases.get(name)!)))}`);
      return {
        ratio: median(runs.map((r) => r.ms)) / 1000,
        detail:
          `median of ${runs.length} seeds: ${runs.map((r) => s(r.ms)).join('/')} s (sandbox profile, webhooks checked, every other option its default)\n` +
          `  phases, medians (s): ${phases.join(', ')}\n` +
          `  CPU time, medians: paylater conform ${s(median(runs.map((r) => r.cpuMs)))} s, paylater serve ${s(median(runs.map((r) => r.serverCpuMs)))} s\n` +
          `  CPU ${cpuModel()}, load average before ${before}, after ${loadAverage()}`,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
