/**
 * The server of the `store-200k-latency` figure, in a process of its own as a deployment runs it,
 * on the compiled package (./shipped.ts)
 * (the load generator stays in the bench's process, so neither's heap or GC shows in the other's
 * numbers). Started by `spawnStoreServer` with `fork`:
 *
 *   store-server.ts serve <kind> <file>   serves the store of that kind on the file
 *   store-server.ts seed <file> <n>       writes a database file holding n settled transactions, exits
 *
 * Kind: `sqlite` (the embedded store; the file store it replaced was a second kind until it was
 * deleted, after the run of the comparison recorded in docs/storage.md). `serve` prints one JSON line (`{ base, openMs, readyMs, ...Memory }`, after a
 * full GC) and then answers IPC messages: `stats` → the event loop's worst and p99 delay and the
 * CPU time since the last `stats`, the resident memory after a full GC and after a last-resort
 * one (V8's page pool returned), and the stored count;
 * `stop` → closes the store and exits. `BENCH_SERVER_FLAGS` adds Node flags to the child.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_MERCHANTS, buildMerchants } from '../../reference-server/config.ts';
import type { TransactionRecord } from '../../reference-server/domain/types.ts';
import { writeSeededDataFile } from '../../reference-server/testing.ts';
import { buildShipped, importBuilt } from './shipped.ts';
import { startLineOf } from './tools.ts';

export type StoreKind = 'sqlite';

export interface ServerStats {
  /** Worst and p99 event-loop delay since the last `stats`, ms. */
  loopMaxMs: number;
  loopP99Ms: number;
  /** CPU time (user + system) the server used since the last `stats`, ms. */
  cpuMs: number;
  /** Worst and p99 time inside the server since the last `stats`, ms: a request's arrival (its headers parsed) to its answer's last byte handed to the socket. */
  serverMaxMs: number;
  serverP99Ms: number;
  /**
   * Resident memory after a full GC (`gc()`): V8 keeps the old-generation pages that GC freed in
   * a pool of its own, and the young generation at the size the load grew it to, so this
   * depends on the load just before it (up to ~150 MiB here), not only on what the process holds.
   */
  rssAfterGc: number;
  /** Resident memory after a last-resort GC (V8's gc extension): the pooled pages returned to the system, the young generation shrunk. */
  rss: number;
  /** V8's heap in use and committed after that GC. */
  heapUsed: number;
  heapCommitted: number;
  stored: number;
}

/** A server's memory (bytes). */
export interface Memory {
  rss: number;
  heapUsed: number;
  young: number;
}

type StartFigures = { base: string; openMs: number; readyMs: number } & Memory;

export interface StoreServer extends StartFigures {
  stats(): Promise<ServerStats>;
  stop(): Promise<void>;
}

