/**
 * `npm run bench`: the speed figures of the reference server (issue 3), measured side by
 * side in one run on 127.0.0.1 with autocannon for a bounded time each.
 *
 *   1. B2 GET-by-id requests/s with full request + response validation ÷ a bare express
 *      app serving the same JSON (target ≥ 0.7).
 *   2. B1 create p50 latency with 100,000 stored transactions ÷ with none, both on the
 *      durable file store (target ≤ 2.0).
 *   3. B2 requests/s ÷ Prism 5.14's mock server on the same bundled document (reported).
 *
 * Figures are a registry: another part adds its own with `registerFigure(...)` before
 * `runBench()` (or imports `figures` and runs one).
 *
 * Env: BENCH_DURATION (seconds per measurement, default 5), BENCH_ROUNDS (alternating rounds,
 * medians reported, default 3), BENCH_CONNECTIONS (default 10).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem, tmpdir, type } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { bundledDocumentPath } from '../generated/index.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, writeFileAtomic, type Snapshot } from '../reference-server/store/file-persistence.ts';
import type { TransactionRecord } from '../reference-server/domain/types.ts';
import { measureConformanceThroughput } from '../conformance/bench.ts';
import { runMutantSelfTest } from '../conformance/mutants/selftest.ts';

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
  run(ctx: BenchContext): Promise<FigureResult>;
}

export interface BenchContext {
  durationSeconds: number;
  /** Alternating rounds per comparison (medians are reported). */
  rounds: number;
  connections: number;
  log: (line: string) => void;
  /** Shared between figures of one run (e.g. our B2 rps reused by figure 3). */
  shared: Map<string, unknown>;
}

export const figures: Figure[] = [];
export function registerFigure(f: Figure): void {
  figures.push(f);
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** autocannon in a worker thread, so the load generator does not share the servers' event loop. */
export async function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ workers: 1, ...opts } as autocannon.Options);
}

function listen(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            s.close(() => r());
            s.closeAllConnections();
          }),
      });
    });
  });
}

const partnerBody = JSON.stringify({
  customerPhone: '212612345678',
  total: 1299.5,
  currency: 'MAD',
  items: [{ name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPrice: 1299.5, categoryId: 42 }],
});

async function createOne(s: TestServer): Promise<{ id: string; json: unknown }> {
  const r = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Key': s.merchants[0]!.apiKey },
    body: partnerBody,
  });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${await r.text()}`);
  const created = (await r.json()) as { id: string };
  const g = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions/${created.id}`, { headers: { 'X-Api-Key': s.merchants[0]!.apiKey } });
  return { id: created.id, json: await g.json() };
}

function checkClean(name: string, r: autocannon.Result): void {
  if (r.errors > 0 || r.non2xx > 0 || r.timeouts > 0) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx, ${r.timeouts} timeouts`);
}

export const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = Math.floor(a.length / 2);
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
};

/** Load before the measured rounds of a throughput figure (figures 1 and 3), on each side. */
const WARMUP_SECONDS = 3;

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

registerFigure({
  id: 'b2-validation-overhead',
  title: 'B2 GET rps, full validation ÷ bare express, same JSON',
  target: '≥ 0.7',
  pass: (r) => r >= 0.7,
  async run(ctx) {
    const s = await startTestServer({ webhookDispatcherFactory: null });
    const { id, json } = await createOne(s);
    const bare = express();
    bare.disable('x-powered-by');
    bare.set('etag', false);
    bare.get('/api/v1/public/partner/transactions/:id', (_req, res) => {
      res.json(json);
    });
    const b = await listen(bare);
    try {
      const path = `/api/v1/public/partner/transactions/${id}`;
      const headers = { 'X-Api-Key': s.merchants[0]!.apiKey };
      // Warm-up, both sides alike: steady state is measured, not the JIT's first seconds (the
      // server has far more code to optimise than the one-route baseline).
      await load({ url: s.baseUrl + path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      await load({ url: b.url + path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const oursRps: number[] = [];
      const baseRps: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const ours = await load({ url: s.baseUrl + path, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('reference server B2', ours);
        const base = await load({ url: b.url + path, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('bare express', base);
        oursRps.push(ours.requests.average);
        baseRps.push(base.requests.average);
      }
      const ours = median(oursRps);
      const base = median(baseRps);
      ctx.shared.set('oursB2Rps', ours);
      return {
        ratio: ours / base,
        detail: `reference server ${fmt(ours)} req/s vs bare express ${fmt(base)} req/s (medians of ${ctx.rounds} alternating rounds: ${oursRps.map((x) => fmt(x)).join('/')} vs ${baseRps.map((x) => fmt(x)).join('/')})`,
      };
    } finally {
      await b.close();
      await s.close();
    }
  },
});

/** A data file holding `n` partner transactions of the first demo merchant. */
async function seedDataFile(file: string, merchantId: string, n: number): Promise<void> {
  const transactions: Record<string, TransactionRecord> = {};
  const now = Date.now();
  const statuses = ['APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'] as const;
  for (let i = 0; i < n; i++) {
    const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const created = now - (n - i) * 60_000;
    transactions[id] = {
      id,
      kind: 'partner',
      merchantId,
      orderReference: `ORD-${i.toString(36).toUpperCase().padStart(10, '0')}`,
      vendorReference: `SEED-${i}`,
      status: statuses[i % statuses.length]!,
      totalCentimes: 129950,
      currency: 'MAD',
      customerPhone: '212612345678',
      items: [{ id: `10000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPriceCentimes: 129950, categoryId: 42 }],
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(created + 1000).toISOString(),
      expiresAt: new Date(created + 1_800_000).toISOString(),
      approvedAt: null,
      expiredAt: null,
      sessionId: null,
      paymentIntentId: null,
    };
  }
  const snap: Snapshot = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    journalSeq: 0,
    collections: { transactions, sessions: {}, paymentIntents: {}, sms: {}, outbox: {}, merchantState: {} },
  };
  await writeFileAtomic(file, JSON.stringify(snap));
}

