/**
 * An exclusive lock on a data file: `<file>.lock`, created with `open(…, 'wx')` and holding
 * the owner's pid, host and start time. A second process finds it and refuses to start,
 * naming the file and the holder. A lock whose process is gone (killed with -9) is stale:
 * it is taken over under a short-lived `<file>.lock.takeover` guard, after reading it again,
 * so two starting processes never both take it. The lock is removed on close and on exit.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import os from 'node:os';

export class DataFileLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holder: LockOwner,
  ) {
    super(
      `The data file ${file} is in use by process ${holder.pid} on ${holder.host} (started ${holder.startedAt}); ` +
        `stop that process or start this one with another --data file. Lock file: ${file}.lock`,
    );
    this.name = 'DataFileLockedError';
  }
}

export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

export interface DataFileLock {
  readonly path: string;
  /** Removes the lock file if it is still this process's. */
  release(): Promise<void>;
}

/** The locks this process holds (lock path → content), removed on exit if not released before. */
const heldLocks = new Map<string, string>();
let exitHookInstalled = false;

/** A takeover guard older than this was left by a process killed mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;

function isAlive(pid: number): boolean {
  if (pid === process.pid) return false; // a restarted container may reuse the pid; this process holds no lock yet
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    return typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.startedAt === 'string' ? (o as LockOwner) : null;
  } catch {
    return null;
  }
}

async function create(lockPath: string, text: string): Promise<boolean> {
  try {
    const fh = await open(lockPath, 'wx', 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

async function readOrNull(p: string): Promise<string | null> {
  try {
    return await readFile(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** True when `owner`'s process is gone. */
function isStale(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return false; // another host's process cannot be checked: never taken over
  return !isAlive(owner.pid);
}

/** A lock file that does not parse yet may be being written: it counts as torn only once this old. */
const TORN_AFTER_MS = 2_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ageOf = (p: string) =>
  stat(p).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );

/** Takes the lock of data file `file` (an absolute path), or throws `DataFileLockedError`. */
export async function lockDataFile(file: string): Promise<DataFileLock> {
  const lockPath = `${file}.lock`;
  const guardPath = `${lockPath}.takeover`;
  const ours = heldLocks.get(lockPath);
  if (ours !== undefined) throw new DataFileLockedError(file, parseOwner(ours)!);
  const mine: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  const text = JSON.stringify(mine);
  const deadline = Date.now() + TAKEOVER_STALE_MS + TORN_AFTER_MS;
  while (Date.now() < deadline) {
    if (await create(lockPath, text)) return held(lockPath, text);
    const seen = await readOrNull(lockPath);
    if (seen === null) continue; // released meanwhile
    const owner = parseOwner(seen);
    if (owner === null && (await ageOf(lockPath)) < TORN_AFTER_MS) {
      await sleep(50); // its owner may still be writing it
      continue;
    }
    if (owner !== null && !isStale(owner)) throw new DataFileLockedError(file, owner);
    // Stale: take it over under the guard, reading it again there.
    if (!(await create(guardPath, text))) {
      if ((await ageOf(guardPath)) > TAKEOVER_STALE_MS) await unlink(guardPath).catch(() => {});
      else await sleep(50);
      continue;
    }
    try {
      if ((await readOrNull(lockPath)) === seen) await unlink(lockPath);
    } finally {
      await unlink(guardPath).catch(() => {});
    }
  }
  const seen = await readOrNull(lockPath);
  throw new DataFileLockedError(file, (seen === null ? null : parseOwner(seen)) ?? { pid: -1, host: 'unknown', startedAt: 'unknown' });
}

function releaseAllOnExit(): void {
  for (const [lockPath, text] of heldLocks) {
    try {
      if (readFileSync(lockPath, 'utf8') === text) unlinkSync(lockPath);
    } catch {
      // already gone
    }
  }
}

function held(lockPath: string, text: string): DataFileLock {
  heldLocks.set(lockPath, text);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', releaseAllOnExit);
  }
  return {
    path: lockPath,
    async release() {
      if (heldLocks.get(lockPath) !== text) return;
      heldLocks.delete(lockPath);
      if ((await readOrNull(lockPath)) === text) await unlink(lockPath);
    },
  };
}
