/**
 * `npm run bench`: the speed figures, measured side by side in one run on 127.0.0.1 (autocannon
 * in a worker thread for the HTTP figures, a bounded time each), each printed with its ratio and
 * target. One file per figure in this folder:
 *
 *   1. b2-validation-overhead: B2 GET-by-id requests/s of the reference server (store, auth,
 *      logs, full request + response validation) ÷ a bare express app serving the same JSON
 *      (target ≥ 0.6, goal 0.7); beside it B1 creates, and each server's CPU µs per B2 and per B1
 *      request (`process.cpuUsage` in its own process).
 *   2. store-200k-latency: the embedded store (SQLite) with 200,000 stored transactions: create
 *      p99 at 200,000 ÷ on an empty store (B1 creates on 16 connections, B2 reads beside them;
 *      ≤ 1.2), resident memory growth over 200,000 creates (≤ 64 MiB), the start on the 200,000
 *      file (≤ 1 s), and B1 creates/s; each server in a process of its own. The worst request is
 *      printed, no longer a target: the disk and the shared cores set it.
 *   3. b2-vs-prism: B2 requests/s ÷ Prism 5.14's mock server on the same bundled document
 *      (reported).
 *   4. conformance-throughput: the conformance suite's requests/s ÷ the same requests replayed by
 *      a plain loop without checks (target ≥ 0.7).
 *   5. conformance-first-finding: the conformance suite's median time to its first finding over
 *      the mutants, in seconds (reported).
 *   6. conformance-detection: per mutant, the share of 5 seeds on which the suite finds it with
 *      its default settings (lowest share; target 1.0), controls clean.
 *   7. conformance-full-run: median time of a full sandbox-profile run against the reference
 *      server, in seconds (target < 10).
 *   8. conformance-cli-run: the same run as a user gets it, in seconds: the shipped `paylater
 *      conform` in a process of its own, its defaults, against `paylater serve` in another; its
 *      phases beside it (target < 10).
 *   9. pg-b1-creates: B1 creates/s of a server on PostgreSQL (a throwaway cluster on this
 *      machine) ÷ on the SQLite store (target ≥ 0.5).
 *  10. pg-two-instances: B1 creates/s of two `paylater serve` processes on one PostgreSQL
 *      database behind a round-robin proxy ÷ one behind it (reported).
 *  11. pg-rss-100k: an instance's resident memory growth while its database grows from 0 to
 *      100,000 transactions, in MB (target < 50).
 *  12. proxy-overhead: B2 GET-by-id requests/s through `paylater proxy` (its own process, judging
 *      every answer) ÷ straight to the server, same run, 7 alternating rounds (target ≥ 0.8).
 *  13. proxy-detection: the share of the conformance catalogue's API mutants that the suite finds
 *      which `paylater proxy` (no --variant) also reports with the suite as its traffic (target
 *      ≥ 0.9), the controls giving no proxy finding; beside it, the share `paylater judge` reports
 *      judging the proxy's HAR of the same traffic offline (to equal the proxy's).
 *  14. disk-sync-floor: the disk's own worst `fdatasync` of a small append, nothing else running,
 *      in ms: the floor under figure 2's worst request, each answered write waiting for one (reported).
 *  15. store-http-floor: the worst request of a bare `node:http` + `node:sqlite` server (one
 *      synced commit per create) under figure 2's load, in ms: that figure's floor once HTTP, the
 *      load generator and the shared cores are counted (reported); beside it
 *      the embedded store itself behind the same bare HTTP at 200,000 stored.
 *  16. router-validation-overhead: B2 GET-by-id requests/s of the contract router
 *      (`createContractRouter`, a constant handler) ÷ bare express on the same route and JSON
 *      (target ≥ 0.85, goal ≥ 1.0), each in a process of its own, with their CPU µs per request.
 *
 * Figures are a registry: another part adds its own with `registerFigure(...)` before
 * `runBench()` (or imports `figures` and runs some). `npm run bench -- <figure-id> …` runs only
 * those figures; `npm run bench -- --json FILE <figure-id> …` also writes the table to FILE as
 * `[{ id, ratio, target, verdict }]` (verdict `met`, `missed`, `reported` or `not measured`).
 *
 * Env: BENCH_DURATION (seconds per measurement, default 5), BENCH_ROUNDS (alternating rounds,
 * medians reported, default 3, or a figure's own `rounds`), BENCH_CONNECTIONS (default 10).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, type } from 'node:os';
import { store200kLatency } from './store-200k-latency.ts';
import { b2ValidationOverhead } from './b2-validation-overhead.ts';
import { b2VsPrism } from './b2-vs-prism.ts';
import { conformanceDetection } from './conformance-detection.ts';
import { conformanceFullRun } from './conformance-full-run.ts';
import { conformanceCliRun } from './conformance-cli-run.ts';
import { conformanceFirstFinding } from './conformance-first-finding.ts';
import { conformanceThroughput } from './conformance-throughput.ts';
import { pgB1Creates } from './pg-b1-creates.ts';
import { pgRss100k } from './pg-rss-100k.ts';
import { pgTwoInstances } from './pg-two-instances.ts';
import { proxyOverhead } from './proxy-overhead.ts';
import { proxyDetectionFigure } from './proxy-detection.ts';
import { diskSyncFloor } from './disk-sync-floor.ts';
import { storeHttpFloor } from './store-http-floor.ts';
import { routerValidationOverhead } from './router-validation-overhead.ts';
import { fmt, type BenchContext, type Figure, type FigureResult } from './tools.ts';

export type { BenchContext, Figure, FigureResult } from './tools.ts';

/** The figures `runBench()` runs by default, in order (the Prism figure reuses figure 1's rps). */
export const figures: Figure[] = [
  b2ValidationOverhead,
  store200kLatency,
  b2VsPrism,
  conformanceThroughput,
  conformanceFirstFinding,
  conformanceDetection,
  conformanceFullRun,
  conformanceCliRun,
  pgB1Creates,
  pgTwoInstances,
  pgRss100k,
  proxyOverhead,
  proxyDetectionFigure,
  diskSyncFloor,
  storeHttpFloor,
  routerValidationOverhead,
];

