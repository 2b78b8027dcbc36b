/**
 * Durability of the store on disk (`openFileStore`): the data file is a lowdb JSON snapshot;
 * changes go to an append-only JSON-lines journal next to it (`<file>.journal`), one line
 * per group commit (`{"s": <batch number>, "b": [<batch>, …]}`), fsynced before any waiter
 * is released. The journal is written into zeros written ahead of it (`JOURNAL_ZERO_CHUNK_BYTES`
 * at a time, as PostgreSQL pre-fills its WAL segments), so that the fdatasync acknowledging a
 * write flushes data only: an append that grows the file changes its size, and its fdatasync
 * then waits for a file-system journal commit, behind every other file's metadata. Its text
 * ends at the first NUL byte. When the journal grows past a threshold (and on close) it is
 * folded into a new snapshot, written to a temporary file, fsynced and renamed over the data
 * file; while the server runs, that fold merges the files in a worker thread (fold-worker.ts)
 * and frees the files it replaced a few MiB at a time (`releaseGradually`). On start: snapshot
 * (read record by record, each packed as the store keeps it: `packed-records.ts`) + journal
 * replay; a torn last journal line (a crash mid-append, never acknowledged) is dropped; a corrupt
 * snapshot or journal stops the start with an error naming the file, and nothing is overwritten. The data file is locked for the process (store/data-lock.ts); under
 * the lock, temporary files a crash left mid-fold are removed.
 */
import { constants as fsConstants } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, statfs, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { JSONFile } from 'lowdb/node';
import { loadBundledDocument } from '../../generated/index.ts';
import { COLLECTIONS, type Change, type CollectionName } from '../domain/types.ts';
import { lockDataFile, type DataFileLock } from './data-lock.ts';
import { foldFiles, foldInWorker, journalText, journalTextEnd, recordKey, walkWrittenLayout, type MergeKind } from './fold-worker.ts';
import { packRecord } from './packed-records.ts';
import { Store, type PackedImage, type Persistence, type StoreFailurePolicy, type StoreImage } from './store.ts';

export const SNAPSHOT_FORMAT = 'paylater-reference-server';
export const SNAPSHOT_VERSION = 1;

/** The data file: every record, and the last journal batch folded into it (`journalSeq`). */
export interface Snapshot extends StoreImage {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
}

export interface StoreOptions {
  /** Fold the journal into the snapshot once it is larger than this (bytes). Default 16 MiB. */
  compactAfterBytes?: number;
  /** The journal's write call at `position` (a seam for injecting ENOSPC/EIO in tests); default `fh.write`. */
  writeJournal?: (fh: FileHandle, buf: Buffer, offset: number, length: number, position: number) => Promise<{ bytesWritten: number }>;
  /** Time for the wait after a failed write (epoch ms); default `Date.now`. */
  now?: () => number;
  /** A background fold merges the files in a worker thread when the data file and the journal together are larger than this (bytes; a smaller store is written from memory); default 1 MiB. */
  foldInWorkerAboveBytes?: number;
}

/** `Retry-After` of the `StorageUnavailable` answer (ADR-026): how long writes are refused after a failed one. */
export const storageRetryAfterSeconds: number = (() => {
  const responses = (
    loadBundledDocument(1).components as Record<string, Record<string, { headers?: Record<string, { schema?: { const?: unknown } }> }>>
  ).responses;
  const v = responses?.StorageUnavailable?.headers?.['Retry-After']?.schema?.const;
  if (typeof v !== 'number') throw new Error('spec: StorageUnavailable has no Retry-After const');
  return v;
})();

export class StoreCorruptError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(
      `The data file ${file} is corrupt or unreadable (${detail}). Nothing was changed or overwritten; restore it from a backup or move it away to start empty.`,
    );
    this.name = 'StoreCorruptError';
  }
}

export function journalPathOf(file: string): string {
  return `${file}.journal`;
}

/** The journal moved aside while a background fold writes the data file (dropped once it is in place). */
export function foldingJournalPathOf(file: string): string {
  return `${file}.journal.folding`;
}

