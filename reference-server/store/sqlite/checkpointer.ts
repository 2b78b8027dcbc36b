/**
 * Checkpoints of the store's database file off the event loop (ADR-047): a worker thread with a
 * connection of its own copies committed pages from the log into the file and syncs it. The
 * committing connection has no automatic checkpoint: one ran on the commit that passed 1,000
 * pages, on the event loop, with two syncs (hundreds of ms on a busy disk).
 *
 * Each round (every 250 ms while there are commits) is a `PASSIVE` checkpoint: it copies what is
 * committed while commits go on. The log starts over only once a checkpoint has copied all of it
 * before the next commit, which a steady stream of commits never allows: it then grows without
 * bound (2.4 GB in the first minute of the bench). So a round that leaves the log longer than
 * `RESTART_FRAMES` ends with a `RESTART` checkpoint, which takes the write lock, copies what is
 * left, syncs the file and makes the next commit write the log from its start. While that step
 * waits for the write lock or holds it, `wantsLock` is true (memory shared with the worker): the
 * store commits its open batch at once and opens the next only after the step (off the event
 * loop, `SqliteRepository`). Without it the step polled for a gap between the store's batches,
 * which are held open while the log syncs: it waited up to 549 ms at 200,000 stored while the
 * log grew to 27,000 frames, and 31 ms at most with it (`store-200k-latency`, instrumented). The
 * step holds commits back, so it is kept short:
 * - before it, `PASSIVE` rounds run again while they leave more than `LEFT_FRAMES` to copy (each
 *   copies what commits added during the previous one, a shorter stretch each time);
 * - `RESTART`, not `TRUNCATE`: the log is overwritten in place, not cut to zero and grown again.
 *   `npm run bench -- checkpoint-hold` (this checkpointer, the store's schema, quiet): commits
 *   held at most 102 ms with `TRUNCATE` against 93 ms with `RESTART` (v4 ids), 95 against 51 ms
 *   with ADR-058's v7 ids (docs/storage.md). The log's `journal_size_limit` (sqlite-file.ts) is above the frames a
 *   round reaches, so SQLite does not cut it either when the next commit writes it from its start.
 * - The first commit after the restart is the worker's own, still within the step: it rewrites
 *   the database header's `user_version` with the value it has (the store does not use it), so
 *   the worker's connection writes the log's new header. SQLite syncs that header before any frame
 *   follows it (`synchronous` other than `OFF`: an out-of-order write after a restart could
 *   otherwise corrupt the database at a power loss). Left to the store's next commit, that sync
 *   ran on the event loop, once per restart: a kernel trace of `store-200k-latency` (`perf
 *   sched`) showed the server's main thread blocked 34 ms in it. The figure's own runs (quiet,
 *   docs/performance.md): worst request per round median 41.5 ms in six runs against 51.5 ms in
 *   four of the code before, but each run's worst 36–73 ms against 50–69 ms, so no clear gain in
 *   the figure itself: the event loop is kept free of a sync, the tail has other causes too.
 * - Just before the step, outside the write lock, the worker syncs the database file itself
 *   (`fileFd`). A passive round syncs the file only when it has copied the whole log, which under
 *   a steady stream of commits it never has: everything the rounds copied since the last step
 *   (4,860 pages, 19 MB, about a second of creates at 6,000/s) was left to the step's own sync,
 *   18–25 ms with the write lock held (`strace` of the worker). Synced first, the step's sync has
 *   only the pages it copies itself: `npm run bench -- checkpoint-hold` (the store's
 *   configuration, quiet) held commits at most 24.7 ms against 34.6 ms, with 1–5 holds over 10 ms
 *   per round against 25–27 (docs/storage.md). The worst request of the store's figures did not
 *   move measurably with it. A failed sync skips the step: the log is not started over while the
 *   file may not hold what it copied.
 */
import { Worker } from 'node:worker_threads';

/** The worker: one connection; per message, passive rounds, then a restart when the log is long; the last result posted back. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.file, { timeout: 5000 });
db.exec('PRAGMA synchronous = NORMAL');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(' + workerData.lastStep + ')');
const userVersion = db.prepare('PRAGMA user_version').get().user_version;
const wants = new Int32Array(workerData.wants);
const { fdatasyncSync } = require('node:fs');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  try {
    let r = passive.get();
    for (let i = 0; i < workerData.catchUpRounds && r.log > workerData.restartFrames && r.log - r.checkpointed > workerData.leftFrames; i++) r = passive.get();
    let restarted = false;
    if (r.log > workerData.restartFrames) {
      fdatasyncSync(workerData.fileFd); // what the passive rounds copied, synced outside the write lock (a failure: no step)
      Atomics.store(wants, 0, 1);
      try {
        r = restart.get();
        restarted = r.busy === 0;
        // the log's new header written and synced here, not by the store's next commit on the event loop
        if (restarted) {
          try { db.exec('BEGIN IMMEDIATE; PRAGMA user_version = ' + userVersion + '; COMMIT'); }
          catch (e) { try { db.exec('ROLLBACK'); } catch {} throw e; } // (a full disk) nothing held; the store's next commit writes the header then
        }
      } finally { Atomics.store(wants, 0, 0); }
    }
    parentPort.postMessage({ ok: true, busy: r.busy, log: r.log, checkpointed: r.checkpointed, restarted });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String(e && e.message) });
  }
});
`;

/** How often a checkpoint runs while there are commits it has not copied (ms). */
const EVERY_MS = 250;
/**
 * Log frames (pages of 4 KiB) past which a round makes the log start over: 16,384 (64 MiB). At
 * 4,096 the step that holds commits back ran about twice as often under B1 load (busy `BEGIN
 * IMMEDIATE` attempts 633 against 359 for ~5,570 group commits from 6,000 to 50,000 stored, side
 * by side; docs/storage.md).
 */
