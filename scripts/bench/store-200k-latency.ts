/**
 * Figure: the worst and p99 latency of B1 creates (16 connections) and of B2 reads beside them,
 * on the durable file store holding 200,000 transactions, against the same load on an empty
 * store; the store folds its journal every 4 MiB during the run, so folds are inside the
 * measurement. Each server runs in a process of its own (`store-server.ts`), the load generator
 * here, so the numbers are the server's as deployed; beside them, each server's longest
 * event-loop block. Each side is measured in alternating rounds (`BENCH_ROUNDS`): the p99s are
 * the rounds' medians, the worsts are the worst of all rounds (the target speaks of every
 * request), and each round's worst is listed. Also the resident memory per stored transaction
 * (the 200,000 server's less the empty one's, both after a full GC). The ratio is the worst
 * request (create or read) at 200,000 over all rounds, in ms (target ≤ 100 ms).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_MERCHANTS } from '../../reference-server/config.ts';
import { FOLD_AFTER_BYTES, seedInChild, spawnStoreServer, type StoreServer } from './store-server.ts';

export { seedDataFile } from './store-server.ts';

const STORED = 200_000;
const CONNECTIONS = 16;
import { checkClean, fmt, load, median, partnerBody, type Figure } from './tools.ts';

/** Creates on `CONNECTIONS` connections and reads of one transaction on 2 more, at once, for `seconds`. */
async function measure(s: StoreServer, readId: string, seconds: number) {
  const key = DEMO_MERCHANTS[0]!.apiKey;
  const [creates, reads] = await Promise.all([
    load({
      url: `${s.base}/api/v1/public/partner/transactions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-Key': key },
      body: partnerBody,
      connections: CONNECTIONS,
      duration: seconds,
    }),
    load({
      url: `${s.base}/api/v1/public/partner/transactions/${readId}`,
      method: 'GET',
      headers: { 'X-Api-Key': key },
      connections: 2,
      duration: seconds,
    }),
  ]);
  checkClean('B1 creates', creates);
  checkClean('B2 reads', reads);
  const server = await s.stats();
  return {
    loopMax: server.loopMaxMs,
    slowestWrite: server.slowestWriteMs,
    stored: server.stored,
    createP99: creates.latency.p99,
    createMax: creates.latency.max,
    readP99: reads.latency.p99,
    readMax: reads.latency.max,
    creates: creates.requests.total,
  };
}

type Measured = Awaited<ReturnType<typeof measure>>;

/** Each figure's median over the rounds, except the worsts: the worst of all rounds. */
function summaryOf(rounds: Measured[]): Measured {
  const keys = Object.keys(rounds[0]!) as Array<keyof Measured>;
  const worst = new Set<keyof Measured>(['createMax', 'readMax', 'loopMax', 'slowestWrite']);
  return Object.fromEntries(
    keys.map((k) => [k, worst.has(k) ? Math.max(...rounds.map((r) => r[k])) : median(rounds.map((r) => r[k]))]),
  ) as Measured;
}

export const store200kLatency: Figure = {
  id: 'store-200k-latency',
  title: 'Worst request (create or read) with 200,000 stored, ms (file store)',
  target: '≤ 100',
  pass: (r) => r <= 100,
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-'));
    const servers: StoreServer[] = [];
    try {
      const bigFile = path.join(dir, 'big.json');
      const emptyFile = path.join(dir, 'empty.json');
      const t0 = Date.now();
      await Promise.all([seedInChild(bigFile, STORED), seedInChild(emptyFile, 1)]);
      ctx.log(`  seeded ${fmt(STORED)} transactions in ${Date.now() - t0} ms`);
      const readId = '00000000-0000-4000-8000-000000000000';
      const empty = await spawnStoreServer(emptyFile);
      servers.push(empty);
      const big = await spawnStoreServer(bigFile);
      servers.push(big);
      const rssPerTx = (big.rss - empty.rss) / STORED;
      const seconds = Math.max(ctx.durationSeconds, 5);
      await measure(empty, readId, 1);
      await measure(big, readId, 1);
      // Alternating rounds: a p99 is the rounds' median, a worst the worst of every round.
      const es: Measured[] = [];
      const bs: Measured[] = [];
      for (let i = 0; i < Math.max(ctx.rounds, 1); i++) {
        es.push(await measure(empty, readId, seconds));
        bs.push(await measure(big, readId, seconds));
      }
      const e = summaryOf(es);
      const b = summaryOf(bs);
      if (b.stored < STORED) throw new Error(`seeded store holds ${b.stored} transactions`);
      const worsts = bs.map((x) => `${Math.max(x.createMax, x.readMax)} (slowest fsync ${fmt(x.slowestWrite)})`);
      const line = (r: Measured) =>
        `create p99 ${r.createP99} ms, worst ${r.createMax} ms; read p99 ${r.readP99} ms, worst ${r.readMax} ms; event loop blocked at most ${fmt(r.loopMax)} ms, slowest journal write (fsync) ${fmt(r.slowestWrite)} ms`;
      return {
        ratio: Math.max(b.createMax, b.readMax),
        detail:
          `with ${fmt(b.stored)} stored: ${line(b)} (${fmt(b.creates)} creates on ${CONNECTIONS} connections in ${seconds} s, a fold every ${FOLD_AFTER_BYTES / 2 ** 20} MiB of journal)\n` +
          `  with none:       ${line(e)} (${fmt(e.creates)} creates)\n` +
          `  ${bs.length} alternating rounds (p99: median; worst: of all rounds); worst request at 200,000 per round: ${worsts.join(', ')} ms\n` +
          `  resident memory: ${fmt(rssPerTx / 1024, 2)} KiB per stored transaction (each server in its own process)`,
      };
    } finally {
      for (const s of servers) await s.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
