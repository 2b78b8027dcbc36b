/**
 * A throwaway PostgreSQL cluster for tests and the bench, from the machine's PostgreSQL binaries
 * (`initdb`, `pg_ctl`): a temporary data folder, a free loopback port, trust authentication on
 * loopback only, removed on `stop()`. `PAYLATER_TEST_DATABASE_URL`, when set, is used instead
 * (then `stop()` leaves that server alone): reached through a TCP relay on a loopback port of
 * this process, so that `pause()` can still cut the database off for the outage tests (the relay
 * stops listening and drops every connection) and `start()` brings it back on the same port.
 *
 * Under vitest, one cluster serves the whole run (shared-cluster.ts, the global setup, sets
 * SHARED_CLUSTER_ENV to a folder): the first test file that calls `startCluster()` starts it
 * there, the others wait for its URL, and every file uses it as it would an external server
 * (each test takes fresh databases; `stop()` leaves the cluster to the global teardown). An
 * initdb costs about 1 s of CPU and 1.5–4 s of wall time, and 29 files of a run each made one;
 * the three files that stop their database (`pausable`) still do.
 *
 * `initdb` refuses to run as root, so when this process is root the binaries run as the
 * `postgres` system user (`runuser`), on a folder that user owns.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../lib/free-port.ts';

const run = promisify(execFile);

export interface Cluster {
  /** `postgres://…` of the cluster's `postgres` database. */
  url: string;
  /** A URL for a fresh, empty database of this cluster. */
  createDatabase(name?: string): Promise<string>;
  /**
   * Stops the cluster without removing it (for outage tests); `start()` brings it back on the same port.
   * For an external `PAYLATER_TEST_DATABASE_URL`, the relay in front of it stops instead. Only a
   * cluster started with `{ pausable: true }` can be paused under vitest (the run's shared one cannot).
   */
  pause(): Promise<void>;
  start(): Promise<void>;
  /** Stops and removes the cluster (no-op for an external `PAYLATER_TEST_DATABASE_URL` and the run's shared cluster). */
  stop(): Promise<void>;
}

/** The folder of the newest installed PostgreSQL's binaries (Debian: /usr/lib/postgresql/<major>/bin). */
export function findPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^\d+$/.test(d))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const m of majors) if (existsSync(path.join(root, m, 'bin', 'initdb'))) return path.join(root, m, 'bin');
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return path.dirname(which.stdout.trim());
  throw new Error(
    "PostgreSQL's initdb was not found: install Debian's postgresql (apt-get install -y postgresql) or set PAYLATER_TEST_DATABASE_URL",
  );
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
async function pgRun(bin: string, args: string[]): Promise<string> {
  const asRoot = userInfo().uid === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  try {
    const { stdout } = await run(cmd, argv, { encoding: 'utf8' });
    return stdout;
  } catch (e) {
    const err = e as Error & { stderr?: string; stdout?: string };
    throw new Error(`${path.basename(bin)} ${args.join(' ')} failed: ${err.stderr || err.stdout || err.message}`, { cause: e });
  }
}

/** The folder of the run's one shared cluster (set by shared-cluster.ts, vitest's global setup). */
export const SHARED_CLUSTER_ENV = 'PAYLATER_TEST_SHARED_CLUSTER';

/**
 * Starts a throwaway cluster (or adopts `PAYLATER_TEST_DATABASE_URL`, or the run's shared one).
 * `pausable`: the file cuts the database off (`pause()`). An external server is then reached
 * through a relay of the file's own, which `pause()` stops; the shared one cannot be stopped under
 * the other files, so such a file starts its own cluster as outside vitest, and its outage stays
 * a real server shutdown (its clients see PostgreSQL's admin_shutdown, then refused connections).
 */