/**
 * Bytes of zeros written ahead of the journal's end at a time: an eighth of the data file (a
 * journal grows to half of it before a fold), within these bounds. The next are written when
 * fewer than half a chunk are left ahead.
 */
export const JOURNAL_ZERO_CHUNK_BYTES = { min: 256 * 1024, max: 8 * 1024 * 1024 } as const;
/** No zeros are written ahead on a file system with less free space than this: a nearly full disk keeps its last bytes for data. */
export const JOURNAL_ZERO_MIN_FREE_BYTES = 512 * 1024 * 1024;

/** The bytes of journal text in `file`'s journal (its size less the zeros written ahead): for tests and the bench. */
export async function journalContentBytes(file: string): Promise<number> {
  return journalTextEnd(await readFile(journalPathOf(file)).catch(() => Buffer.alloc(0)));
}

/** CPU time of this thread in ms (not the time spent waiting for a core). */
function threadCpuMs(): number {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The last background fold's steps on the event loop (moving the journal aside, starting the
 * worker, dropping the old journal): how many, and the most CPU time of this thread one took
 * and all of them together (for tests and diagnostics). The merge itself runs in a worker thread
 * (fold-worker.ts).
 */
export const foldStats: {
  slices: number;
  longestSliceCpuMs: number;
  totalCpuMs: number;
  inWorker: boolean;
  /** How the last fold made the data file: merged in the worker (`bytes`, `parsed`), or from memory (a small store). */
  merge: MergeKind | 'memory' | null;
  /** The most bytes the last fold freed at once, and in how many steps it freed the files it replaced (see `releaseGradually`). */
  largestRelease: number;
  releaseSteps: number;
} = {
  slices: 0,
  longestSliceCpuMs: 0,
  totalCpuMs: 0,
  inWorker: false,
  merge: null,
  largestRelease: 0,
  releaseSteps: 0,
};

/** Times the fold's steps on this thread: `await step(p)` ends one step at the await and starts the next after it. */
function foldClock(): <T>(p: Promise<T>) => Promise<T> {
  foldStats.largestRelease = 0;
  foldStats.releaseSteps = 0;
  foldStats.slices = 0;
  foldStats.longestSliceCpuMs = 0;
  foldStats.totalCpuMs = 0;
  let start = threadCpuMs();
  return async (p) => {
    const took = threadCpuMs() - start;
    foldStats.slices += 1;
    foldStats.longestSliceCpuMs = Math.max(foldStats.longestSliceCpuMs, took);
    foldStats.totalCpuMs += took;
    try {
      return await p;
    } finally {
      start = threadCpuMs();
    }
  };
}

/** The data file's content for `image`. */
export function snapshotText(image: StoreImage): string {
  const s: Snapshot = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, journalSeq: image.journalSeq, collections: image.collections };
  return JSON.stringify(s);
}

async function fsyncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is atomic.
  } finally {
    await fh?.close();
  }
}

/** The temporary file `writeFileAtomic` writes for `file`. */
function tempPathOf(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
}

/** Removes the temporary files of `file` left by a process killed mid-write (call only under the data file's lock). */
export async function removeLeftoverTempFiles(file: string): Promise<string[]> {
  const prefix = `.${path.basename(file)}.`;
  const pattern = /^\d+\.\d+\.tmp$/;
  const removed: string[] = [];
  for (const name of await readdir(path.dirname(file))) {
    if (!name.startsWith(prefix) || !pattern.test(name.slice(prefix.length))) continue;
    await unlink(path.join(path.dirname(file), name)).catch(() => {});
    removed.push(name);
  }
  return removed;
}

/** Bytes `releaseGradually` frees per step, and the pause between steps (ms). */
export const RELEASE_STEP_BYTES = 4 * 1024 * 1024;
const RELEASE_PAUSE_MS = 10;

