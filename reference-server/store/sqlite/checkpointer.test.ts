/**
 * The checkpointer (ADR-047): under a steady stream of commits the log starts over again and
 * again, its file never past the `journal_size_limit`; the database file is synced before the
 * step that starts it over, and a failed sync skips that step; a worker that died is started
 * again, and closing does not wait for one that is gone.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { Checkpointer, LOG_SIZE_LIMIT, RESTART_FRAMES } from './checkpointer.ts';
import { configure } from './sqlite-file.ts';

const PAGE = 4096;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * A database file configured as the store's, with a table whose rows fill about one page each;
 * `fd`, the descriptor of the file a checkpointer syncs, and `close`, which closes the connection
 * and then that descriptor (as the store does).
 */
function database(): { db: DatabaseSync; file: string; fd: number; close: () => void } {
  const d = mkdtempSync(path.join(tmpdir(), 'paylater-checkpoint-'));
  dirs.push(d);
  const file = path.join(d, 'paylater.db');
  const db = new DatabaseSync(file);
  configure(db);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)');
  const fd = openSync(file, 'r+');
  return {
    db,
    file,
    fd,
    close: () => {
      db.close();
      closeSync(fd);
    },
  };
}

/** Commits of `rows` rows each, with a turn of the event loop between them (as the store's group commits), until `frames` log frames are written. */
async function commitFrames(db: DatabaseSync, checkpointer: Checkpointer, frames: number, file: string) {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const body = new Uint8Array(PAGE - 200);
  let written = 0;
  let largest = 0;
  while (written < frames) {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 2)); // the restart holds the write lock for a moment (as the store, off the event loop)
      }
    }
    for (let i = 0; i < 64; i++) insert.run(body);
    db.exec('COMMIT');
    written += 64;
    checkpointer.committed();
    largest = Math.max(largest, statSync(`${file}-wal`).size);
    await new Promise((r) => setTimeout(r, 1));
  }
  return largest;
}

/** The log's salts (header bytes 16–23): new ones each time a connection writes the log from its start after a restart. */
function logSalts(file: string): string {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const header = Buffer.alloc(32);
    readSync(fd, header, 0, 32, 0);
    return header.subarray(16, 24).toString('hex');
  } finally {
    closeSync(fd);
  }
}

/** Commits rows of about a page each until the log is past the restart threshold; the insert statement, for more. */
function logPastRestart(db: DatabaseSync) {
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const body = new Uint8Array(PAGE - 200);
  db.exec('BEGIN IMMEDIATE');
  for (let i = 0; i < RESTART_FRAMES + 256; i++) insert.run(body);
  db.exec('COMMIT');
  return insert;
}

const until = async (ok: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

describe('the checkpointer', () => {
  it('raises wantsLock while its last step waits for the write lock, and lowers it once the step is done', async () => {
    const { db, file, fd, close } = database();
    const checkpointer = new Checkpointer(file, fd);
    try {
      const insert = logPastRestart(db);
      const body = new Uint8Array(PAGE - 200);
      db.exec('BEGIN IMMEDIATE'); // the write lock held, as by the store's open batch
      insert.run(body);
      expect(checkpointer.wantsLock).toBe(false);
      checkpointer.committed();
      expect(await until(() => checkpointer.wantsLock, 10_000)).toBe(true); // the last step waits for the lock
      expect(checkpointer.restarts).toBe(0);
      db.exec('COMMIT'); // the batch committed: the step takes the lock, restarts the log, lets go
      expect(await until(() => checkpointer.restarts === 1, 10_000)).toBe(true);
      expect(checkpointer.wantsLock).toBe(false);
      expect(checkpointer.lastError).toBeNull();
    } finally {
      await checkpointer.close();
      close();
    }
  }, 60_000);

  it("writes the log's new header itself within its last step, so the store's next commit does not sync it on the event loop", async () => {
    const { db, file, fd, close } = database();
    const checkpointer = new Checkpointer(file, fd);
    try {
      const insert = logPastRestart(db);
      const body = new Uint8Array(PAGE - 200);
      const before = logSalts(file);
      checkpointer.committed();
      expect(await until(() => checkpointer.restarts === 1, 10_000)).toBe(true);
      expect(checkpointer.lastError).toBeNull();
      // no commit of the store's since the restart: the header was written by the worker's own commit
      expect(logSalts(file)).not.toBe(before);
      expect((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(0);
      insert.run(body); // the store's next commit appends after it
      expect((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n).toBe(RESTART_FRAMES + 257);
      expect(logSalts(file)).not.toBe(before);
    } finally {
      await checkpointer.close();
      close();
    }
  }, 60_000);

  it('syncs the database file before its last step, and takes no step when that sync fails', async () => {
    const { db, file, close } = database();
    // A descriptor number no process has open (the largest Node takes): its sync fails with EBADF,
    // as a sync the disk refuses would fail.
    const checkpointer = new Checkpointer(file, 2 ** 31 - 1);
    try {
      logPastRestart(db);
      checkpointer.committed();
      expect(await until(() => checkpointer.lastError !== null, 10_000)).toBe(true);
      expect(checkpointer.lastError).toMatch(/EBADF/);
      expect(checkpointer.restarts).toBe(0); // the log was not started over
      expect(checkpointer.wantsLock).toBe(false); // and the store was never held back for it
    } finally {
      await checkpointer.close();
      close();
    }
  }, 60_000);

  it('starts the log over under a steady stream of commits: the log file stays within its limit', async () => {
    const { db, file, fd, close } = database();
    const checkpointer = new Checkpointer(file, fd);
    try {
      // Four times the frames that trigger a restart: without one, the log would be 256 MiB and more.
      const largest = await commitFrames(db, checkpointer, 4 * RESTART_FRAMES + 1024, file);
      expect(checkpointer.restarts).toBeGreaterThanOrEqual(2);
      expect(checkpointer.lastError).toBeNull();
      expect(largest).toBeLessThanOrEqual(LOG_SIZE_LIMIT);
      expect(largest).toBeLessThan(4 * RESTART_FRAMES * PAGE);
      const rows = db.prepare('SELECT count(*) AS n FROM t').get() as { n: number };
      expect(rows.n).toBe(4 * RESTART_FRAMES + 1024);
    } finally {
      await checkpointer.close();
      close();
    }
  }, 120_000);

  it('starts a worker that died again at its next round, and closes without waiting for a dead one', async () => {
    const { db, file, fd, close } = database();
    const checkpointer = new Checkpointer(file, fd);
    const worker = () => (checkpointer as unknown as { worker: Worker }).worker;
    try {
      const first = worker();
      await first.terminate();
      await commitFrames(db, checkpointer, 512, file);
      expect(await until(() => worker() !== first, 2_000)).toBe(true);
      // The new worker checkpoints: the database file holds the rows once it has copied the log into it.
      await commitFrames(db, checkpointer, 64, file);
      expect(await until(() => checkpointer.lastError === null && statSync(file).size > 512 * PAGE, 3_000)).toBe(true);
      await worker().terminate();
    } finally {
      // The worker is gone: close resolves at once (it waited forever for an exit already past).
      await expect(
        Promise.race([checkpointer.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('hung'), 2_000))]),
      ).resolves.toBe('closed');
      close();
    }
  }, 60_000);
});