export function registerFigure(f: Figure): void {
  if (figures.some((x) => x.id === f.id)) throw new Error(`bench: a figure ${f.id} is already registered`);
  figures.push(f);
}

/** The figures named by these ids (all when none is given); an unknown id is an error naming the known ones. */
export function selectFigures(ids: string[]): Figure[] {
  const unknown = ids.filter((id) => !figures.some((f) => f.id === id));
  if (unknown.length) throw new Error(`bench: no figure ${unknown.join(', ')}; figures: ${figures.map((f) => f.id).join(', ')}`);
  return ids.length ? figures.filter((f) => ids.includes(f.id)) : figures;
}

/** A figure's line of the table, as `--json` writes it. */
export interface FigureRow {
  id: string;
  ratio: number | null;
  target: string;
  verdict: 'met' | 'missed' | 'reported' | 'not measured';
}

export function rowOf(f: Figure, r: FigureResult): FigureRow {
  const verdict = r.ratio === null ? 'not measured' : !f.pass ? 'reported' : f.pass(r.ratio) ? 'met' : 'missed';
  return { id: f.id, ratio: r.ratio, target: f.target, verdict };
}

/** The command line: `[--json FILE] [figure-id …]`. */
export function parseArgs(argv: string[]): { json: string | null; ids: string[] } {
  const ids: string[] = [];
  let json: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') {
      json = argv[++i] ?? null;
      if (json === null || json.startsWith('--')) throw new Error('bench: --json needs a file name');
    } else if (argv[i]!.startsWith('--'))
      throw new Error(`bench: unknown option ${argv[i]}; usage: npm run bench -- [--json FILE] [figure-id …]`);
    else ids.push(argv[i]!);
  }
  return { json, ids };
}

/**
 * Runs the figures, prints each measurement and then every ratio beside its target (and writes
 * the rows to `json`, when given); 1 when a target is missed.
 */
export async function runBench(
  selected: Figure[] = figures,
  opts: { json?: string | null; log?: (line: string) => void } = {},
): Promise<number> {
  const ctx: BenchContext = {
    durationSeconds: Number(process.env.BENCH_DURATION ?? 5),
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
    log: opts.log ?? ((l) => process.stdout.write(`${l}\n`)),
    shared: new Map(),
  };
  const cpu = cpus();
  ctx.log(
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, ${type()}, Node ${process.version}, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  ctx.log(
    `Each measurement: autocannon (worker thread), ${ctx.connections} connections, ${ctx.durationSeconds} s, ${ctx.rounds} alternating rounds, on 127.0.0.1\n`,
  );
  const rows: Array<{ f: Figure; r: FigureResult }> = [];
  for (const f of selected) {
    const own = process.env.BENCH_ROUNDS === undefined && f.rounds !== undefined;
    ctx.log(`[${f.id}] ${f.title} …${own ? ` (${f.rounds} rounds, its own)` : ''}`);
    let r: FigureResult;
    try {
      r = await f.run(own ? { ...ctx, rounds: f.rounds! } : ctx);
    } catch (e) {
      r = { ratio: null, detail: '', reason: (e as Error).message };
    }
    ctx.log(r.ratio === null ? `  not measured: ${r.reason}` : `  ${r.detail}`);
    rows.push({ f, r });
  }
  ctx.log('\nFigure                                                               ratio     target   result');
  const table = rows.map(({ f, r }) => rowOf(f, r));
  rows.forEach(({ f, r }, i) => {
    const ratio = r.ratio === null ? 'not measured' : r.ratio.toFixed(2);
    const { verdict } = table[i]!;
    const shown = verdict === 'not measured' ? `not measured: ${r.reason}` : verdict === 'missed' ? 'MISSED' : verdict;
    ctx.log(`${f.title.padEnd(68)} ${ratio.padStart(6)}   ${f.target.padEnd(7)}  ${shown}`);
  });
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(table, null, 2)}\n`);
  return table.some((row) => row.verdict === 'missed') ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let selected: Figure[];
  let json: string | null;
  try {
    const args = parseArgs(process.argv.slice(2));
    json = args.json;
    selected = selectFigures(args.ids);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
  process.exitCode = await runBench(selected, { json });
}
