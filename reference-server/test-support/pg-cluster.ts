/**
 * A throwaway PostgreSQL cluster for tests and the bench, from the machine's PostgreSQL binaries
 * (`initdb`, `pg_ctl`): a temporary data folder, a free loopback port, trust authentication on
 * loopback only, removed on `stop()`. `PAYLATER_TEST_DATABASE_URL`, when set, is used instead
 * (then `stop()` leaves that server alone).
 *
 * `initdb` refuses to run as root, so when this process is root the binaries run as the
 * `postgres` system user (`runuser`), on a folder that user owns.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
  /** Stops the cluster without removing it (for outage tests); `start()` brings it back on the same port. */
  pause(): Promise<void>;
  start(): Promise<void>;
  /** Stops and removes the cluster (no-op for an external `PAYLATER_TEST_DATABASE_URL`). */
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

/** Starts a throwaway cluster (or adopts `PAYLATER_TEST_DATABASE_URL`). */
export async function startCluster(): Promise<Cluster> {
  const external = process.env.PAYLATER_TEST_DATABASE_URL;
  let counter = 0;
  const newName = () => `paylater_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  if (external) {
    return {
      url: external,
      createDatabase: (name = newName()) => createDatabase(external, name),
      pause: () => Promise.reject(new Error('an external PAYLATER_TEST_DATABASE_URL cannot be paused')),
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    };
  }
  const bin = findPostgresBin();
  const dir = mkdtempSync(path.join(tmpdir(), 'paylater-pg-'));
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
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c max_connections=200`;
  const logFile = path.join(dir, 'log');
  const start = () =>
    pgRun(path.join(bin, 'pg_ctl'), ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']).then(() => undefined);
  const pause = () => pgRun(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']).then(() => undefined);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
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