/**
 * Gives back the blocks of a file that is no longer named (`fh` open for writing on it) a few
 * MiB at a time. On ext4 mounted with `discard` (as here), freeing a large file at once (unlink,
 * or a rename over it) makes the next journal commits wait for its discards, and with them every
 * fsync that acknowledges a write: measured on this machine, journal fsyncs in the 2.5 s after
 * unlinking a 130 MB file took up to 18-107 ms, against 2-6 ms idle and 2-13 ms when the same
 * file was truncated 4 MiB at a time. The data file of 200,000 transactions is 130 MB and a fold
 * frees it and the journal moved aside. Closes `fh`.
 */
export async function releaseGradually(fh: FileHandle): Promise<void> {
  try {
    for (let size = (await fh.stat()).size; size > 0;) {
      const next = Math.max(0, size - RELEASE_STEP_BYTES);
      await fh.truncate(next);
      foldStats.largestRelease = Math.max(foldStats.largestRelease, size - next);
      foldStats.releaseSteps += 1;
      size = next;
      if (size > 0) await new Promise((r) => setTimeout(r, RELEASE_PAUSE_MS));
    }
  } catch {
    // Nothing names the file any more: what was not truncated is freed when it is closed.
  } finally {
    await fh.close();
  }
}

/** A handle that can truncate `file` once it is unlinked or replaced, or null where it cannot be had (gone, or a platform that cannot remove an open file). */
async function holdForRelease(file: string): Promise<FileHandle | null> {
  if (process.platform === 'win32') return null;
  return open(file, 'r+').catch(() => null);
}

/** Writes a file atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  const tmp = tempPathOf(file);
  const fh = await open(tmp, 'w', 0o600);
  try {
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => {}); // a disk-full fold leaves no partial copy behind
    throw e;
  }
  await fsyncDir(dir);
}

function checkSnapshot(file: string, data: unknown): Snapshot {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new StoreCorruptError(file, 'not a JSON object');
  const s = data as Partial<Snapshot>;
  if (s.format !== SNAPSHOT_FORMAT)
    throw new StoreCorruptError(file, `not a ${SNAPSHOT_FORMAT} data file (format ${JSON.stringify(s.format)})`);
  if (s.version !== SNAPSHOT_VERSION) throw new StoreCorruptError(file, `unsupported version ${JSON.stringify(s.version)}`);
  if (typeof s.journalSeq !== 'number' || typeof s.collections !== 'object' || s.collections === null)
    throw new StoreCorruptError(file, 'missing journalSeq or collections');
  for (const c of COLLECTIONS) {
    const v = (s.collections as Record<string, unknown>)[c];
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v)))
      throw new StoreCorruptError(file, `collection ${c} is not an object`);
  }
  return s as Snapshot;
}

/** The data file's records as the store keeps them (packed), its last folded batch and its size. */
interface LoadedSnapshot extends PackedImage {
  bytes: number;
}

/**
 * Reads the data file record by record, packing each as it goes: a large store is never held as
 * one string plus every record as an object at once (200,000 transactions: ~130 MB of text and
 * ~150 MB of objects, whose pages the process would keep resident). A file not in the layout
 * this server writes (e.g. indented by hand) is read whole with lowdb's JSON file adapter.
 * Null when there is no data file yet.
 */
async function readSnapshot(file: string): Promise<LoadedSnapshot | null> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StoreCorruptError(file, (e as Error).message);
  }
  const bytes = buf.length;
  try {
    const image = emptyPackedImage();
    let col: Map<string, string> | undefined;
    for (const step of walkWrittenLayout(buf, SNAPSHOT_FORMAT, SNAPSHOT_VERSION)) {
      if (step.kind === 'head') image.journalSeq = step.journalSeq;
      else if (step.kind === 'collection')
        col = Object.hasOwn(image.collections, step.name) ? image.collections[step.name as CollectionName] : undefined;
      else if (step.kind === 'record' && col) {
        const k = recordKey(buf, step);
        col.set(k, packRecord(k, JSON.parse(buf.toString('utf8', step.keyEnd + 1, step.end)) as object));
      }
    }
    return { ...image, bytes };
  } catch {
    // Another layout, or damaged: parse it whole (which names what is wrong).
  }
  try {
    const raw = await new JSONFile<unknown>(file).read();
    if (raw === null) return null;
    const snapshot = checkSnapshot(file, raw);
    const image = emptyPackedImage();
    image.journalSeq = snapshot.journalSeq;
    for (const c of COLLECTIONS)
      for (const [k, v] of Object.entries<object>(snapshot.collections[c] ?? {})) image.collections[c].set(k, packRecord(k, v));
    return { ...image, bytes };
  } catch (e) {
    if (e instanceof StoreCorruptError) throw e;
    throw new StoreCorruptError(file, (e as Error).message);
  }
}

