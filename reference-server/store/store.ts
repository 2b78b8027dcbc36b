/**
 * The repository: every record in memory (with the indexes the API needs), every change
 * made durable before the request that caused it is answered.
 *
 * Durability (`openFileStore`): the data file is a lowdb JSON snapshot; changes go to an
 * append-only JSON-lines journal next to it (`<file>.journal`), one line per group commit,
 * fsynced before any waiter is released. Concurrent requests that change data while a
 * journal write is in flight wait together for the next single write (group commit), so
 * the cost of a write does not grow with the number of stored records. When the journal
 * grows past a threshold (and on close) it is folded into a new snapshot, written to a
 * temporary file, fsynced and renamed over the data file. On start: snapshot + journal
 * replay; a torn last journal line (a crash mid-append, never acknowledged) is dropped; a
 * corrupt snapshot or journal stops the start with an error naming the file, and nothing
 * is overwritten.
 */
import { mkdir, open, rename, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { JSONFile } from 'lowdb/node';
import { COLLECTIONS, type Change, type CollectionName, type Collections, type OutboxEvent, type SessionRecord, type TransactionRecord } from '../domain/types.ts';

export const SNAPSHOT_FORMAT = 'paylater-reference-server';
export const SNAPSHOT_VERSION = 1;

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  /** The last journal batch folded into this snapshot. */
  journalSeq: number;
  collections: { [C in CollectionName]: Record<string, Collections[C]> };
}

export class StoreCorruptError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`The data file ${file} is corrupt or unreadable (${detail}). Nothing was changed or overwritten; restore it from a backup or move it away to start empty.`);
    this.name = 'StoreCorruptError';
  }
}

