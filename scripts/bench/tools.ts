/**
 * What the figures of `npm run bench` share: the figure and context types, the load generator,
 * a clean-run check, medians, number formatting and the B1 request body.
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';

export { median } from '../../conformance/bench.ts';

export interface FigureResult {
  /** The ratio, or null when not measured. */
  ratio: number | null;
  /** Human-readable measurement line(s). */
  detail: string;
  /** Why it was not measured, when ratio is null. */
  reason?: string;
}

export interface Figure {
  id: string;
  title: string;
  /** e.g. '≥ 0.7', '≤ 2.0', 'report' */
  target: string;
  pass?: (ratio: number) => boolean;
  /**
   * The alternating rounds this figure runs when BENCH_ROUNDS does not say: a ratio of three
   * processes sharing two cores needs more rounds than the default for its medians to hold still.
   */
  rounds?: number;
  run(ctx: BenchContext): Promise<FigureResult>;
}

export interface BenchContext {
  durationSeconds: number;
  /** Alternating rounds per comparison (medians are reported). */
  rounds: number;
  connections: number;
  log: (line: string) => void;
  /** Shared between figures of one run (e.g. our B2 rps reused by the Prism figure). */
  shared: Map<string, unknown>;
}

/** The CPU's model name (/proc/cpuinfo), printed with a figure. */
export function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  } catch {
    return 'unknown CPU';
  }
}

/** CPU time (ms, user + system) a process has used so far, from /proc/<pid>/stat; null off Linux. */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // fields 14 and 15 of stat (utime, stime), in clock ticks of 10 ms
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/** The load averages (1, 5, 15 min), printed beside a figure: the machine may be shared. */
export const loadAverage = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Load before the measured rounds of a throughput figure, on each side. */
export const WARMUP_SECONDS = 3;

/** autocannon in a worker thread, so the load generator does not share the servers' event loop. */
export async function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ workers: 1, ...opts });
}

/** The store figures' load: connections of B1-sized creates (JSON POSTs) and, beside them, of reads. */
export const STORE_LOAD = { createConnections: 16, readConnections: 2 } as const;

/**
 * `STORE_LOAD` for `seconds`: creates POST `partnerBody` to `create.url` on 16 connections while
 * `read.url` is read on 2 more, at once; each side fails on an error, a non-2xx answer or a timeout.
 */
export async function createsBesideReads(
  create: { url: string; headers?: Record<string, string> },
  read: { url: string; headers?: Record<string, string> },
  seconds: number,
): Promise<{ creates: autocannon.Result; reads: autocannon.Result }> {
  const [creates, reads] = await Promise.all([
    load({
      url: create.url,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...create.headers },
      body: partnerBody,
      connections: STORE_LOAD.createConnections,
      duration: seconds,
    }),
    load({ url: read.url, headers: read.headers, connections: STORE_LOAD.readConnections, duration: seconds }),
  ]);
  checkClean('creates', creates);
  checkClean('reads', reads);
  return { creates, reads };
}

/** Fails a measurement that saw errors, non-2xx answers or timeouts. */
export function checkClean(name: string, r: autocannon.Result): void {
  if (r.errors > 0 || r.non2xx > 0 || r.timeouts > 0)
    throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
}

export const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The B1 body every figure creates transactions with. */
export const partnerBody = JSON.stringify({
  customerPhone: '212612345678',
  total: 1299.5,
  currency: 'MAD',
  items: [{ name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPrice: 1299.5, categoryId: 42 }],
});

/** Runs `fn` in a new folder under the system's temporary folder, removed afterwards whatever happens. */
export async function inTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The first line a bench server child prints that starts with `{"base"` (its start figures, JSON),
 * every other line of its stdout passed on to stderr; rejects with `what` when it exits first.
 */
export function startLineOf<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"base"')) resolve(JSON.parse(line) as T);
        else process.stderr.write(`${line}\n`);
      }
    });
    child.once('exit', (c) => reject(new Error(`${what} exited ${String(c)}`)));
  });
}
