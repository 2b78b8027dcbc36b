/**
 * Figure: the worst request of the smallest durable server this machine can run under
 * `store-200k-latency`'s load, in ms (reported): the floor of that figure's target (≤ 50 ms)
 * once HTTP, the event loop, the load generator and the two shared cores are counted, beside
 * `disk-sync-floor`'s floor of the disk alone.
 *
 * The server, in a process of its own (this file, forked): `node:http` and `node:sqlite` only, no
 * express, no validation, no authentication. A POST parses its JSON body, inserts it as one row
 * in its own `BEGIN IMMEDIATE` transaction and answers 201 with it; a GET reads a row by its
 * integer key. WAL, with `synchronous=FULL`: each commit syncs the log before it returns, so an
 * answered write is on disk, the promise the embedded store keeps (ADR-047) in its simplest form
 * (one sync per commit, on the event loop). Beside it, in alternating rounds, the same server
 * with `synchronous=NORMAL` (no sync at a commit: survives `kill -9` only), the floor without
 * the disk.
 *
 * Third, the embedded store itself behind the same bare `node:http`: the shipped
 * `SqliteRepository` (group commit, the log synced off the event loop, the checkpointer) on a
 * file that first takes 200,000 creates, as `store-200k-latency`'s server does. A POST writes
 * what a sandbox B1 create writes, a transaction and its SMS made by the domain's own functions,
 * in one `transaction`; a GET reads one transaction. No express, no validation, no
 * authentication: what the store and HTTP cost, without the reference server's request stack.
 *
 * The load is `store-200k-latency`'s: B1-sized creates on 16 connections and reads of one row
 * on 2 more, at once, for `BENCH_DURATION` (at least 5 s) per round, `BENCH_ROUNDS` rounds, after
 * a second of warm-up. Printed per server: the worst request per round, creates/s, the event
 * loop's worst block and the server's CPU time per request. The ratio is the worst request of
 * the `FULL` server in ms.
 *
 * `BENCH_FLOOR_CPU_US` and `BENCH_FLOOR_GARBAGE_KB` (default 0) add that much CPU time (a spin)
 * and short-lived garbage to every request of every server here: with the reference server's CPU
 * per request (260–440 µs in `store-200k-latency`), how the worst request moves when nothing else
 * changes (docs/performance.md).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { DEMO_MERCHANTS, buildMerchants } from '../../reference-server/config.ts';
import type { RequestItem } from '../../reference-server/domain/transaction-record.ts';
import { buildShipped, importBuilt } from './shipped.ts';
import { checkClean, createsBesideReads, fmt, inTempDir, load, partnerBody, STORE_LOAD, type Figure } from './tools.ts';

const SELF = fileURLToPath(import.meta.url);
/** `synchronous=FULL` or `NORMAL` on one bare table, or the embedded store (`store`). */
type Mode = 'FULL' | 'NORMAL' | 'store';
/** Transactions the embedded store's file takes before its rounds, as in `store-200k-latency`. */
const STORED = 200_000;

/** What a server answers: a status and a JSON text. */
type Answer = { status: number; json: string };
/** A server's two operations: a create of a JSON body, a read by the last segment of the path. */
interface Operations {
  create(body: Record<string, unknown>): Answer | Promise<Answer>;
  read(id: string): Answer | Promise<Answer>;
  close(): Promise<void>;
}