function emptyPackedImage(): PackedImage {
  return {
    journalSeq: 0,
    collections: Object.fromEntries(COLLECTIONS.map((c) => [c, new Map<string, string>()])) as PackedImage['collections'],
  };
}

/**
 * Folds the journal's batches after `image.journalSeq` into `image` (in place) and returns
 * the number of the last batch and the length of the journal's good prefix. A torn last
 * line is left out of that prefix; any other unreadable line is a `StoreCorruptError`.
 */
function foldJournal(jpath: string, text: string, image: PackedImage): { seq: number; goodBytes: number } {
  const collections = image.collections;
  let seq = image.journalSeq;
  let goodBytes = 0;
  let offset = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const isLast = i === lines.length - 1;
    if (isLast && line === '') break;
    let batch: { s: number; b: Change[][] };
    try {
      batch = JSON.parse(line) as typeof batch;
      if (typeof batch?.s !== 'number' || !Array.isArray(batch.b)) throw new Error('not a journal entry');
    } catch (e) {
      if (isLast) break; // torn tail: a write that was never acknowledged
      throw new StoreCorruptError(jpath, `line ${i + 1}: ${(e as Error).message}`);
    }
    offset += Buffer.byteLength(line, 'utf8') + 1;
    if (batch.s <= image.journalSeq) {
      goodBytes = offset;
      continue;
    }
    for (const changes of batch.b) {
      for (const ch of changes) {
        if (!Object.hasOwn(collections, ch.c)) throw new StoreCorruptError(jpath, `line ${i + 1}: unknown collection ${ch.c}`);
        const col = collections[ch.c];
        if (ch.v === null) col.delete(ch.k);
        else col.set(ch.k, packRecord(ch.k, ch.v));
      }
    }
    seq = batch.s;
    goodBytes = offset;
  }
  return { seq, goodBytes };
}

/**
 * Opens (or creates) the data file `file` and its journal. Throws `StoreCorruptError` naming
 * the file when it cannot be read as a data file; nothing is written in that case.
 */
export async function openFileStore(file: string, opts: StoreOptions = {}): Promise<Store> {
  const abs = path.resolve(file);
  const jpath = journalPathOf(abs);
  await mkdir(path.dirname(abs), { recursive: true });
  const lock = await lockDataFile(abs);
  try {
    await removeLeftoverTempFiles(abs);
    return await openLocked(abs, jpath, lock, opts);
  } catch (e) {
    await lock.release();
    throw e;
  }
}

