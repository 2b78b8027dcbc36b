/**
 * Figure: the embedded store (SQLite, ADR-046) with 200,000 stored transactions, every target of
 * the store in one run, each server in a process of its own (`store-server.ts`):
 *
 * - growth: a server on a new database file takes 200,000 B1 creates (16 connections); its
 *   resident memory after a last-resort GC, before and after (target: growth ≤ 64 MiB). A plain
 *   full GC leaves V8's pool of freed pages and its young generation as the load left them (up
 *   to ~150 MiB, whatever is stored: docs/storage.md); that figure is printed beside it;
 * - latency: B1 creates on 16 connections and B2 reads on 2 beside them, in alternating rounds
 *   (`BENCH_ROUNDS`) on that server (200,000 stored and more) and on one with an empty store:
 *   the p99 of the creates, rounds' median, at 200,000 ÷ on the empty store (the ratio; target
 *   ≤ 1.2), and the worst request at 200,000 of all rounds (printed: no target);
 * - start: the 200,000 server stopped and started again on its file: the store's open (file
 *   checks, `quick_check`, migrations) and the server ready to listen (target ≤ 1 s), beside the
 *   whole process start (loading the TypeScript sources with tsx);
 * - B1 creates/s on an empty store. The target was "not lower than the file store it replaced":
 *   the two were measured in one run before that store was deleted (docs/storage.md).
 *
 * The machine's load (`/proc/loadavg`) is printed before and after: other work on the machine shows in these figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_MERCHANTS } from '../../reference-server/config.ts';
import { spawnStoreServer, type StoreKind, type StoreServer } from './store-server.ts';
import { checkClean, createsBesideReads, fmt, load, median, partnerBody, STORE_LOAD, type Figure } from './tools.ts';

export { seedDataFile } from './store-server.ts';

const STORED = 200_000;
const MiB = 2 ** 20;
const key = DEMO_MERCHANTS[0]!.apiKey;
const createRequest = (s: StoreServer) => ({
  url: `${s.base}/api/v1/public/partner/transactions`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', 'X-Service-Key': key },
  body: partnerBody,
  connections: STORE_LOAD.createConnections,
});
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');

/** Creates on 16 connections and reads of one transaction on 2 more, at once, for `seconds` (STORE_LOAD). */
async function measure(s: StoreServer, readId: string, seconds: number) {
  const { creates, reads } = await createsBesideReads(
    { url: createRequest(s).url, headers: { 'X-Service-Key': key } },
    { url: `${s.base}/api/v1/public/partner/transactions/${readId}`, headers: { 'X-Api-Key': key } },
    seconds,
  );
  const server = await s.stats();
  return {
    stored: server.stored,
    createP99: creates.latency.p99,
    createMax: creates.latency.max,
    readP99: reads.latency.p99,
    readMax: reads.latency.max,
    loopMax: server.loopMaxMs,
    serverMax: server.serverMaxMs,
    serverP99: server.serverP99Ms,
    cpuPerRequestUs: (1000 * server.cpuMs) / (creates.requests.total + reads.requests.total),
    createsPerSecond: creates.requests.total / seconds,
  };
}
type Measured = Awaited<ReturnType<typeof measure>>;

/** B1 creates/s alone on `s` for `seconds`. */
async function createsPerSecond(s: StoreServer, seconds: number): Promise<number> {
  const r = await load({ ...createRequest(s), duration: seconds });
  checkClean('B1 creates', r);
  return r.requests.total / seconds;
}

