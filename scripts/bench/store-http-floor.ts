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
 * The load is `store-200k-latency`'s: B1-sized creates on 16 connections and reads of one row
 * on 2 more, at once, for `BENCH_DURATION` (at least 5 s) per round, `BENCH_ROUNDS` rounds, after
 * a second of warm-up. Printed per mode: the worst request per round, creates/s and the event
 * loop's worst block. The ratio is the worst request of the `FULL` server in ms.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createsBesideReads, fmt, inTempDir, partnerBody, STORE_LOAD, type Figure } from './tools.ts';

const SELF = fileURLToPath(import.meta.url);
type Mode = 'FULL' | 'NORMAL';

/** The child: serves `file` with `synchronous=<mode>`; prints its port, answers `stats` (the loop's worst block since the last) and `stop`. */
function serve(file: string, mode: Mode): void {
  const db = new DatabaseSync(file);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${mode}; CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`);
  const insert = db.prepare('INSERT INTO t (body) VALUES (?) RETURNING id');
  const read = db.prepare('SELECT body FROM t WHERE id = ?');
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const server = createServer((req, res) => {
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const record = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        db.exec('BEGIN IMMEDIATE');
        const { id } = insert.get(JSON.stringify(record)) as { id: number };
        db.exec('COMMIT');
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id, ...record }));
      });
      return;
    }
    const row = read.get(Number(req.url!.slice(req.url!.lastIndexOf('/') + 1))) as { body: string } | undefined;
    res.writeHead(row ? 200 : 404, { 'content-type': 'application/json' }).end(row?.body ?? '{}');
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (m: string) => {
    if (m === 'stats') {
      process.send!({ loopMaxMs: loop.max / 1e6 });
      loop.reset();
    } else {
      server.closeAllConnections();
      server.close(() => {
        db.close();
        process.exit(0);
      });
    }
  });
  process.once('disconnect', () => process.exit(1));
}

interface FloorServer {
  base: string;
  stats(): Promise<{ loopMaxMs: number }>;
  stop(): Promise<void>;
}

async function spawn(file: string, mode: Mode): Promise<FloorServer> {
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
      const answer = next<{ loopMaxMs: number }>();
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
async function round(s: FloorServer, readId: number, seconds: number) {
  const { creates, reads } = await createsBesideReads({ url: `${s.base}/t` }, { url: `${s.base}/t/${readId}` }, seconds);
  const { loopMaxMs } = await s.stats();
  return { worst: Math.max(creates.latency.max, reads.latency.max), createsPerSecond: creates.requests.total / seconds, loopMaxMs };
}

export const storeHttpFloor: Figure = {
  id: 'store-http-floor',
  title: 'Worst request of a bare node:http + node:sqlite server, same load, ms',
  target: 'report',
  run: (ctx) =>
    inTempDir('paylater-bench-floor-', async (dir) => {
      const seconds = Math.max(ctx.durationSeconds, 5);
      const modes: Mode[] = ['FULL', 'NORMAL'];
      const servers = new Map<Mode, { s: FloorServer; id: number }>();
      try {
        for (const mode of modes) {
          const s = await spawn(path.join(dir, `${mode}.db`), mode);
          const r = await fetch(`${s.base}/t`, { method: 'POST', body: partnerBody });
          servers.set(mode, { s, id: ((await r.json()) as { id: number }).id });
          await round(s, servers.get(mode)!.id, 1);
        }
        const rounds = new Map<Mode, Awaited<ReturnType<typeof round>>[]>(modes.map((m) => [m, []]));
        for (let i = 0; i < Math.max(ctx.rounds, 1); i++)
          for (const mode of modes) rounds.get(mode)!.push(await round(servers.get(mode)!.s, servers.get(mode)!.id, seconds));
        const line = (mode: Mode) => {
          const rs = rounds.get(mode)!;
          return (
            `synchronous=${mode}: worst request per round ${rs.map((r) => r.worst).join(', ')} ms; ` +
            `creates/s ${rs.map((r) => fmt(r.createsPerSecond)).join(', ')}; event loop blocked at most ${fmt(Math.max(...rs.map((r) => r.loopMaxMs)), 1)} ms`
          );
        };
        return {
          ratio: Math.max(...rounds.get('FULL')!.map((r) => r.worst)),
          detail: `${STORE_LOAD.createConnections} connections of creates and ${STORE_LOAD.readConnections} of reads, ${rounds.get('FULL')!.length} rounds of ${seconds} s each\n  ${line('FULL')}\n  ${line('NORMAL')}`,
        };
      } finally {
        for (const { s } of servers.values()) await s.stop();
      }
    }),
};

if (process.argv[1] === SELF && process.argv[2] === 'serve') serve(process.argv[3]!, process.argv[4] as Mode);