/** One bare table, one commit per create (synced at the commit with `FULL`). */
function tableOperations(file: string, mode: 'FULL' | 'NORMAL'): Operations {
  const db = new DatabaseSync(file);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${mode}; CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`);
  const insert = db.prepare('INSERT INTO t (body) VALUES (?) RETURNING id');
  const read = db.prepare('SELECT body FROM t WHERE id = ?');
  return {
    create(record) {
      db.exec('BEGIN IMMEDIATE');
      const { id } = insert.get(JSON.stringify(record)) as { id: number };
      db.exec('COMMIT');
      return { status: 201, json: JSON.stringify({ id, ...record }) };
    },
    read(id) {
      const row = read.get(Number(id)) as { body: string } | undefined;
      return { status: row ? 200 : 404, json: row?.body ?? '{}' };
    },
    close: async () => db.close(),
  };
}

/** The embedded store as it ships: a sandbox B1 create's writes (a transaction and its SMS) in one transaction. */
async function storeOperations(file: string): Promise<Operations> {
  const [{ openSqliteRepository }, { itemLines, newTransaction }, { confirmationSms }, { uuid }, { iso }, { centimesOf }] =
    await Promise.all([
      importBuilt<typeof import('../../reference-server/store/sqlite/sqlite-repository.ts')>(
        'reference-server/store/sqlite/sqlite-repository.ts',
      ),
      importBuilt<typeof import('../../reference-server/domain/transaction-record.ts')>('reference-server/domain/transaction-record.ts'),
      importBuilt<typeof import('../../reference-server/domain/transactions.ts')>('reference-server/domain/transactions.ts'),
      importBuilt<typeof import('../../reference-server/domain/ids.ts')>('reference-server/domain/ids.ts'),
      importBuilt<typeof import('../../reference-server/domain/clock.ts')>('reference-server/domain/clock.ts'),
      importBuilt<typeof import('../../lib/money.ts')>('lib/money.ts'),
    ]);
  const merchant = buildMerchants([...DEMO_MERCHANTS])[0]!;
  const windowSeconds = 1800;
  const repository = await openSqliteRepository({ file });
  type Body = {
    customerPhone: string;
    total: number;
    items: RequestItem[];
  };
  return {
    async create(record) {
      const body = record as Body;
      const tx = await repository.transaction(async (rtx) => {
        const now = Date.now();
        const t = newTransaction({
          kind: 'partner',
          createdBy: 'createPartnerTransaction',
          merchantId: merchant.id,
          vendorReference: null,
          totalCentimes: centimesOf(body.total)!,
          currency: 'MAD',
          customerPhone: body.customerPhone,
          items: itemLines(body.items),
          sessionId: null,
          paymentIntentId: null,
          nowMs: now,
          paymentWindowSeconds: windowSeconds,
        });
        const id = uuid();
        const sms = {
          id,
          merchantId: merchant.id,
          to: t.customerPhone,
          body: confirmationSms(merchant.name, t, windowSeconds),
          transactionId: t.id,
          sentAt: iso(now),
        };
        rtx.write([
          { c: 'transactions', k: t.id, v: t },
          { c: 'sms', k: id, v: sms },
        ]);
        return t;
      });
      return { status: 201, json: JSON.stringify(tx) };
    },
    async read(id) {
      const t = await repository.get('transactions', id);
      return { status: t ? 200 : 404, json: JSON.stringify(t ?? {}) };
    },
    close: () => repository.close(),
  };
}

/** `BENCH_FLOOR_CPU_US` of CPU (a spin) and `BENCH_FLOOR_GARBAGE_KB` of short-lived objects, per request. */
function extraWork(): () => void {
  const spinMs = Number(process.env.BENCH_FLOOR_CPU_US ?? 0) / 1000;
  const objects = Math.round(Number(process.env.BENCH_FLOOR_GARBAGE_KB ?? 0) * 16); // ~64 bytes each
  let kept: unknown = null;
  return () => {
    if (objects > 0) {
      const junk: object[] = [];
      for (let i = 0; i < objects; i++) junk.push({ i, s: `x${i}`, a: [i] });
      kept = junk; // dropped at the next request: garbage of the young generation, as a request's is
    }
    for (const end = performance.now() + spinMs; performance.now() < end;);
    return kept;
  };
}

/** The child: serves `file` as `mode`; prints its port, answers `stats` (the loop's worst block and the CPU per request since the last) and `stop`. */
async function serve(file: string, mode: Mode): Promise<void> {
  const ops = mode === 'store' ? await storeOperations(file) : tableOperations(file, mode);
  const extra = extraWork();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let cpu = process.cpuUsage();
  let requests = 0;
  const answer = (res: ServerResponse, a: Answer | Promise<Answer>) =>
    void Promise.resolve(a).then(({ status, json }) => res.writeHead(status, { 'content-type': 'application/json' }).end(json));
  const server = createServer((req, res) => {
    requests += 1;
    extra();
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => answer(res, ops.create(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)));
      return;
    }
    answer(res, ops.read(req.url!.slice(req.url!.lastIndexOf('/') + 1)));
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: string) => {
    if (m === 'stats') {
      const { user, system } = process.cpuUsage(cpu);
      process.send!({ loopMaxMs: loop.max / 1e6, cpuPerRequestUs: (user + system) / Math.max(requests, 1) });
      loop.reset();
      cpu = process.cpuUsage();
      requests = 0;
    } else {
      server.closeAllConnections();
      server.close(() => void ops.close().then(() => process.exit(0)));
    }
  });
  process.once('disconnect', () => process.exit(1));
}

interface Stats {
  loopMaxMs: number;
  cpuPerRequestUs: number;
}

interface FloorServer {
  base: string;
  stats(): Promise<Stats>;
  stop(): Promise<void>;
}

async function spawn(file: string, mode: Mode): Promise<FloorServer> {
  if (mode === 'store') await buildShipped(); // the child imports the compiled package
  const child: ChildProcess = fork(SELF, ['serve', file, mode], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (m) => resolve(m as T));
      child.once('exit', (c) => reject(new Error(`the ${mode} floor server exited ${String(c)}`)));
    });
  const { port } = await next<{ port: number }>();
  return {
    base: `http://127.0.0.1:${port}`,
    stats: () => {
      const answer = next<Stats>();
      child.send('stats');
      return answer;
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(); // already gone (it failed): nothing to wait for
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

/** One round of the store figures' load (STORE_LOAD) for `seconds`. */
async function round(s: FloorServer, readId: string, seconds: number) {
  const { creates, reads } = await createsBesideReads({ url: `${s.base}/t` }, { url: `${s.base}/t/${readId}` }, seconds);
  const { loopMaxMs, cpuPerRequestUs } = await s.stats();
  return {
    worst: Math.max(creates.latency.max, reads.latency.max),
    createsPerSecond: creates.requests.total / seconds,
    loopMaxMs,
    cpuPerRequestUs,
  };
}

const TITLES: Record<Mode, string> = {
  FULL: 'synchronous=FULL',
  NORMAL: 'synchronous=NORMAL',
  store: `the embedded store, ${fmt(STORED)} stored and more`,
};

export const storeHttpFloor: Figure = {
  id: 'store-http-floor',
  title: 'Worst request of a bare node:http + node:sqlite server, same load, ms',
  target: 'report',
  run: (ctx) =>
    inTempDir('paylater-bench-floor-', async (dir) => {
      const seconds = Math.max(ctx.durationSeconds, 5);
      const modes: Mode[] = ['FULL', 'NORMAL', 'store'];
      const servers = new Map<Mode, { s: FloorServer; id: string }>();
      let filled = '';
      try {
        for (const mode of modes) {
          const s = await spawn(path.join(dir, `${mode}.db`), mode);
          if (mode === 'store') {
            const t0 = Date.now();
            const fill = await load({
              url: `${s.base}/t`,
              method: 'POST',
              body: partnerBody,
              connections: STORE_LOAD.createConnections,
              amount: STORED,
            });
            checkClean('creates (fill)', fill);
            filled = `; it took its ${fmt(STORED)} creates in ${fmt((Date.now() - t0) / 1000, 1)} s first`;
          }
          const r = await fetch(`${s.base}/t`, { method: 'POST', body: partnerBody });
          servers.set(mode, { s, id: String(((await r.json()) as { id: number | string }).id) });
          await round(s, servers.get(mode)!.id, 1);
        }
        const rounds = new Map<Mode, Awaited<ReturnType<typeof round>>[]>(modes.map((m) => [m, []]));
        for (let i = 0; i < Math.max(ctx.rounds, 1); i++)
          for (const mode of modes) rounds.get(mode)!.push(await round(servers.get(mode)!.s, servers.get(mode)!.id, seconds));
        const line = (mode: Mode) => {
          const rs = rounds.get(mode)!;
          return (
            `${TITLES[mode]}: worst request per round ${rs.map((r) => r.worst).join(', ')} ms; ` +
            `creates/s ${rs.map((r) => fmt(r.createsPerSecond)).join(', ')}; event loop blocked at most ${fmt(Math.max(...rs.map((r) => r.loopMaxMs)), 1)} ms; ` +
            `server CPU per request ${rs.map((r) => fmt(r.cpuPerRequestUs)).join(', ')} µs`
          );
        };
        const extra = [process.env.BENCH_FLOOR_CPU_US, process.env.BENCH_FLOOR_GARBAGE_KB].some(Boolean)
          ? `; every request with ${Number(process.env.BENCH_FLOOR_CPU_US ?? 0)} µs of added CPU and ${Number(process.env.BENCH_FLOOR_GARBAGE_KB ?? 0)} KB of added garbage`
          : '';
        return {
          ratio: Math.max(...rounds.get('FULL')!.map((r) => r.worst)),
          detail: `${STORE_LOAD.createConnections} connections of creates and ${STORE_LOAD.readConnections} of reads, ${rounds.get('FULL')!.length} rounds of ${seconds} s each${extra}\n  ${modes.map((m) => line(m) + (m === 'store' ? filled : '')).join('\n  ')}`,
        };
      } finally {
        for (const { s } of servers.values()) await s.stop();
      }
    }),
};

if (process.argv[1] === SELF && process.argv[2] === 'serve') void serve(process.argv[3]!, process.argv[4] as Mode);
