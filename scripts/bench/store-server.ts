/**
 * The server of the `store-200k-latency` figure, in a process of its own as a deployment runs it
 * (the load generator stays in the bench's process, so neither's heap or GC shows in the other's
 * numbers). Started by `spawnStoreServer` with `fork`:
 *
 *   store-server.ts seed <file> <n>   writes a data file holding n settled transactions, exits
 *   store-server.ts fill <file> <headroom>
 *                                     adds a journal that `headroom` more bytes make the server fold
 *                                     (so a fold runs inside the measurement), exits
 *   store-server.ts serve <file>      serves it, folding every `FOLD_AFTER_BYTES` of journal
 *
 * `serve` prints one JSON line (`{ base, ...Memory }`, after a full GC) and then answers IPC
 * messages: `stats` → the event loop's worst and p99 delay since the last `stats` (ms) and the
 * resident memory; `memory` → `Memory` now (no GC forced); `stop` → closes the store (a final
 * fold) and exits.
 * `BENCH_SERVER_FLAGS` adds Node flags to the child (e.g. `--trace-gc`, `--cpu-prof`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../reference-server/app.ts';
import { serverConfig } from '../../reference-server/config.ts';
import { systemClock } from '../../reference-server/domain/clock.ts';
import { statSync } from 'node:fs';
import { openFileStore } from '../../reference-server/store/file-persistence.ts';
import { FOLD_JOURNAL_SHARE } from '../../reference-server/store/store.ts';
import { LocalRepository } from '../../reference-server/store/local-repository.ts';
import type { Change } from '../../reference-server/domain/types.ts';
import { startTestServer } from '../../reference-server/testing.ts';

/** Journal bytes between folds during the run (small, so folds happen while it is measured). */
export const FOLD_AFTER_BYTES = 4 * 1024 * 1024;

export interface ServerStats {
  /** Worst and p99 event-loop delay since the last `stats`, ms. */
  loopMaxMs: number;
  loopP99Ms: number;
  /** The longest journal write (append + fsync) since the last `stats`, ms. */
  slowestWriteMs: number;
  /** CPU time (user + system) the server used since the last `stats`, ms. */
  cpuMs: number;
  /** Folds started since the last `stats`. */
  folds: number;
  rss: number;
  stored: number;
}

/** A server's memory (bytes). */
export interface Memory {
  /** Resident memory. */
  rss: number;
  /** The JS heap in use. */
  heapUsed: number;
  /** The young generation's resident size (what the start's allocation grew it to, until V8 shrinks it). */
  young: number;
}

type StartFigures = { base: string } & Memory;