export const RESTART_FRAMES = 16_384;
/**
 * The log's `journal_size_limit` (bytes): four times what a round lets it reach, so that the
 * commit after a restart does not cut it (a burst that outgrew it is cut back to it).
 */
export const LOG_SIZE_LIMIT = 4 * RESTART_FRAMES * 4096;
/** Frames a passive round may leave uncopied before the restart takes the write lock for them. */
const LEFT_FRAMES = 512;
/** At most this many extra passive rounds (a disk slower than the commits never catches up). */
const CATCH_UP_ROUNDS = 4;

export class Checkpointer {
  private worker: Worker;
  private running = false;
  private pending = false;
  private exited = false;
  private closing = false;
  private readonly timer: NodeJS.Timeout;
  /** The last checkpoint's failure, if it failed (kept for diagnostics; the next one tries again). */
  lastError: string | null = null;
  /** Rounds that made the log start over, for tests and diagnostics. */
  restarts = 0;
  /** 1 while the worker waits for the write lock for its restart step or holds it (shared with the worker). */
  private readonly wants = new Int32Array(new SharedArrayBuffer(4));

  /**
   * True while the last step waits for the database's write lock or holds it: the store then
   * commits its open batch at once and opens no other until the step is done, so the step gets
   * the lock as soon as the batch's transactions are applied instead of polling for a gap
   * between batches (SQLite's busy handler) while the log grows.
   */
  get wantsLock(): boolean {
    return Atomics.load(this.wants, 0) === 1;
  }

  /**
   * `fileFd`: a descriptor of the database file open for writing, which the worker syncs; its owner
   * closes it after the last connection to the file has closed (closing any descriptor of a file
   * drops every POSIX lock the process holds on it, SQLite's included). `lastStep`: the checkpoint
   * that makes the log start over. The store uses `RESTART`; `TRUNCATE`, its step before, is kept
   * for `npm run bench -- checkpoint-hold`, which compares them.
   */
  constructor(
    private readonly file: string,
    private readonly fileFd: number,
    private readonly lastStep: 'RESTART' | 'TRUNCATE' = 'RESTART',
  ) {
    this.worker = this.start();
    this.timer = setInterval(() => this.run(), EVERY_MS);
    this.timer.unref();
  }

  private start(): Worker {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        file: this.file,
        fileFd: this.fileFd,
        lastStep: this.lastStep,
        restartFrames: RESTART_FRAMES,
        leftFrames: LEFT_FRAMES,
        catchUpRounds: CATCH_UP_ROUNDS,
        wants: this.wants.buffer,
      },
    });
    worker.unref();
    this.exited = false;
    worker.on('message', (m: { ok: boolean; error?: string; restarted?: boolean }) => {
      this.running = false;
      this.lastError = m.ok ? null : (m.error ?? 'checkpoint failed');
      if (m.restarted) this.restarts += 1;
    });
    worker.on('error', (e: Error) => {
      this.lastError = e.message;
    });
    // A worker that died (its connection failed to open, it ran out of memory) is started again at
    // the next round: without checkpoints the log would grow without bound.
    worker.on('exit', () => {
      Atomics.store(this.wants, 0, 0); // a worker that died in its last step holds nothing
      this.exited = true;
      this.running = false;
      if (!this.closing) this.pending = true;
    });
    return worker;
  }

  /** Notes a commit: the next tick copies it into the file. */
  committed(): void {
    this.pending = true;
  }

  private run(): void {
    if (!this.pending || this.running || this.closing) return;
    if (this.exited) this.worker = this.start();
    this.pending = false;
    this.running = true;
    this.worker.postMessage('checkpoint');
  }

  /** Stops the worker (its connection closed) before the store's connection closes. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    if (this.exited) return;
    this.worker.ref(); // keeps the process up until the worker has closed its connection
    const exited = new Promise<void>((r) => this.worker.once('exit', () => r()));
    this.worker.postMessage('close');
    await exited;
  }
}
