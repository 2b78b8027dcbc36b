/**
 * The background fold, off the event loop: a worker thread merges the data file with the journal
 * moved aside and writes the result as the new data file, so folding a large store costs the
 * server's event loop nothing (it never copies or serialises the records in memory).
 *
 * The merge works on the data file's bytes: each record of the old file is copied as it is unless
 * the journal changed it (then its new text is written, or nothing for a deletion); records the
 * journal added follow. The data file is the one `snapshotText` writes (no whitespace; format,
 * version, journalSeq, collections); a file in another layout (e.g. edited by hand) is merged by
 * parsing it whole instead. This module runs as the worker too, so it imports only `node:` modules
 * and uses only TypeScript that Node can strip.
 */
import { open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

/** The fold thread's nice value (the lowest priority). */
const FOLD_NICE = 19;

export interface FoldJob {
  /** The data file (absolute). */
  file: string;
  /** The journal moved aside: its batches come after the data file's `journalSeq`. */
  journal: string;
  /** Where the new data file is written before it is renamed over `file`. */
  tmp: string;
  /** The last batch the journal holds: the new data file's `journalSeq`. */
  journalSeq: number;
  /** Every collection, in the order the data file lists them. */
  collections: readonly string[];
  /** The data file's `format` and `version`. */
  format: string;
  version: number;
}

/** Per collection, per key: the record's new JSON text, or null when the journal deleted it. */
type Changes = Map<string, Map<string, string | null>>;

/** Where a journal's text ends: at the zeros written ahead of it (its first NUL byte; JSON text never holds one). */
export function journalTextEnd(raw: Buffer): number {
  const end = raw.indexOf(0);
  return end < 0 ? raw.length : end;
}

/** A journal's text, up to the zeros written ahead of it. */
export function journalText(raw: Buffer): string {
  return raw.toString('utf8', 0, journalTextEnd(raw));
}

/** The journal's changes after `afterSeq` (a torn last line, never acknowledged, is left out). */
function journalChanges(text: string, afterSeq: number): { changes: Changes; seq: number } {
  const changes: Changes = new Map();
  let seq = afterSeq;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    let batch: { s: number; b: Array<Array<{ c: string; k: string; v: unknown }>> };
    try {
      batch = JSON.parse(line) as typeof batch;
    } catch (e) {
      if (i === lines.length - 1) break;
      throw new Error(`journal line ${i + 1}: ${(e as Error).message}`, { cause: e });
    }
    if (batch.s <= afterSeq) continue;
    for (const changesOfBatch of batch.b)
      for (const ch of changesOfBatch) {
        let m = changes.get(ch.c);
        if (!m) changes.set(ch.c, (m = new Map<string, string | null>()));
        m.set(ch.k, ch.v === null ? null : JSON.stringify(ch.v));
      }
    seq = batch.s;
  }
  return { changes, seq };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index just after the JSON string starting at `i` (a `"`). */
function stringEnd(buf: Buffer, i: number): number {
  const n = buf.length;
  for (let j = i + 1; j < n; j++) {
    const c = buf[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  throw new Error('unterminated string');
}

/** The JSON string `buf[i, end)` as a string (decoded without JSON.parse when it has no escape). */
function stringAt(buf: Buffer, i: number, end: number): string {
  if (buf.subarray(i, end).indexOf(BACKSLASH) < 0) return buf.toString('utf8', i + 1, end - 1);
  return JSON.parse(buf.toString('utf8', i, end)) as string;
}

/** The index just after the JSON value starting at `i` (an object, array, string or literal). */
function valueEnd(buf: Buffer, i: number): number {
  const first = buf[i];
  if (first === QUOTE) return stringEnd(buf, i);
  if (first !== 0x7b && first !== 0x5b) {
    let j = i;
    while (j < buf.length && buf[j] !== 0x2c && buf[j] !== 0x7d && buf[j] !== 0x5d) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < buf.length; j++) {
    const b = buf[j];
    if (b === QUOTE) j = stringEnd(buf, j) - 1;
    else if (b === 0x7b || b === 0x5b) depth++;
    else if (b === 0x7d || b === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  throw new Error('unterminated value');
}

const CHUNK = 1 << 20;

/**
 * Writes pieces to `fh` in chunks of about 1 MiB, each flushed to the disk before the next: the
 * journal's own fsyncs (one per group commit) then never wait behind the whole new data file
 * (on ext4, an fsync waits for other files' dirty data: 130 MB written at once and synced at the
 * end held acknowledgements back for ~300-400 ms).
 */
class ChunkWriter {
  private pieces: Buffer[] = [];
  private size = 0;
  private readonly fh: FileHandle;
  constructor(fh: FileHandle) {
    this.fh = fh;
  }
  /** Buffers `piece`; true when a chunk is full (then `await flush(true)`). */
  add(piece: Buffer | string): boolean {
    const b = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    this.pieces.push(b);
    this.size += b.length;
    return this.size >= CHUNK;
  }
  /** Buffers `piece`, a chunk at a time when it is large, flushing full chunks. */
  async put(piece: Buffer | string): Promise<void> {
    const b = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    for (let o = 0; o < b.length; o += CHUNK) if (this.add(b.subarray(o, o + CHUNK))) await this.flush(true);
  }
  /** Writes what is buffered; `sync`: flushes it to the disk too (the last chunk is left to the caller's fsync). */
  async flush(sync = false): Promise<void> {
    if (this.size === 0) return;
    const all = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.size);
    this.pieces = [];
    this.size = 0;
    await this.fh.write(all);
    if (sync) await this.fh.datasync();
  }
}

/** One step of a data file in `snapshotText`'s layout, walked by `walkWrittenLayout`. */
export type LayoutStep =
  | { kind: 'head'; journalSeq: number }
  | { kind: 'collection'; name: string }
  /** A record: its key's JSON string at `[keyStart, keyEnd)`, its value at `[keyEnd + 1, end)`. */
  | { kind: 'record'; keyStart: number; keyEnd: number; end: number }
  | { kind: 'collectionEnd' };

/**
 * Walks `buf`, a data file as `snapshotText` writes it (no whitespace; format, version,
 * journalSeq, collections), without parsing its records: what a fold copies and a start reads
 * record by record. Throws "not in the written layout" when it is not (then parse it whole).
 */
export function* walkWrittenLayout(buf: Buffer, format: string, version: number): Generator<LayoutStep> {
  const layout = () => new Error('not in the written layout');
  const head = `{"format":${JSON.stringify(format)},"version":${version},"journalSeq":`;
  if (buf.toString('utf8', 0, head.length) !== head) throw layout();
  let i = head.length;
  while (i < buf.length && buf[i]! >= 0x30 && buf[i]! <= 0x39) i++;
  if (i === head.length) throw layout();
  const journalSeq = Number(buf.toString('latin1', head.length, i));
  const collectionsKey = ',"collections":{';
  if (buf.toString('utf8', i, i + collectionsKey.length) !== collectionsKey) throw layout();
  i += collectionsKey.length;
  yield { kind: 'head', journalSeq };
  let first = true;
  while (buf[i] !== 0x7d) {
    if (!first) {
      if (buf[i] !== 0x2c) throw layout();
      i++;
    }
    first = false;
    if (buf[i] !== QUOTE) throw layout();
    const nameEnd = stringEnd(buf, i);
    const name = stringAt(buf, i, nameEnd);
    if (buf[nameEnd] !== 0x3a || buf[nameEnd + 1] !== 0x7b) throw layout();
    yield { kind: 'collection', name };
    i = nameEnd + 2;
    while (buf[i] !== 0x7d) {
      if (buf[i] === 0x2c) i++;
      if (buf[i] !== QUOTE) throw layout();
      const keyStart = i;
      const keyEnd = stringEnd(buf, i);
      if (buf[keyEnd] !== 0x3a) throw layout();
      const end = valueEnd(buf, keyEnd + 1);
      i = end;
      yield { kind: 'record', keyStart, keyEnd, end };
    }
    i++;
    yield { kind: 'collectionEnd' };
  }
  if (buf.toString('utf8', i).trim() !== '}}') throw layout();
}

/** The key of a record step (its JSON string decoded). */
export function recordKey(buf: Buffer, step: { keyStart: number; keyEnd: number }): string {
  return stringAt(buf, step.keyStart, step.keyEnd);
}

/**
 * Merges `old` (the data file's bytes, in `snapshotText`'s layout) with `changes` into `out`.
 * Throws when `old` is not in that layout (the caller then merges by parsing).
 */
async function mergeBytes(old: Buffer, changes: Changes, job: FoldJob, out: ChunkWriter): Promise<void> {
  const written = new Set<string>();
  /** The collection being copied, and the journal's changes to it. */
  let name = '';
  let m: Map<string, string | null> | undefined;
  // Unchanged records are copied as runs of old bytes, `[runStart, runEnd)` (the commas between
  // them included); `any`: a record was written before in this collection (a comma goes first).
  let any = false;
  let runStart = -1;
  let runEnd = -1;
  const endRun = async () => {
    if (runStart < 0) return;
    if (any) await out.put(',');
    await out.put(old.subarray(runStart, runEnd));
    any = true;
    runStart = -1;
  };
  for (const step of walkWrittenLayout(old, job.format, job.version)) {
    switch (step.kind) {
      case 'head':
        await out.put(`{"format":${JSON.stringify(job.format)},"version":${job.version},"journalSeq":${job.journalSeq},"collections":{`);
        break;
      case 'collection':
        name = step.name;
        await out.put(`${written.size > 0 ? ',' : ''}${JSON.stringify(name)}:{`);
        m = changes.get(name);
        any = false;
        break;
      case 'record': {
        const changed = m === undefined ? undefined : m.get(recordKey(old, step));
        if (changed === undefined) {
          if (runStart < 0) runStart = step.keyStart;
          runEnd = step.end;
          break;
        }
        await endRun();
        m!.delete(recordKey(old, step));
        if (changed === null) break;
        if (out.add(`${any ? ',' : ''}${old.toString('utf8', step.keyStart, step.keyEnd)}:${changed}`)) await out.flush(true);
        any = true;
        break;
      }
      case 'collectionEnd':
        await endRun();
        for (const [k, text] of m ?? []) {
          if (text === null) continue;
          if (out.add(`${any ? ',' : ''}${JSON.stringify(k)}:${text}`)) await out.flush(true);
          any = true;
        }
        await out.put('}');
        written.add(name);
        break;
    }
  }
  for (const name of job.collections) {
    if (written.has(name)) continue;
    await out.put(`${written.size > 0 ? ',' : ''}${JSON.stringify(name)}:{`);
    let any = false;
    for (const [k, text] of changes.get(name) ?? []) {
      if (text === null) continue;
      if (out.add(`${any ? ',' : ''}${JSON.stringify(k)}:${text}`)) await out.flush(true);
      any = true;
    }
    await out.put('}');
    written.add(name);
  }
  await out.put('}}');
}

/** The same merge by parsing the whole data file (any JSON layout). */
async function mergeParsed(old: Buffer, changes: Changes, job: FoldJob, out: ChunkWriter): Promise<void> {
  const data = JSON.parse(old.toString('utf8')) as { collections?: Record<string, Record<string, unknown>> };
  const collections = data.collections ?? {};
  for (const name of job.collections) collections[name] ??= {};
  for (const [name, m] of changes) {
    const col = (collections[name] ??= {});
    for (const [k, text] of m) {
      if (text === null) delete col[k];
      else col[k] = JSON.parse(text) as unknown;
    }
  }
  await out.put(JSON.stringify({ format: job.format, version: job.version, journalSeq: job.journalSeq, collections }));
}

export type MergeKind = 'bytes' | 'parsed';

/** Writes the new data file for `job` to `job.tmp` (in this thread), fsynced; says how it merged. */
export async function foldFiles(job: FoldJob): Promise<MergeKind> {
  const [old, journalRaw] = await Promise.all([readFile(job.file), readFile(job.journal)]);
  const journal = journalText(journalRaw);
  const headSeq = /"journalSeq"\s*:\s*(\d+)/.exec(old.toString('utf8', 0, 200));
  const { changes, seq } = journalChanges(journal, headSeq ? Number(headSeq[1]) : 0);
  if (seq !== job.journalSeq) throw new Error(`the journal moved aside ends at batch ${seq}, expected ${job.journalSeq}`);
  const fh = await open(job.tmp, 'w', 0o600);
  try {
    try {
      const out = new ChunkWriter(fh);
      try {
        await mergeBytes(old, changes, job, out);
      } catch {
        // Not the layout this server writes: start the file again and merge by parsing.
        await fh.truncate(0);
        const again = new ChunkWriter(fh);
        const { changes: fresh } = journalChanges(journal, headSeq ? Number(headSeq[1]) : 0);
        await mergeParsed(old, fresh, job, again);
        await again.flush();
        await fh.sync();
        return 'parsed';
      }
      await out.flush();
      await fh.sync();
      return 'bytes';
    } finally {
      await fh.close();
    }
  } catch (e) {
    await unlink(job.tmp).catch(() => {});
    throw e;
  }
}

/**
 * Runs `foldFiles(job)` in a worker thread: resolves once `job.tmp` is written and fsynced, with
 * how the data file was merged (`bytes`: record by record as written; `parsed`: whole).
 */
export function foldInWorker(job: FoldJob): Promise<MergeKind> {
  const self = new URL(import.meta.url);
  return new Promise<MergeKind>((resolve, reject) => {
    const worker = new Worker(self, { workerData: { foldJob: job } });
    let settled = false;
    worker.once('message', (m: { ok: true; how: MergeKind } | { ok: false; error: string }) => {
      settled = true;
      if (m.ok) resolve(m.how);
      else reject(new Error(m.error));
    });
    worker.once('error', (e: Error) => {
      settled = true;
      reject(e);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`fold worker exited ${code}`));
    });
  });
}

if (!isMainThread && (workerData as { foldJob?: FoldJob } | null)?.foldJob) {
  const job = (workerData as { foldJob: FoldJob }).foldJob;
  // The fold can wait; requests cannot. On Linux a nice value is per thread, so this lowers the
  // fold's thread only, and the server's event loop gets the core first when both want it.
  try {
    setPriority(0, FOLD_NICE);
  } catch {
    // not permitted here (or not per thread): the fold runs at the server's priority
  }
  foldFiles(job).then(
    (how) => parentPort!.postMessage({ ok: true, how }),
    (e: unknown) => parentPort!.postMessage({ ok: false, error: (e as Error).message }),
  );
}