registerFigure({
  id: 'b1-p50-100k',
  title: 'B1 create p50 latency, 100,000 stored ÷ none (durable file store)',
  target: '≤ 2.0',
  pass: (r) => r <= 2.0,
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-'));
    const servers: TestServer[] = [];
    try {
      const probe = await startTestServer({ webhookDispatcherFactory: null });
      const merchantId = probe.merchants[0]!.id;
      await probe.close();
      const bigFile = path.join(dir, 'big.json');
      const t0 = Date.now();
      await seedDataFile(bigFile, merchantId, 100_000);
      ctx.log(`  seeded 100,000 transactions in ${Date.now() - t0} ms`);
      const empty = await startTestServer({ dataFile: path.join(dir, 'empty.json'), webhookDispatcherFactory: null, sweepIntervalMs: 3_600_000 });
      servers.push(empty);
      const big = await startTestServer({ dataFile: bigFile, webhookDispatcherFactory: null, sweepIntervalMs: 3_600_000 });
      servers.push(big);
      const opts = (s: TestServer) => ({
        url: `${s.baseUrl}/api/v1/public/partner/transactions`,
        method: 'POST' as const,
        headers: { 'content-type': 'application/json', 'X-Service-Key': s.merchants[0]!.apiKey },
        body: partnerBody,
        connections: ctx.connections,
      });
      await load({ ...opts(empty), duration: 1 });
      await load({ ...opts(big), duration: 1 });
      const pe: number[] = [];
      const pb: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const e = await load({ ...opts(empty), duration: ctx.durationSeconds });
        checkClean('B1 (none stored)', e);
        const g = await load({ ...opts(big), duration: ctx.durationSeconds });
        checkClean('B1 (100,000 stored)', g);
        pe.push(e.latency.p50);
        pb.push(g.latency.p50);
      }
      const stored = big.handle.core.store.count('transactions');
      if (stored < 100_000) throw new Error(`seeded store holds ${stored} transactions`);
      return {
        ratio: median(pb) / median(pe),
        detail: `p50 ${median(pb)} ms with ${fmt(stored)} stored vs ${median(pe)} ms with none (medians of ${ctx.rounds} alternating rounds: ${pb.join('/')} vs ${pe.join('/')} ms); every answer after the fsync of its journal group`,
      };
    } finally {
      for (const s of servers) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
});

function prismEntry(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('@stoplight/prism-cli/package.json');
    const entry = path.join(path.dirname(pkg), 'dist', 'index.js');
    return existsSync(entry) ? entry : null;
  } catch {
    return null;
  }
}

async function waitForHttp(url: string, headers: Record<string, string>, ms: number, child: ChildProcess): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    try {
      const r = await fetch(url, { headers });
      await r.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`not listening after ${ms} ms`);
}