/** A server as it is right after start, after a full GC (`Memory`), and its controls. */
export interface StoreServer extends Memory {
  base: string;
  stats(): Promise<ServerStats>;
  /** Its memory now, without forcing a GC. */
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

function memoryNow(): Memory {
  const { rss, heapUsed } = process.memoryUsage();
  const young = getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.physical_space_size ?? 0;
  return { rss, heapUsed, young };
}

const SELF = fileURLToPath(import.meta.url);

/**
 * Writes a data file holding `n` settled partner transactions of the first merchant: a server on
 * that file takes them through its store (one commit) and folds them into the file on close.
 */
export async function seedDataFile(file: string, n: number): Promise<void> {
  const s = await startTestServer({ dataFile: file, webhookDispatcherFactory: null, sweepIntervalMs: 3_600_000 });
  try {
    const merchantId = s.merchants[0]!.id;
    const now = Date.now();
    const statuses = ['APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'] as const;
    const changes: Change[] = [];
    for (let i = 0; i < n; i++) {
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
      const created = now - (n - i) * 60_000;
      changes.push({
        c: 'transactions',
        k: id,
        v: {
          id,
          kind: 'partner',
          merchantId,
          orderReference: `ORD-${i.toString(36).toUpperCase().padStart(10, '0')}`,
          vendorReference: `SEED-${i}`,
          status: statuses[i % statuses.length]!,
          totalCentimes: 129950,
          currency: 'MAD',
          customerPhone: '212612345678',
          items: [
            {
              id: `10000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
              name: 'Wireless headphones',
              reference: 'SKU-100',
              quantity: 1,
              unitPriceCentimes: 129950,
              categoryId: 42,
            },
          ],
          createdAt: new Date(created).toISOString(),
          updatedAt: new Date(created + 1000).toISOString(),
          expiresAt: new Date(created + 1_800_000).toISOString(),
          approvedAt: null,
          expiredAt: null,
          sessionId: null,
          paymentIntentId: null,
        },
      });
    }
    await s.handle.core.repo.transaction(async (tx) => tx.write(changes));
  } finally {
    await s.close();
  }
}

function start(args: string[]): ChildProcess {
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter(Boolean);
  return fork(SELF, args, {
    execArgv: ['--import', 'tsx', '--expose-gc', ...flags],
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (c) => r(c))));
}

/**
 * Leaves a journal beside `file` that `headroom` more bytes take past the server's fold threshold
 * (half the data file, or `FOLD_AFTER_BYTES`): the seeded records rewritten (a later `updatedAt`),
 * as a server would have journaled them, and not folded (the store is abandoned, as in a crash).
 */
async function fillJournal(file: string, headroom: number): Promise<void> {
  const target = Math.max(FOLD_AFTER_BYTES, statSync(file).size * FOLD_JOURNAL_SHARE) - headroom;
  const store = await openFileStore(file, { compactAfterBytes: Number.POSITIVE_INFINITY });
  try {
    const ids = [...store.values('transactions')].map((t) => t.id);
    for (let i = 0; store.journalBytes() < target; i += 500) {
      const batch: Change[] = [];
      for (let j = i; j < i + 500; j++) {
        const t = store.get('transactions', ids[j % ids.length]!)!;
        batch.push({
          c: 'transactions',
          k: t.id,
          v: { ...t, updatedAt: new Date(Date.parse(t.updatedAt ?? t.createdAt) + 1000).toISOString() },
        });
      }
      await store.commit(batch);
    }
  } finally {
    await store.abandon();
  }
}

/** Writes a data file holding `n` settled transactions, in a child process. */
export async function seedInChild(file: string, n: number): Promise<void> {
  const code = await exitOf(start(['seed', file, String(n)]));
  if (code !== 0) throw new Error(`seeding ${file} exited ${String(code)}`);
}

/** Adds a journal to `file` that `headroom` more bytes take past the fold threshold, in a child process. */
export async function fillJournalInChild(file: string, headroom: number): Promise<void> {
  const code = await exitOf(start(['fill', file, String(headroom)]));
  if (code !== 0) throw new Error(`filling the journal of ${file} exited ${String(code)}`);
}

/** Serves `file` in a child process. */
export async function spawnStoreServer(file: string): Promise<StoreServer> {
  const child = start(['serve', file]);
  const first = await new Promise<StartFigures>((resolve, reject) => {
    // Its first JSON line; any other output (e.g. --trace-gc's) goes on to stderr.
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"base"')) resolve(JSON.parse(line) as StartFigures);
        else process.stderr.write(`${line}\n`);
      }
    });
    child.once('exit', (c) => reject(new Error(`server on ${file} exited ${String(c)}`)));
  });
  const ask = <T>(cmd: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      child.send({ cmd });
    });
  return {
    ...first,
    stats: () => ask<ServerStats>('stats'),
    memory: () => ask<Memory>('memory'),
    async stop() {
      const exit = exitOf(child);
      child.send({ cmd: 'stop' });
      if ((await exit) !== 0) throw new Error(`server on ${file} did not stop cleanly`);
    },
  };
}

async function serve(file: string): Promise<void> {
  const store = await openFileStore(file, { compactAfterBytes: FOLD_AFTER_BYTES });
  const handle = await createApp({
    repository: new LocalRepository(store),
    clock: systemClock,
    config: serverConfig({ sweepIntervalMs: 3_600_000, log: () => {}, authFailureLimit: null }),
  });
  const server: Server = await new Promise((r) => {
    const s = handle.app.listen(0, '127.0.0.1', () => r(s));
  });
  // Memory as it stays: after a full GC, and another once the GC's background freeing (of the data
  // file's buffer, among others) is done, so the figure does not depend on when that thread ran.
  global.gc?.();
  await new Promise((r) => setTimeout(r, 500));
  global.gc?.();
  const atStart = memoryNow();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let cpu = process.cpuUsage();
  let folds = store.folds;
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'stats') {
      const stats: ServerStats = {
        loopMaxMs: loop.max / 1e6,
        loopP99Ms: loop.percentile(99) / 1e6,
        slowestWriteMs: store.slowestWriteMs,
        cpuMs: (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu)),
        folds: store.folds - folds,
        rss: process.memoryUsage().rss,
        stored: store.count('transactions'),
      };
      loop.reset();
      cpu = process.cpuUsage();
      folds = store.folds;
      store.slowestWriteMs = 0;
      process.send!(stats);
    } else if (m.cmd === 'memory') process.send!(memoryNow());
    else if (m.cmd === 'stop') {
      loop.disable();
      server.closeAllConnections();
      server.close(() => void handle.close().then(() => process.exit(0)));
    }
  });
  process.once('disconnect', () => process.exit(1)); // the bench went away: do not stay behind
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.stdout.write(`${JSON.stringify({ base, ...atStart })}\n`);
}

if (process.argv[1] === SELF) {
  const [cmd, file, n] = process.argv.slice(2);
  if (cmd === 'seed' && file && n) {
    await seedDataFile(file, Number(n));
    process.exit(0);
  } else if (cmd === 'fill' && file && n) {
    await fillJournal(file, Number(n));
    process.exit(0);
  } else if (cmd === 'serve' && file) await serve(file);
  else {
    process.stderr.write('usage: store-server.ts seed <file> <n> | fill <file> <headroom> | serve <file>\n');
    process.exit(2);
  }
}
