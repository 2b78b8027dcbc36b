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
 * `TRUNCATE_FRAMES` follows with a `TRUNCATE` checkpoint, which holds new commits back for the
 * little left to copy and empties the log. A commit that finds the database held by it waits off
 * the event loop and tries again (`SqliteRepository`).
 */
import { Worker } from 'node:worker_threads';

/** The worker: one connection, one passive checkpoint per message, its result posted back. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.file, { timeout: 5000 });
db.exec('PRAGMA synchronous = NORMAL');
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const truncate = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  try {
    let r = passive.get();
    if (r.log > workerData.truncateFrames) r = truncate.get();
    parentPort.postMessage({ ok: true, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String(e && e.message) });
  }
});
`;

/** How often a checkpoint runs while there are commits it has not copied (ms). */
const EVERY_MS = 250;
/**
 * Log frames (pages of 4 KiB) past which a round empties the log: 16,384 (64 MiB, the
 * `journal_size_limit`). At 4,096 the `TRUNCATE` step, which holds commits back, ran about twice
 * as often under B1 load (busy `BEGIN IMMEDIATE` attempts 633 against 359 for ~5,570 group
 * commits from 6,000 to 50,000 stored, side by side; docs/storage.md).
 */
const TRUNCATE_FRAMES = 16_384;

export class Checkpointer {
  private readonly worker: Worker;
  private running = false;
  private pending = false;
  private readonly timer: NodeJS.Timeout;
  /** The last checkpoint's failure, if it failed (kept for diagnostics; the next one tries again). */
  lastError: string | null = null;

  constructor(file: string) {
    this.worker = new Worker(WORKER, { eval: true, workerData: { file, truncateFrames: TRUNCATE_FRAMES } });
    this.worker.unref();
    this.worker.on('message', (m: { ok: boolean; error?: string }) => {
      this.running = false;
      this.lastError = m.ok ? null : (m.error ?? 'checkpoint failed');
    });
    this.worker.on('error', (e: Error) => {
      this.lastError = e.message;
    });
    this.timer = setInterval(() => this.run(), EVERY_MS);
    this.timer.unref();
  }

  /** Notes a commit: the next tick copies it into the file. */
  committed(): void {
    this.pending = true;
  }

  private run(): void {
    if (!this.pending || this.running) return;
    this.pending = false;
    this.running = true;
    this.worker.postMessage('checkpoint');
  }

  /** Stops the worker (its connection closed) before the store's connection closes. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.worker.ref(); // keeps the process up until the worker has closed its connection
    const exited = new Promise<void>((r) => this.worker.once('exit', () => r()));
    this.worker.postMessage('close');
    await exited;
  }
}