/** The id of one transaction the server on `s` holds (created now). */
async function oneId(s: StoreServer): Promise<string> {
  const r = await fetch(createRequest(s).url, { method: 'POST', headers: createRequest(s).headers, body: partnerBody });
  if (r.status !== 201) throw new Error(`create answered ${r.status}`);
  return ((await r.json()) as { id: string }).id;
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

export const store200kLatency: Figure = {
  id: 'store-200k-latency',
  title: 'Create p99 with 200,000 stored ÷ on an empty store (SQLite store)',
  target: '≤ 1.2',
  pass: (r) => r <= 1.2,
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-'));
    const servers = new Set<StoreServer>();
    const spawn = async (kind: StoreKind, file: string) => {
      const s = await spawnStoreServer(kind, path.join(dir, file));
      servers.add(s);
      return s;
    };
    const stop = async (s: StoreServer) => {
      servers.delete(s);
      await s.stop();
    };
    try {
      const seconds = Math.max(ctx.durationSeconds, 5);
      const rounds = Math.max(ctx.rounds, 1);
      const lines = [`load average before: ${loadavg()}`];

      // B1 creates/s alone.
      const b1Server = await spawn('sqlite', 'b1.db');
      await createsPerSecond(b1Server, 1);
      const rates: number[] = [];
      for (let i = 0; i < rounds; i++) rates.push(await createsPerSecond(b1Server, seconds));
      await stop(b1Server);
      lines.push(
        `B1 creates/s on an empty store, ${STORE_LOAD.createConnections} connections, ${rounds} rounds of ${seconds} s (median): ${fmt(median(rates))} (rounds ${rates.map((r) => fmt(r)).join(', ')})`,
      );

      // Growth: 200,000 creates into a new file.
      const big = await spawn('sqlite', 'big.db');
      const empty = await spawn('sqlite', 'empty.db');
      // The baseline after a second of creates: the start's own garbage is not the store's growth.
      const atStart = await big.stats();
      await createsPerSecond(big, 1);
      const before = await big.stats();
      const t0 = Date.now();
      const fill = await load({ ...createRequest(big), amount: STORED - before.stored });
      checkClean('B1 creates (fill)', fill);
      const fillSeconds = (Date.now() - t0) / 1000;
      const after = await big.stats();
      if (after.stored < STORED) throw new Error(`the store holds ${after.stored} transactions`);
      const growth = (after.rss - before.rss) / MiB;
      const mib = (n: number) => `${fmt(n / MiB, 1)} MiB`;
      lines.push(
        `growth: ${fmt(STORED)} creates in ${fmt(fillSeconds, 1)} s (${fmt(STORED / fillSeconds)}/s; p99 ${fill.latency.p99} ms, worst ${fill.latency.max} ms, event loop blocked at most ${fmt(after.loopMaxMs)} ms); ` +
          `resident after a last-resort GC ${mib(before.rss)} with ${fmt(before.stored)} stored (${mib(atStart.rss)} right after start) → ${mib(after.rss)} with ${fmt(after.stored)}: ${growth < 0 ? '' : '+'}${fmt(growth, 1)} MiB (target ≤ 64: ${verdict(growth <= 64)}); ` +
          `V8 heap in use ${mib(before.heapUsed)} → ${mib(after.heapUsed)}, committed ${mib(before.heapCommitted)} → ${mib(after.heapCommitted)}; ` +
          `after a plain full GC (V8's pool of freed pages and its young generation as the load left them) ${mib(before.rssAfterGc)} → ${mib(after.rssAfterGc)}`,
      );

      // Latency: alternating rounds, empty store and 200,000.
      const [emptyId, bigId] = [await oneId(empty), await oneId(big)];
      await measure(empty, emptyId, 1);
      await measure(big, bigId, 1);
      const es: Measured[] = [];
      const bs: Measured[] = [];
      for (let i = 0; i < rounds; i++) {
        es.push(await measure(empty, emptyId, seconds));
        bs.push(await measure(big, bigId, seconds));
      }
      const worst = Math.max(...bs.map((b) => Math.max(b.createMax, b.readMax)));
      const p99 = { big: median(bs.map((b) => b.createP99)), empty: median(es.map((e) => e.createP99)) };
      const line = (rs: Measured[]) =>
        `create p99 ${median(rs.map((r) => r.createP99))} ms (rounds ${rs.map((r) => r.createP99).join(', ')}), worst ${Math.max(...rs.map((r) => r.createMax))} ms; ` +
        `read p99 ${median(rs.map((r) => r.readP99))} ms, worst ${Math.max(...rs.map((r) => r.readMax))} ms; ${fmt(median(rs.map((r) => r.createsPerSecond)))} creates/s; ` +
        `inside the server p99 ${fmt(median(rs.map((r) => r.serverP99)), 1)} ms, worst ${fmt(Math.max(...rs.map((r) => r.serverMax)), 1)} ms; event loop blocked at most ${fmt(Math.max(...rs.map((r) => r.loopMax)))} ms; server CPU ${fmt(median(rs.map((r) => r.cpuPerRequestUs)))} µs per request; stored at the end ${fmt(rs.at(-1)!.stored)}`;
      lines.push(
        `with 200,000 stored and more: ${line(bs)}`,
        `with an empty store:          ${line(es)}`,
        `worst request at 200,000 per round: ${bs.map((b) => Math.max(b.createMax, b.readMax)).join(', ')} ms (worst ${worst} ms); create p99 at 200,000 ÷ empty: ${fmt(p99.big / p99.empty, 2)} (target ≤ 1.2: ${verdict(p99.big <= 1.2 * p99.empty)})`,
      );
      const emptyStart = { openMs: empty.openMs, readyMs: empty.readyMs };
      await stop(empty);

      // Start: the 200,000 file opened again.
      await stop(big);
      const t1 = Date.now();
      const again = await spawn('sqlite', 'big.db');
      const processMs = Date.now() - t1;
      const restarted = await again.stats();
      await stop(again);
      lines.push(
        `start on ${fmt(restarted.stored)} stored: store open (file checks, quick_check, migrations) ${fmt(again.openMs)} ms, ready to listen ${fmt(again.readyMs)} ms (target ≤ 1,000: ${verdict(again.readyMs <= 1000)}); the whole process, tsx loading the sources included: ${fmt(processMs)} ms; the empty store's server in this run: open ${fmt(emptyStart.openMs)} ms, ready ${fmt(emptyStart.readyMs)} ms`,
        `load average after: ${loadavg()}`,
      );
      return { ratio: p99.big / p99.empty, detail: lines.join('\n  ') };
    } finally {
      for (const s of servers) await s.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