export async function startCluster(opts: { pausable?: boolean } = {}): Promise<Cluster> {
  const external = process.env.PAYLATER_TEST_DATABASE_URL;
  const shared = external || opts.pausable ? undefined : process.env[SHARED_CLUSTER_ENV];
  let counter = 0;
  const newName = () => `paylater_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  if (shared) {
    const server = await sharedClusterUrl(shared);
    return {
      url: server,
      createDatabase: (name = newName()) => createDatabase(server, name),
      pause: () => Promise.reject(new Error('startCluster({ pausable: true }) for a cluster a test pauses')),
      start: async () => {},
      // the cluster is the run's: the global teardown stops it
      stop: async () => {},
    };
  }
  if (external) {
    const relay = await startRelay(external);
    return {
      url: relay.url,
      createDatabase: (name = newName()) => createDatabase(relay.url, name),
      pause: () => relay.pause(),
      start: () => relay.start(),
      stop: () => relay.pause(),
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'paylater-pg-'));
  const { url, start, pause } = await startServerIn(dir, 200);
  let running = true;
  return {
    url,
    createDatabase: (name = newName()) => createDatabase(url, name),
    async pause() {
      await pause();
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async stop() {
      try {
        if (running) await pause();
      } finally {
        running = false;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * initdb and a started server in `dir` (owned by the `postgres` user when this process is root):
 * its `postgres` database's URL, and how to start and stop it again.
 */
async function startServerIn(
  dir: string,
  maxConnections: number,
): Promise<{ url: string; start: () => Promise<void>; pause: () => Promise<void> }> {
  const bin = findPostgresBin();
  const data = path.join(dir, 'data');
  if (userInfo().uid === 0) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (ids.status !== 0) throw new Error('running as root needs the postgres system user (Debian creates it with the postgresql package)');
    chownSync(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
  }
  const port = await freePort();
  await pgRun(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  // Loopback only, no Unix socket outside the folder, fsync on (the store's durability is under test).
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c max_connections=${maxConnections}`;
  const logFile = path.join(dir, 'log');
  const start = () =>
    pgRun(path.join(bin, 'pg_ctl'), ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']).then(() => undefined);
  const pause = () => pgRun(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']).then(() => undefined);
  await start();
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, start, pause };
}

/**
 * The files of the shared cluster's folder: who starts it, the cluster's own folder (a temporary
 * folder of its own, which the `postgres` user can reach), its URL once it runs, or why it could not start.
 */
const SHARED = { lock: 'starting', cluster: 'cluster-dir', url: 'url', error: 'error' } as const;

/**
 * The URL of the run's shared cluster in `dir`: the first caller (of any test file) takes the lock
 * and starts it; the others wait for its URL (or its error). Two test files at a time, and more
 * with their servers, share it: max_connections 400.
 */
async function sharedClusterUrl(dir: string): Promise<string> {
  const urlFile = path.join(dir, SHARED.url);
  const errorFile = path.join(dir, SHARED.error);
  let owner = false;
  try {
    mkdirSync(path.join(dir, SHARED.lock));
    owner = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (owner) {
    try {
      const clusterDir = mkdtempSync(path.join(tmpdir(), 'paylater-pg-'));
      writeFileSync(path.join(dir, SHARED.cluster), clusterDir);
      const { url } = await startServerIn(clusterDir, 400);
      writeFileSync(`${urlFile}.tmp`, url);
      renameSync(`${urlFile}.tmp`, urlFile);
      return url;
    } catch (e) {
      writeFileSync(errorFile, (e as Error).message);
      throw e;
    }
  }
  const until = Date.now() + 120_000;
  for (;;) {
    if (existsSync(urlFile)) return readFileSync(urlFile, 'utf8');
    if (existsSync(errorFile)) throw new Error(`the shared test cluster did not start: ${readFileSync(errorFile, 'utf8')}`);
    if (Date.now() > until) throw new Error(`the shared test cluster in ${dir} did not start within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops the shared cluster of `dir` if a test file started it, and removes the folder (the global teardown). */
export async function stopSharedCluster(dir: string): Promise<void> {
  const clusterFile = path.join(dir, SHARED.cluster);
  const clusterDir = existsSync(clusterFile) ? readFileSync(clusterFile, 'utf8') : undefined;
  try {
    if (clusterDir && existsSync(path.join(clusterDir, 'data', 'postmaster.pid')))
      await pgRun(path.join(findPostgresBin(), 'pg_ctl'), ['-D', path.join(clusterDir, 'data'), '-m', 'fast', '-w', 'stop']);
  } finally {
    if (clusterDir) rmSync(clusterDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A TCP relay on 127.0.0.1 to the server of `url` (host and port; 5432 by default): `url` with
 * the relay's address, and `pause()` (stop listening, drop every connection: the server looks
 * down to its clients) / `start()` (listen again on the same port).
 */
async function startRelay(url: string): Promise<{ url: string; pause(): Promise<void>; start(): Promise<void> }> {
  const target = new URL(url);
  if (!target.hostname) throw new Error('PAYLATER_TEST_DATABASE_URL must name a TCP host (postgres://user@host:port/db)');
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(target.port || 5432);
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  let server: Server | null = null;
  const listen = (on: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect({ host, port });
        track(client);
        track(upstream);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(on, '127.0.0.1', () => {
        server = s;
        resolve((s.address() as { port: number }).port);
      });
    });
  const relayPort = await listen(0);
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relayPort);
  return {
    url: relayed.toString(),
    async pause() {
      const s = server;
      server = null;
      for (const sock of sockets) sock.destroy();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      if (!server) await listen(relayPort);
    },
  };
}

/** Creates database `name` on the server of `url` and returns its URL. */
async function createDatabase(url: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