registerFigure({
  id: 'b2-vs-prism',
  title: 'B2 GET rps, reference server ÷ Prism 5.14 mock, same bundled document',
  target: 'report',
  async run(ctx) {
    const entry = prismEntry();
    if (!entry) return { ratio: null, detail: '', reason: '@stoplight/prism-cli is not installed' };
    const port = 4000 + Math.floor(Math.random() * 2000) + 10_000;
    const stderr: string[] = [];
    const child = spawn(process.execPath, [entry, 'mock', '-h', '127.0.0.1', '-p', String(port), bundledDocumentPath(1)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      const path_ = '/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10';
      const headers = { 'X-Api-Key': 'sk_test_v1_demo_4f7c2a9e1b3d5f60' };
      try {
        await waitForHttp(`http://127.0.0.1:${port}${path_}`, headers, 60_000, child);
      } catch (e) {
        return { ratio: null, detail: '', reason: `Prism did not start: ${(e as Error).message}; ${stderr.join('').slice(-300)}` };
      }
      await load({ url: `http://127.0.0.1:${port}${path_}`, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const prism = await load({ url: `http://127.0.0.1:${port}${path_}`, headers, connections: ctx.connections, duration: ctx.durationSeconds });
      if (prism.non2xx > 0 || prism.errors > 0) return { ratio: null, detail: '', reason: `Prism answered ${prism.non2xx} non-2xx and ${prism.errors} errors` };
      let ours = ctx.shared.get('oursB2Rps') as number | undefined;
      if (ours === undefined) {
        const f = figures.find((x) => x.id === 'b2-validation-overhead')!;
        await f.run(ctx);
        ours = ctx.shared.get('oursB2Rps') as number;
      }
      return {
        ratio: ours / prism.requests.average,
        detail: `reference server ${fmt(ours)} req/s (stateful, request + response validation) vs Prism ${fmt(prism.requests.average)} req/s (static example, p50 ${prism.latency.p50} ms)`,
      };
    } finally {
      child.kill('SIGTERM');
    }
  },
});

export async function runBench(selected: Figure[] = figures): Promise<number> {
  const ctx: BenchContext = {
    durationSeconds: Number(process.env.BENCH_DURATION ?? 5),
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
    log: (l) => process.stdout.write(`${l}\n`),
    shared: new Map(),
  };
  const cpu = cpus();
  ctx.log(`Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, ${type()}, Node ${process.version}`);
  ctx.log(`Each measurement: autocannon (worker thread), ${ctx.connections} connections, ${ctx.durationSeconds} s, ${ctx.rounds} alternating rounds, on 127.0.0.1\n`);
  const rows: Array<{ f: Figure; r: FigureResult }> = [];
  for (const f of selected) {
    ctx.log(`[${f.id}] ${f.title} …`);
    let r: FigureResult;
    try {
      r = await f.run(ctx);
    } catch (e) {
      r = { ratio: null, detail: '', reason: (e as Error).message };
    }
    ctx.log(r.ratio === null ? `  not measured: ${r.reason}` : `  ${r.detail}`);
    rows.push({ f, r });
  }
  ctx.log('\nFigure                                                               ratio     target   result');
  for (const { f, r } of rows) {
    const ratio = r.ratio === null ? 'not measured' : r.ratio.toFixed(2);
    const verdict = r.ratio === null ? `not measured: ${r.reason}` : f.pass ? (f.pass(r.ratio) ? 'met' : 'MISSED') : 'reported';
    ctx.log(`${f.title.padEnd(68)} ${ratio.padStart(6)}   ${f.target.padEnd(7)}  ${verdict}`);
  }
  return rows.some(({ f, r }) => r.ratio !== null && f.pass && !f.pass(r.ratio)) ? 1 : 0;
}

registerFigure({
  id: 'conformance-throughput',
  title: 'Conformance suite rps ÷ the same requests in a plain loop (core)',
  target: '≥ 0.7',
  pass: (r) => r >= 0.7,
  async run(ctx) {
    // Two fresh servers with the same merchants: the suite runs against the first, the loop
    // replays its requests against the second (same initial state, ids substituted).
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
        const r = await measureConformanceThroughput(k(a), k(b), { variant: 1, profile: 'core', runs: 30, seed: 100 + round, maxCommands: 25 });
        if (r.findings) throw new Error(`the suite reported ${r.findings} finding(s) against the reference server`);
        ratios.push(r.ratio);
        lines.push(`suite ${fmt(r.suiteRequestsPerSecond)} req/s, ${fmt(r.commandsPerSecond)} commands/s (${r.suiteCommands} commands, ${r.suiteRequests} requests) vs loop ${fmt(r.loopRequestsPerSecond)} req/s, ${r.sameStatus}/${r.suiteRequests} same status`);
      } finally {
        await a.close();
        await b.close();
      }
    }
    return { ratio: median(ratios), detail: `median of ${ctx.rounds} rounds (${ratios.map((x) => x.toFixed(2)).join('/')}); ${lines.join('; ')}` };
  },
});

registerFigure({
  id: 'conformance-first-finding',
  title: 'Conformance: median time to first finding over the mutants (s)',
  target: 'report',
  async run(ctx) {
    const results = await runMutantSelfTest({ startServer: (merchants) => startTestServer({ merchants, mode: 'sandbox' }), log: (l) => ctx.log(`  ${l}`) });
    const missed = results.filter((m) => m.firstFindingMs === null);
    if (missed.length) throw new Error(`not found: ${missed.map((m) => m.name).join(', ')}`);
    const bySearch = results.filter((m) => m.phase === 'property');
    return {
      ratio: median(results.map((m) => m.firstFindingMs!)) / 1000,
      detail: `${results.length} mutants, ${bySearch.length} found by the random search (median shrunk length ${median(bySearch.map((m) => m.shrunkLength))}), ${results.length - bySearch.length} by the coverage tour`,
    };
  },
});

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.slice(2);
  process.exitCode = await runBench(only.length ? figures.filter((f) => only.includes(f.id)) : figures);
}