async function openLocked(abs: string, jpath: string, lock: DataFileLock, opts: StoreOptions): Promise<Store> {
  const snapshot = await readSnapshot(abs);
  const snapshotBytes = snapshot?.bytes ?? 0;
  const image: PackedImage = snapshot ?? emptyPackedImage();
  // A background fold that did not finish: its journal comes before the current one.
  const fpath = foldingJournalPathOf(abs);
  const foldingLeft = await exists(fpath);
  if (foldingLeft) {
    const { seq } = foldJournal(fpath, journalText(await readFile(fpath)), image);
    image.journalSeq = seq;
  }

  let jfh: FileHandle;
  try {
    jfh = await openJournal(jpath);
  } catch (e) {
    throw new StoreCorruptError(jpath, (e as Error).message);
  }
  let folded: { seq: number; goodBytes: number };
  try {
    // The zeros written ahead, and a torn last line, are cut: the next append starts at the good prefix's end.
    folded = foldJournal(jpath, journalText(await jfh.readFile()), image);
    if ((await jfh.stat()).size !== folded.goodBytes) {
      await jfh.truncate(folded.goodBytes);
      await jfh.sync();
    }
  } catch (e) {
    await jfh.close();
    throw e;
  }

  let jbytes = folded.goodBytes;
  /** About the data file's size (as of the last fold or compaction): whether the next fold runs in a worker. */
  let dataBytes = snapshotBytes;
  /** True while a journal moved aside by a background fold is on disk (its fold not finished, or failed). */
  let asideLeft = false;
  /** True when a failed append may have left bytes after `jbytes`: cut them before the next one. */
  let torn = false;
  /** The journal's bytes known to be zeros, written and synced ahead of `jbytes` (its size, when none are). */
  let zeroedTo = folded.goodBytes;
  /** Zeros being written ahead, if any. */
  let zeroing: Promise<void> | null = null;
  const writeJournal =
    opts.writeJournal ??
    ((fh: FileHandle, buf: Buffer, offset: number, length: number, position: number) => fh.write(buf, offset, length, position));
  /**
   * Writes the next chunk of zeros after `zeroedTo`, off the acknowledgement's path, when fewer
   * than half a chunk are left ahead (and the disk has room to spare). A failure only means the
   * next appends grow the file as an append-only journal would.
   */
  const zeroAhead = (): void => {
    const { min, max } = JOURNAL_ZERO_CHUNK_BYTES;
    const chunk = Math.min(max, Math.max(min, Math.ceil(dataBytes / 8 / 4096) * 4096));
    if (zeroing || zeroedTo - jbytes >= chunk / 2) return;
    const fh = jfh;
    const from = zeroedTo;
    zeroing = (async () => {
      const fs = await statfs(jpath);
      if (fs.bavail * fs.bsize < JOURNAL_ZERO_MIN_FREE_BYTES) return;
      const zeros = Buffer.alloc(chunk);
      for (let at = 0; at < zeros.length;) at += (await fh.write(zeros, at, zeros.length - at, from + at)).bytesWritten;
      await fh.datasync();
      if (fh === jfh && zeroedTo === from) zeroedTo = from + zeros.length;
    })()
      .catch(() => {})
      .finally(() => (zeroing = null));
  };
  /** Cuts the journal back to `to` bytes (its zeros written ahead go too). */
  const cutJournal = async (to: number): Promise<void> => {
    await zeroing;
    await jfh.truncate(to);
    zeroedTo = to;
  };
  const persistence: Persistence = {
    async append(seq, batches) {
      if (torn) {
        await cutJournal(jbytes);
        torn = false;
      }
      const buf = Buffer.from(`${JSON.stringify({ s: seq, b: batches })}\n`, 'utf8');
      // Zeros being written where this batch goes would overwrite it: wait for them.
      if (jbytes + buf.length > zeroedTo) await zeroing;
      try {
        let written = 0;
        while (written < buf.length) {
          const { bytesWritten } = await writeJournal(jfh, buf, written, buf.length - written, jbytes + written);
          written += bytesWritten;
        }
        await jfh.datasync();
      } catch (e) {
        // Never acknowledged: cut the journal back to its last good batch (now, or before the next append).
        torn = true;
        await cutJournal(jbytes).then(
          () => (torn = false),
          () => {},
        );
        throw e;
      }
      jbytes += buf.length;
      zeroedTo = Math.max(zeroedTo, jbytes);
      zeroAhead();
    },
    journalBytes: () => jbytes,
    dataBytes: () => dataBytes,
    async compact(current) {
      const text = snapshotText(current());
      await writeFileAtomic(abs, text);
      dataBytes = Buffer.byteLength(text, 'utf8');
      await cutJournal(0);
      await jfh.sync();
      jbytes = 0;
      await unlink(fpath).catch(() => {});
      asideLeft = false;
    },
    async foldInBackground(journalSeq, image) {
      if (asideLeft) {
        // An earlier background fold failed: fold everything now rather than move a journal over it.
        const now = image();
        await persistence.compact(() => now);
        return { done: Promise.resolve() };
      }
      // A small store is written from memory here (taken now, before any await: it is what the
      // journal holds), sooner than a worker thread starts and reads the files. Small counts the
      // journal too: a first fold has no data file, and decoding and serialising what its journal
      // holds (16 MiB by default) took this thread 130-180 ms per 20,000 transactions.
      const inWorker = dataBytes + jbytes > (opts.foldInWorkerAboveBytes ?? 1024 * 1024);
      const small = inWorker ? null : image();
      const step = foldClock();
      if (torn) {
        await step(cutJournal(jbytes));
        torn = false;
      }
      await step(jfh.sync());
      await step(rename(jpath, fpath));
      asideLeft = true;
      const old = jfh;
      jfh = await step(openJournal(jpath));
      jbytes = 0;
      zeroedTo = 0;
      zeroAhead();
      await step(old.close());
      await step(fsyncDir(path.dirname(abs)));
      const done = (async () => {
        foldStats.inWorker = inWorker;
        if (small) {
          const text = snapshotText(small);
          await step(writeFileAtomic(abs, text));
          foldStats.merge = 'memory';
          dataBytes = Buffer.byteLength(text, 'utf8');
        } else {
          const tmp = tempPathOf(abs);
          const job = {
            file: abs,
            journal: fpath,
            tmp,
            journalSeq,
            collections: COLLECTIONS,
            format: SNAPSHOT_FORMAT,
            version: SNAPSHOT_VERSION,
          };
          foldStats.merge = await step(
            foldInWorker(job).catch((e: unknown) => {
              // No worker (e.g. a runtime that cannot load this module in one): merge on this
              // thread, which yields at every 1 MiB written. A failing merge fails here too.
              process.emitWarning(`paylater store: fold worker failed (${(e as Error).message}); folding on the main thread`);
              foldStats.inWorker = false;
              return foldFiles(job);
            }),
          );
          // The data file replaced, and the journal moved aside, are freed a few MiB at a time.
          const replaced = await step(holdForRelease(abs));
          await step(
            rename(tmp, abs).catch(async (e: unknown) => {
              await replaced?.close();
              await unlink(tmp).catch(() => {});
              throw e;
            }),
          );
          await step(fsyncDir(path.dirname(abs)));
          dataBytes = (await stat(abs)).size;
          if (replaced) await step(releaseGradually(replaced));
        }
        const aside = await step(holdForRelease(fpath));
        await step(unlink(fpath));
        asideLeft = false;
        if (aside) await step(releaseGradually(aside));
      })();
      return { done };
    },
    async close(current) {
      try {
        if (jbytes > 0 || !(await exists(abs)) || (await exists(fpath))) await persistence.compact(current);
        else await cutJournal(0); // nothing to fold: the zeros written ahead go, a closed journal is empty
      } finally {
        await zeroing;
        await jfh.close();
        await lock.release();
      }
    },
    abandon: async () => {
      await zeroing;
      await jfh.close();
      await lock.release();
    },
  };
  const failure: StoreFailurePolicy = { retryAfterSeconds: storageRetryAfterSeconds, ...(opts.now ? { now: opts.now } : {}) };
  const store = Store.fromPersistence(image.collections, folded.seq, persistence, opts.compactAfterBytes ?? 16 * 1024 * 1024, failure);
  // First start: create the data file now, so it exists from the beginning. After an
  // unfinished background fold, fold both journals now.
  if (snapshot === null || foldingLeft) await persistence.compact(() => store.image());
  return store;
}

/** Opens (or creates) a journal for writes at chosen positions (not O_APPEND: it is written into zeros ahead of its end). */
function openJournal(jpath: string): Promise<FileHandle> {
  return open(jpath, fsConstants.O_RDWR | fsConstants.O_CREAT, 0o600);
}

async function exists(f: string): Promise<boolean> {
  try {
    await stat(f);
    return true;
  } catch {
    return false;
  }
}