export class StoreFailedError extends Error {
  constructor(cause: unknown) {
    super(`storage write failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StoreFailedError';
  }
}

interface Persistence {
  append(batches: Change[][]): Promise<void>;
  /** Bytes in the journal since the last snapshot. */
  journalBytes(): number;
  compact(snapshot: () => Snapshot): Promise<void>;
  close(snapshot: () => Snapshot): Promise<void>;
  /** Closes the files without writing anything (what a crash leaves behind). */
  abandon(): Promise<void>;
}

type Maps = { [C in CollectionName]: Map<string, Collections[C]> };

export interface StoreOptions {
  /** Fold the journal into the snapshot once it is larger than this (bytes). Default 16 MiB. */
  compactAfterBytes?: number;
}

export class Store {
  private readonly maps: Maps;
  // Indexes.
  private readonly byVendorRef = new Map<string, string>();
  private readonly sessionByDigest = new Map<string, string>();
  private readonly txByMerchant = new Map<string, Set<string>>();
  private readonly pendingByMerchant = new Map<string, Set<string>>();
  private readonly smsByMerchant = new Map<string, string[]>();
  private readonly outboxByMerchant = new Map<string, string[]>();
  private readonly outboxPending = new Set<string>();
  // Group commit.
  private queue: Change[][] = [];
  private appliedSeq = 0;
  private durableSeq = 0;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private flushing: Promise<void> | null = null;
  private failed: Error | null = null;
  private journalSeq: number;
  private closed = false;
  /** Number of journal writes so far (group commits), for tests and diagnostics. */
  writes = 0;

  private constructor(
    initial: Snapshot['collections'] | null,
    journalSeq: number,
    private readonly persistence: Persistence | null,
    private readonly compactAfterBytes: number,
  ) {
    this.journalSeq = journalSeq;
    this.maps = Object.fromEntries(COLLECTIONS.map((c) => [c, new Map()])) as unknown as Maps;
    if (initial) {
      for (const c of COLLECTIONS) {
        const entries = Object.entries(initial[c] ?? {});
        if (c === 'transactions') entries.sort((a, b) => Date.parse((a[1] as TransactionRecord).expiresAt) - Date.parse((b[1] as TransactionRecord).expiresAt));
        if (c === 'sms' || c === 'outbox') entries.sort((a, b) => Date.parse((a[1] as { createdAt?: string; sentAt?: string }).createdAt ?? (a[1] as { sentAt: string }).sentAt) - Date.parse((b[1] as { createdAt?: string; sentAt?: string }).createdAt ?? (b[1] as { sentAt: string }).sentAt));
        for (const [k, v] of entries) this.put({ c, k, v } as Change);
      }
    }
  }

  /** A store that keeps nothing on disk. */
  static memory(): Store {
    return new Store(null, 0, null, Infinity);
  }

  /** Internal: used by openFileStore. */
  static fromPersistence(initial: Snapshot['collections'] | null, journalSeq: number, p: Persistence, compactAfterBytes: number): Store {
    return new Store(initial, journalSeq, p, compactAfterBytes);
  }

  /** Applies a batch to memory now and resolves once it is on disk (grouped with concurrent batches). */
  commit(changes: Change[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    if (this.failed) return Promise.reject(this.failed);
    if (changes.length === 0) return this.barrier();
    for (const ch of changes) this.put(ch);
    if (!this.persistence) return Promise.resolve();
    this.queue.push(changes);
    const seq = ++this.appliedSeq;
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    // Start the write on the next microtask: every batch committed in this tick joins it.
    this.flushing ??= Promise.resolve().then(() => this.flushLoop());
    return p;
  }

  /** True when every change applied so far is on disk (then `barrier()` would resolve at once). */
  get settled(): boolean {
    return !this.failed && this.durableSeq >= this.appliedSeq;
  }

  /** Resolves once every change applied so far is on disk (a reader calls this before answering). */
  barrier(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.durableSeq >= this.appliedSeq) return Promise.resolve();
    const seq = this.appliedSeq;
    return new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  private async flushLoop(): Promise<void> {
    const p = this.persistence!;
    try {
      while (this.queue.length > 0 && !this.failed) {
        const batches = this.queue;
        const upTo = this.appliedSeq;
        this.queue = [];
        try {
          this.journalSeq += 1;
          await p.append(batches.map((b) => b));
          this.writes += 1;
        } catch (e) {
          this.failed = new StoreFailedError(e);
          for (const w of this.waiters.splice(0)) w.reject(this.failed);
          return;
        }
        this.durableSeq = upTo;
        this.release();
        if (p.journalBytes() > this.compactAfterBytes && this.queue.length === 0) {
          try {
            await p.compact(() => this.snapshot());
          } catch (e) {
            // The journal still holds everything; compaction is retried at the next threshold.
            process.emitWarning(`paylater store: compaction failed: ${(e as Error).message}`);
          }
        }
      }
    } finally {
      this.flushing = null;
      if (this.queue.length > 0 && !this.failed) this.flushing = this.flushLoop();
    }
  }

  private release(): void {
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) (w.seq <= this.durableSeq ? w.resolve : () => keep.push(w))();
    this.waiters = keep;
  }

  /** A consistent copy of everything (records are never mutated in place). */
  snapshot(): Snapshot {
    const collections = {} as Record<string, Record<string, unknown>>;
    for (const c of COLLECTIONS) collections[c] = Object.fromEntries(this.maps[c]);
    return { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, journalSeq: this.journalSeq, collections: collections as Snapshot['collections'] };
  }

  /** Waits for pending writes, folds the journal into the snapshot and releases the files. */
  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing) await this.flushing;
    this.closed = true;
    if (this.persistence && !this.failed) await this.persistence.close(() => this.snapshot());
  }

  /**
   * Leaves the files as a crash after the last acknowledged write would (journal not folded,
   * nothing more written) and releases them: for crash simulations in tests.
   */
  async abandon(): Promise<void> {
    if (this.closed) return;
    while (this.flushing) await this.flushing;
    this.closed = true;
    await this.persistence?.abandon();
  }

  // ---- memory and indexes ----

  private put(ch: Change): void {
    switch (ch.c) {
      case 'transactions':
        return this.putTransaction(ch.k, ch.v);
      case 'sessions':
        return this.putSession(ch.k, ch.v);
      case 'sms': {
        const m = this.maps.sms;
        if (ch.v && !m.has(ch.k)) push(this.smsByMerchant, ch.v.merchantId, ch.k);
        if (ch.v) m.set(ch.k, ch.v);
        else m.delete(ch.k);
        return;
      }
      case 'outbox':
        return this.putOutbox(ch.k, ch.v);
      default: {
        const m = this.maps[ch.c] as Map<string, unknown>;
        if (ch.v) m.set(ch.k, ch.v);
        else m.delete(ch.k);
      }
    }
  }

  private putTransaction(k: string, v: TransactionRecord | null): void {
    const m = this.maps.transactions;
    const old = m.get(k);
    if (old) {
      if (old.vendorReference !== null) this.byVendorRef.delete(vrKey(old.merchantId, old.vendorReference));
      this.pendingByMerchant.get(old.merchantId)?.delete(k);
      if (!v) this.txByMerchant.get(old.merchantId)?.delete(k);
    }
    if (!v) {
      m.delete(k);
      return;
    }
    m.set(k, v);
    if (v.vendorReference !== null) this.byVendorRef.set(vrKey(v.merchantId, v.vendorReference), k);
    addTo(this.txByMerchant, v.merchantId, k);
    if (v.status === 'PENDING') addTo(this.pendingByMerchant, v.merchantId, k);
  }

  private putSession(k: string, v: SessionRecord | null): void {
    const old = this.maps.sessions.get(k);
    if (old) this.sessionByDigest.delete(old.tokenDigest);
    if (!v) {
      this.maps.sessions.delete(k);
      return;
    }
    this.maps.sessions.set(k, v);
    this.sessionByDigest.set(v.tokenDigest, k);
  }

  private putOutbox(k: string, v: OutboxEvent | null): void {
    const m = this.maps.outbox;
    if (v && !m.has(k)) push(this.outboxByMerchant, v.merchantId, k);
    if (!v) {
      m.delete(k);
      this.outboxPending.delete(k);
      return;
    }
    m.set(k, v);
    if (v.state === 'pending') this.outboxPending.add(k);
    else this.outboxPending.delete(k);
  }

  // ---- reads ----

  get<C extends CollectionName>(c: C, k: string): Collections[C] | undefined {
    return this.maps[c].get(k);
  }
  count(c: CollectionName): number {
    return this.maps[c].size;
  }
  transactionByVendorReference(merchantId: string, vendorReference: string): TransactionRecord | undefined {
    const id = this.byVendorRef.get(vrKey(merchantId, vendorReference));
    return id === undefined ? undefined : this.maps.transactions.get(id);
  }
  sessionByTokenDigest(digest: string): SessionRecord | undefined {
    const id = this.sessionByDigest.get(digest);
    return id === undefined ? undefined : this.maps.sessions.get(id);
  }
  *merchantTransactions(merchantId: string): Iterable<TransactionRecord> {
    for (const id of this.txByMerchant.get(merchantId) ?? []) {
      const t = this.maps.transactions.get(id);
      if (t) yield t;
    }
  }
  /** PENDING transactions of a merchant, oldest window first. */
  *pendingTransactions(merchantId: string): Iterable<TransactionRecord> {
    for (const id of this.pendingByMerchant.get(merchantId) ?? []) {
      const t = this.maps.transactions.get(id);
      if (t) yield t;
    }
  }
  pendingMerchants(): string[] {
    return [...this.pendingByMerchant.entries()].filter(([, s]) => s.size > 0).map(([k]) => k);
  }
  smsOf(merchantId: string): Collections['sms'][] {
    return (this.smsByMerchant.get(merchantId) ?? []).flatMap((id) => this.maps.sms.get(id) ?? []);
  }
  /** Oldest first. */
  outboxOf(merchantId: string): OutboxEvent[] {
    return (this.outboxByMerchant.get(merchantId) ?? []).flatMap((id) => this.maps.outbox.get(id) ?? []);
  }
  pendingOutbox(): OutboxEvent[] {
    return [...this.outboxPending].flatMap((id) => this.maps.outbox.get(id) ?? []);
  }
}

function vrKey(merchantId: string, ref: string): string {
  return `${merchantId}\u0000${ref}`;
}
function addTo(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}
function push(m: Map<string, string[]>, k: string, v: string): void {
  let a = m.get(k);
  if (!a) m.set(k, (a = []));
  a.push(v);
}

// ---- file persistence ----

export function journalPathOf(file: string): string {
  return `${file}.journal`;
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

/** Writes a file atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  await fsyncDir(dir);
}

function checkSnapshot(file: string, data: unknown): Snapshot {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new StoreCorruptError(file, 'not a JSON object');
  const s = data as Partial<Snapshot>;
  if (s.format !== SNAPSHOT_FORMAT) throw new StoreCorruptError(file, `not a ${SNAPSHOT_FORMAT} data file (format ${JSON.stringify(s.format)})`);
  if (s.version !== SNAPSHOT_VERSION) throw new StoreCorruptError(file, `unsupported version ${JSON.stringify(s.version)}`);
  if (typeof s.journalSeq !== 'number' || typeof s.collections !== 'object' || s.collections === null) throw new StoreCorruptError(file, 'missing journalSeq or collections');
  for (const c of COLLECTIONS) {
    const v = (s.collections as Record<string, unknown>)[c];
    if (v !== undefined && (typeof v !== 'object' || v === null || Array.isArray(v))) throw new StoreCorruptError(file, `collection ${c} is not an object`);
  }
  return s as Snapshot;
}

/**
 * Opens (or creates) the data file `file` and its journal. Throws `StoreCorruptError` naming
 * the file when it cannot be read as a data file; nothing is written in that case.
 */
export async function openFileStore(file: string, opts: StoreOptions = {}): Promise<Store> {
  const abs = path.resolve(file);
  const jpath = journalPathOf(abs);
  await mkdir(path.dirname(abs), { recursive: true });

  // Load the snapshot with lowdb's JSON file adapter (read + JSON.parse); our own write path below.
  let snapshot: Snapshot | null = null;
  try {
    const raw = await new JSONFile<unknown>(abs).read();
    snapshot = raw === null ? null : checkSnapshot(abs, raw);
  } catch (e) {
    if (e instanceof StoreCorruptError) throw e;
    throw new StoreCorruptError(abs, (e as Error).message);
  }

  // Replay the journal.
  const collections = (snapshot?.collections ?? Object.fromEntries(COLLECTIONS.map((c) => [c, {}]))) as Snapshot['collections'];
  for (const c of COLLECTIONS) (collections as Record<string, unknown>)[c] ??= {};
  let seq = snapshot?.journalSeq ?? 0;
  let goodBytes = 0;
  let jfh: FileHandle;
  try {
    jfh = await open(jpath, 'a+', 0o600);
  } catch (e) {
    throw new StoreCorruptError(jpath, (e as Error).message);
  }
  try {
    const text = (await jfh.readFile()).toString('utf8');
    const lines = text.split('\n');
    let offset = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const isLast = i === lines.length - 1;
      if (isLast && line === '') break;
      let batch: { s: number; b: Change[][] };
      try {
        batch = JSON.parse(line);
        if (typeof batch?.s !== 'number' || !Array.isArray(batch.b)) throw new Error('not a journal entry');
      } catch (e) {
        if (isLast) break; // torn tail: a write that was never acknowledged
        throw new StoreCorruptError(jpath, `line ${i + 1}: ${(e as Error).message}`);
      }
      offset += Buffer.byteLength(line, 'utf8') + 1;
      if (batch.s <= (snapshot?.journalSeq ?? 0)) {
        goodBytes = offset;
        continue;
      }
      for (const changes of batch.b) {
        for (const ch of changes) {
          const col = (collections as Record<string, Record<string, unknown>>)[ch.c];
          if (!col) throw new StoreCorruptError(jpath, `line ${i + 1}: unknown collection ${ch.c}`);
          if (ch.v === null) delete col[ch.k];
          else col[ch.k] = ch.v;
        }
      }
      seq = batch.s;
      goodBytes = offset;
    }
    if ((await jfh.stat()).size !== goodBytes) {
      await jfh.truncate(goodBytes);
      await jfh.sync();
    }
  } catch (e) {
    await jfh.close();
    throw e;
  }

  let jbytes = goodBytes;
  let journalSeq = seq;
  const persistence: Persistence = {
    async append(batches) {
      journalSeq += 1;
      const line = `${JSON.stringify({ s: journalSeq, b: batches })}\n`;
      const buf = Buffer.from(line, 'utf8');
      let written = 0;
      while (written < buf.length) {
        const { bytesWritten } = await jfh.write(buf, written, buf.length - written);
        written += bytesWritten;
      }
      await jfh.datasync();
      jbytes += buf.length;
    },
    journalBytes: () => jbytes,
    async compact(snap) {
      const s = snap();
      await writeFileAtomic(abs, JSON.stringify(s));
      await jfh.truncate(0);
      await jfh.sync();
      jbytes = 0;
    },
    async close(snap) {
      try {
        if (jbytes > 0 || !(await exists(abs))) await persistence.compact(snap);
      } finally {
        await jfh.close();
      }
    },
    abandon: () => jfh.close(),
  };
  const store = Store.fromPersistence(collections, seq, persistence, opts.compactAfterBytes ?? 16 * 1024 * 1024);
  // First start: create the data file now, so it exists from the beginning.
  if (snapshot === null) await persistence.compact(() => store.snapshot());
  return store;
}

async function exists(f: string): Promise<boolean> {
  try {
    await stat(f);
    return true;
  } catch {
    return false;
  }
}
