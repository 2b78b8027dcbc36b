/**
 * The embedded store's durability (ADR-047): a commit is answered once an `fdatasync` of the
 * database's log has covered it, one sync for all the commits made before it starts, run off the
 * event loop (`sqlite-repository.ts` groups commits around it).
 */
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Syncs a database file's log (`<file>-wal`) after commits, one `fdatasync` for all the commits
 * made before it starts. `settled` is called (as a task of its own, never between the steps of a
 * transaction) when a sync ends: the repository then commits the batch it held open meanwhile.
 */
export class LogSync {
  private fh: FileHandle | null = null;
  /** Commits not covered by a sync started yet. */
  private dirty = false;
  private inflight: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(
    private readonly file: string,
    private readonly settled: () => void,
  ) {}

  /** True while a sync runs. */
  get syncing(): boolean {
    return this.inflight !== null;
  }

  /** Notes a commit. */
  committed(): void {
    this.dirty = true;
  }

  /** Resolves once every commit made so far is on disk. */
  durable(): Promise<void> {
    if (!this.dirty) return this.inflight ?? Promise.resolve();
    if (!this.inflight) return this.start();
    // A sync runs that does not cover the latest commits: the next starts when it ends (unless
    // the commit made when it ended has started one that covers them).
    return (this.next ??= this.inflight
      .catch(() => undefined)
      .then(() => {
        this.next = null;
        return this.durable();
      }));
  }

  private start(): Promise<void> {
    this.dirty = false;
    const p = this.sync().finally(() => {
      if (this.inflight !== p) return;
      this.inflight = null;
      setImmediate(this.settled);
    });
    this.inflight = p;
    return p;
  }

  private async sync(): Promise<void> {
    if (!this.fh) {
      const fh = await open(`${this.file}-wal`, 'r+');
      // The log's name in its folder must be durable too, once (the log lives as long as the connection).
      const dir = await open(path.dirname(this.file), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
      this.fh = fh;
    }
    await this.fh.datasync();
  }

  async close(): Promise<void> {
    await this.inflight?.catch(() => undefined);
    await this.fh?.close();
    this.fh = null;
  }
}