/** A full GC that also returns V8's pooled pages to the system (`flavor: 'last-resort'` of V8's gc extension, `--expose-gc`). */
function lastResortGc(): void {
  (global.gc as unknown as (o: object) => void)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

function memoryNow(): Memory {
  const { rss, heapUsed } = process.memoryUsage();
  const young = getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.physical_space_size ?? 0;
  return { rss, heapUsed, young };
}

const SELF = fileURLToPath(import.meta.url);

/** `n` settled partner transactions of the first demo merchant, as a seeded store holds them. */
export function* seededTransactions(n: number): Generator<TransactionRecord> {
  const merchantId = buildMerchants([...DEMO_MERCHANTS])[0]!.id;
  const now = Date.now();
  const statuses = ['APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'] as const;
  for (let i = 0; i < n; i++) {
    const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const created = now - (n - i) * 60_000;
    yield {
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
    };
  }
}

/** Writes a database file holding `n` settled transactions of the first demo merchant. */
export async function seedDataFile(file: string, n: number): Promise<void> {
  await writeSeededDataFile(file, seededTransactions(n));
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

/** Writes a database file holding `n` settled transactions, in a child process. */
export async function seedInChild(file: string, n: number): Promise<void> {
  const code = await exitOf(start(['seed', file, String(n)]));
  if (code !== 0) throw new Error(`seeding ${file} exited ${String(code)}`);
}

/** Serves the `kind` store on `file` in a child process (the compiled package, ./shipped.ts). */
export async function spawnStoreServer(kind: StoreKind, file: string): Promise<StoreServer> {
  await buildShipped();
  const child = start(['serve', kind, file]);
  const first = await startLineOf<StartFigures>(child, `server on ${file}`);
  return {
    ...first,
    stats: () =>
      new Promise<ServerStats>((resolve) => {
        child.once('message', (m) => resolve(m as ServerStats));
        child.send({ cmd: 'stats' });
      }),
    async stop() {
      const exit = exitOf(child);
      child.send({ cmd: 'stop' });
      if ((await exit) !== 0) throw new Error(`server on ${file} did not stop cleanly`);
    },
  };
}

async function serve(file: string): Promise<void> {
  // the package as it ships (compiled by the parent before the fork); only this harness runs through tsx
  const [{ openSqliteRepository }, { createApp }, { serverConfig }, { systemClock }] = await Promise.all([
    importBuilt<typeof import('../../reference-server/store/sqlite/sqlite-repository.ts')>(
      'reference-server/store/sqlite/sqlite-repository.ts',
    ),
    importBuilt<typeof import('../../reference-server/app.ts')>('reference-server/app.ts'),
    importBuilt<typeof import('../../reference-server/config.ts')>('reference-server/config.ts'),
    importBuilt<typeof import('../../reference-server/domain/clock.ts')>('reference-server/domain/clock.ts'),
  ]);
  const t0 = performance.now();
  const repository = await openSqliteRepository({ file });
  const openMs = performance.now() - t0;
  const handle = await createApp({
    repository,
    clock: systemClock,
    config: serverConfig({ sweepIntervalMs: 3_600_000, log: () => {}, authFailureLimit: null }),
  });
  const server: Server = await new Promise((r) => {
    const s = handle.app.listen(0, '127.0.0.1', () => r(s));
  });
  const readyMs = performance.now() - t0;
  global.gc?.();
  await new Promise((r) => setTimeout(r, 500));
  global.gc?.();
  const atStart = memoryNow();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const inServer = createHistogram();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    const t = process.hrtime.bigint();
    res.once('finish', () => inServer.record(process.hrtime.bigint() - t || 1n));
  });
  let cpu = process.cpuUsage();
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'stats') {
      const loopMaxMs = loop.max / 1e6;
      const loopP99Ms = loop.percentile(99) / 1e6;
      const [serverMaxMs, serverP99Ms] = [inServer.count ? inServer.max / 1e6 : 0, inServer.count ? inServer.percentile(99) / 1e6 : 0];
      const cpuMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(cpu));
      void repository.count('transactions').then((stored) => {
        global.gc?.();
        const rssAfterGc = process.memoryUsage().rss;
        lastResortGc();
        const { rss, heapUsed } = process.memoryUsage();
        const heapCommitted = getHeapStatistics().total_physical_size;
        process.send!({
          loopMaxMs,
          loopP99Ms,
          cpuMs,
          serverMaxMs,
          serverP99Ms,
          rssAfterGc,
          rss,
          heapUsed,
          heapCommitted,
          stored,
        } satisfies ServerStats);
        loop.reset();
        inServer.reset();
        cpu = process.cpuUsage();
      });
    } else if (m.cmd === 'stop') {
      loop.disable();
      server.closeAllConnections();
      server.close(() => void handle.close().then(() => process.exit(0)));
    }
  });
  process.once('disconnect', () => process.exit(1)); // the bench went away: do not stay behind
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.stdout.write(`${JSON.stringify({ base, openMs, readyMs, ...atStart })}\n`);
}

if (process.argv[1] === SELF) {
  const [cmd, a, b] = process.argv.slice(2);
  if (cmd === 'seed' && a && b) {
    await seedDataFile(a, Number(b));
    process.exit(0);
  } else if (cmd === 'serve' && a === 'sqlite' && b) await serve(b);
  else {
    process.stderr.write('usage: store-server.ts seed <file> <n> | serve sqlite <file>\n');
    process.exit(2);
  }
}
