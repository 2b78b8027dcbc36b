/**
 * The repository: every record in memory (with the indexes the API needs), every change
 * made durable before the request that caused it is answered.
 *
 * `commit` applies a batch to memory at once and resolves when its persistence has it on
 * disk. Concurrent requests that change data while a journal write is in flight wait
 * together for the next single write (group commit), so the cost of a write does not grow
 * with the number of stored records. The journal batches are numbered here, by one
 * counter; the persistence (`file-persistence.ts`) writes that number with each batch.
 */
import {
  COLLECTIONS,
  type Change,
  type CollectionName,
  type Collections,
  type OutboxEvent,
  type SessionRecord,
  type TransactionRecord,
} from '../domain/types.ts';
import { holdsCredit } from '../domain/limits.ts';
import { PackedMap, packedTime, unpackRecord } from './packed-records.ts';
import { ShardedMap, hash31 } from './sharded-map.ts';
import { TimeOrder, createdMs } from './time-order.ts';

/** Every record, and the number of the last journal batch it includes. */
export interface StoreImage {
  journalSeq: number;
  collections: { [C in CollectionName]: Record<string, Collections[C]> };
}

/** Every record packed as the store keeps it (`packRecord`), by collection and key: what a file store starts from. */
export interface PackedImage {
  journalSeq: number;
  collections: { [C in CollectionName]: Map<string, string> };
}

/**
 * A write could not be made durable (ENOSPC, EIO): it was undone in memory, and writes are
 * refused for `retryAfterSeconds` (ADR-026); then the next write tries the disk again.
 */
export class StoreUnavailableError extends Error {
  constructor(
    cause: unknown,
    readonly retryAfterSeconds: number,
  ) {
    super(`storage write failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StoreUnavailableError';
  }
}

export interface StoreFailurePolicy {
  /** How long writes are refused after a failed one (seconds). */
  retryAfterSeconds: number;
  /** Time for that wait (epoch ms); default `Date.now`. */
  now?: () => number;
}

/** Where the batches go: an append-only journal folded now and then into an image of everything. */
export interface Persistence {
  /** Writes journal batch number `seq` (one group commit) durably. */
  append(seq: number, batches: Change[][]): Promise<void>;
  /** Bytes in the journal since the last fold. */
  journalBytes(): number;
  /** Bytes of the data file, as of the last fold (0 when it keeps none). */
  dataBytes(): number;
  /** Folds the journal into `image()`, taken at once (at close and first start: blocks for the whole image). */
  compact(image: () => StoreImage): Promise<void>;
  /**
   * Starts a fold while writes go on: moves the journal aside (new batches go to a fresh one),
   * then merges it with the data file into a new data file off the event loop, and drops the
   * journal moved aside; `journalSeq` is the last batch appended. Memory is not read, except
   * `image` (everything as of `journalSeq`, called before any await) when the fold cannot be
   * done that way. Resolves once the journal is moved aside; `done` once the data file is in place.
   */
  foldInBackground(journalSeq: number, image: () => StoreImage): Promise<{ done: Promise<void> }>;
  /** Folds what the journal holds, then releases the files. */
  close(image: () => StoreImage): Promise<void>;
  /** Closes the files without writing anything (what a crash leaves behind). */
  abandon(): Promise<void>;
}

/** The journal may grow to this share of the data file before a fold (see `foldThreshold`). */
export const FOLD_JOURNAL_SHARE = 0.5;

/**
 * Per collection, key → record, each record kept as compact text (`packed-records.ts`: less than
 * half the memory of an object); split maps, so that growing never rehashes a whole collection at once.
 */
type Maps = { [C in CollectionName]: PackedMap<Collections[C]> };

export class Store {
  private readonly maps: Maps;
  // Indexes.
  /**
   * Per merchant: a 31-bit hash of vendorReference → the id of the transaction with that
   * reference, or the ids of those whose references share the hash (the records themselves
   * tell them apart). Keyed by the hash, not the reference: a copy of the reference per
   * transaction would cost ~24 bytes more each.
   */
  private readonly byVendorRef = new Map<string, ShardedMap<string | string[], number>>();
  private readonly sessionByDigest = new ShardedMap<string>();
  /** Per merchant, its transactions in creation order (`time-order.ts`): the lists' order, without a sort. */
  private readonly txOrder = new Map<string, TimeOrder>();
  /** Per merchant, the ids of its transactions that hold credit (`holdsCredit`: the credit limit reads them on a create). */
  private readonly openByMerchant = new Map<string, ShardedMap<true>>();
  private readonly pendingByMerchant = new Map<string, Set<string>>();
  private readonly smsByMerchant = new Map<string, string[]>();
  private readonly outboxByMerchant = new Map<string, string[]>();
  private readonly outboxPending = new Set<string>();
  /** Per list of ids by merchant (SMS, outbox): the merchants some of whose records were deleted since it was last read. */
  private readonly deletedFrom = new Map<Map<string, string[]>, Set<string>>();
  private readonly intentsBySession = new ShardedMap<number>();
  /** True while the constructor loads the records: the creation orders are appended to, then sorted once. */
  private loading = false;
  // Group commit.
  private queue: Change[][] = [];
  private appliedSeq = 0;
  private durableSeq = 0;
  private waiters: Array<{ seq: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private flushing: Promise<void> | null = null;
  /** The data file being written by a background fold, if any. */
  private folding: Promise<void> | null = null;
  /** Per batch not yet durable: the changes that undo it, to roll back a failed write. */
  private undo: Array<{ seq: number; inverse: Change[] }> = [];
  /**
   * Per record a batch not yet durable changed (`collection/key`): that batch's number. A read of
   * a record outside it waits for nothing (it is on disk as read), so a slow fsync delays only
   * the requests whose records it holds.
   */
  private readonly dirty = new Map<string, number>();
  /** The last write failure, while writes are refused (until `refuseUntil`). */
  private failed: StoreUnavailableError | null = null;
  private refuseUntil = 0;
  private journalSeq: number;
  private closed = false;
  /** Number of journal writes so far (group commits), for tests and diagnostics. */
  writes = 0;
  /** Number of folds started so far, for tests and diagnostics. */
  folds = 0;
  /** The longest journal write (append + fsync, wall ms) since this was last set to 0: for diagnostics. */
  slowestWriteMs = 0;

  private constructor(
    initial: PackedImage['collections'] | null,
    journalSeq: number,
    private readonly persistence: Persistence | null,
    private readonly compactAfterBytes: number,
    private readonly failure: StoreFailurePolicy = { retryAfterSeconds: 0 }, // a memory store never fails a write
  ) {
    this.journalSeq = journalSeq;
    this.maps = Object.fromEntries(COLLECTIONS.map((c) => [c, new PackedMap()])) as unknown as Maps;
    if (initial) {
      this.loading = true;
      for (const c of COLLECTIONS) {
        let entries: Iterable<[string, string]> = initial[c];
        // The indexes kept in insertion order want the records in time order: open transactions by
        // the end of their window, SMS and webhook events by creation.
        const orderBy = START_ORDER[c];
        if (orderBy)
          entries = [...initial[c]]
            .map(([k, s]) => ({ k, s, t: packedTime(s, orderBy) }))
            .sort((a, b) => a.t - b.t)
            .map(({ k, s }): [string, string] => [k, s]);
        for (const [k, s] of entries) this.put({ c, k, v: unpackRecord(k, s) } as Change, s);
      }
      for (const order of this.txOrder.values()) order.sort();
      this.loading = false;
    }
  }

  /** A store that keeps nothing on disk. */
  static memory(): Store {
    return new Store(null, 0, null, Infinity);
  }

  /** A store over `p`, holding `initial` (the records as of journal batch `journalSeq`): used by `openFileStore`. */
  static fromPersistence(
    initial: PackedImage['collections'],
    journalSeq: number,
    p: Persistence,
    compactAfterBytes: number,
    failure?: StoreFailurePolicy,
  ): Store {
    return new Store(initial, journalSeq, p, compactAfterBytes, failure);
  }

  /** Applies a batch to memory now and resolves once it is on disk (grouped with concurrent batches). */
  commit(changes: Change[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    if (this.failed) {
      if ((this.failure.now ?? Date.now)() < this.refuseUntil) return Promise.reject(this.failed);
      this.failed = null; // the wait is over: try the disk again
    }
    if (changes.length === 0) return this.barrier();
    if (!this.persistence) {
      for (const ch of changes) this.put(ch);
      return Promise.resolve();
    }
    const seq = ++this.appliedSeq;
    const inverse: Change[] = [];
    for (const ch of changes) {
      inverse.push({ c: ch.c, k: ch.k, v: (this.maps[ch.c] as PackedMap<object>).get(ch.k) ?? null } as Change);
      this.put(ch);
      this.dirty.set(`${ch.c}/${ch.k}`, seq);
    }
    this.queue.push(changes);
    this.undo.push({ seq, inverse });
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    // Start the write on the next microtask: every batch committed in this tick joins it.
    this.flushing ??= Promise.resolve().then(() => this.flushLoop());
    return p;
  }

  /**
   * Journal bytes that start a fold: `compactAfterBytes`, or half the data file when that is
   * more. A fold rewrites the whole data file, so folding after a fixed number of journal bytes
   * would write a large store over and over (200,000 transactions: ~120 MiB per 16 MiB of
   * journal); growing the threshold with the file bounds the writes to about three bytes per
   * journal byte (the byte, then twice in folds), as Redis' `auto-aof-rewrite-percentage` does,
   * and a start replays at most half a data file's worth of journal.
   */
  private foldThreshold(p: Persistence): number {
    return Math.max(this.compactAfterBytes, p.dataBytes() * FOLD_JOURNAL_SHARE);
  }

  /** False while writes are refused after a failed one (ADR-026): readiness reports it. */
  get writable(): boolean {
    return this.failed === null || (this.failure.now ?? Date.now)() >= this.refuseUntil;
  }

  /** Null while writes are taken; else the seconds until the next write tries the disk again (ADR-026). */
  refusedFor(): number | null {
    if (this.writable) return null;
    return Math.max(1, Math.ceil((this.refuseUntil - (this.failure.now ?? Date.now)()) / 1000));
  }

  /** True when every change applied so far is on disk (then `barrier()` would resolve at once). */
  get settled(): boolean {
    return this.durableSeq >= this.appliedSeq;
  }

  /** Resolves once every change applied so far is on disk (a reader calls this before answering). */
  barrier(): Promise<void> {
    return this.durableUpTo(this.appliedSeq);
  }

  /**
   * Resolves once record `k` of `c`, as memory holds it now (or its absence), is on disk: at once
   * when no batch in flight changed it. Rejects when that batch's write fails (it is undone).
   */
  barrierFor(c: CollectionName, k: string): Promise<void> {
    return this.durableUpTo(this.dirty.get(`${c}/${k}`) ?? 0);
  }

  private durableUpTo(seq: number): Promise<void> {
    if (this.durableSeq >= seq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  private async flushLoop(): Promise<void> {
    const p = this.persistence!;
    try {
      while (this.queue.length > 0) {
        const batches = this.queue;
        const upTo = this.appliedSeq;
        this.queue = [];
        try {
          this.journalSeq += 1;
          const t0 = performance.now();
          await p.append(this.journalSeq, batches);
          this.slowestWriteMs = Math.max(this.slowestWriteMs, performance.now() - t0);
          this.writes += 1;
        } catch (e) {
          this.journalSeq -= 1; // not written: the persistence cut the journal back
          this.rollBack(new StoreUnavailableError(e, this.failure.retryAfterSeconds));
          return;
        }
        this.durableSeq = upTo;
        while (this.undo.length > 0 && this.undo[0]!.seq <= upTo) {
          for (const ch of this.undo.shift()!.inverse) {
            const k = `${ch.c}/${ch.k}`;
            if (this.dirty.get(k)! <= upTo) this.dirty.delete(k);
          }
        }
        this.release();
        if (p.journalBytes() > this.foldThreshold(p) && this.queue.length === 0 && !this.folding) {
          // Memory is exactly what is on disk now (nothing queued): the fold's image, if it needs one.
          try {
            this.folds += 1;
            const { done } = await p.foldInBackground(this.journalSeq, () => this.image());
            this.folding = done
              .catch((e: unknown) => {
                // The journals still hold everything; the fold is tried again at the next threshold.
                process.emitWarning(`paylater store: compaction failed: ${(e as Error).message}`);
              })
              .finally(() => (this.folding = null));
          } catch (e) {
            process.emitWarning(`paylater store: compaction failed: ${(e as Error).message}`);
          }
        }
      }
    } finally {
      this.flushing = null;
      if (this.queue.length > 0) this.flushing = this.flushLoop();
    }
  }

  /**
   * Undoes in memory every batch not on disk (the failed write and any queued after it,
   * which may have read it), newest first, and rejects their waiters and the readers waiting
   * on them; memory is then what the disk holds. Writes are refused until the wait is over.
   * @rule ADR-026
   */
  private rollBack(err: StoreUnavailableError): void {
    for (let i = this.undo.length - 1; i >= 0; i--) {
      const inverse = this.undo[i]!.inverse;
      for (let j = inverse.length - 1; j >= 0; j--) this.put(inverse[j]!);
    }
    this.undo = [];
    this.dirty.clear();
    this.queue = [];
    this.appliedSeq = this.durableSeq;
    this.failed = err;
    process.emitWarning(`paylater store: ${err.message}; writes refused for ${err.retryAfterSeconds} s, reads go on`);
    this.refuseUntil = (this.failure.now ?? Date.now)() + err.retryAfterSeconds * 1000;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  private release(): void {
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) (w.seq <= this.durableSeq ? w.resolve : () => keep.push(w))();
    this.waiters = keep;
  }

  /** A consistent copy of everything (records are never mutated in place). */
  image(): StoreImage {
    const collections = {} as Record<string, Record<string, unknown>>;
    for (const c of COLLECTIONS) collections[c] = Object.fromEntries<unknown>(this.maps[c]);
    return { journalSeq: this.journalSeq, collections: collections as StoreImage['collections'] };
  }

  /** Bytes of journal text since the last fold (0 for a memory store): for the bench and diagnostics. */
  journalBytes(): number {
    return this.persistence?.journalBytes() ?? 0;
  }

  /** Resolves once pending writes and any background fold are done. */
  async settle(): Promise<void> {
    while (this.flushing || this.folding) await (this.flushing ?? this.folding);
  }

  /** Waits for pending writes, folds the journal into the data file and releases the files. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.settle();
    this.closed = true;
    await this.persistence?.close(() => this.image());
  }

  /**
   * Leaves the files as a crash after the last acknowledged write would (journal not folded,
   * nothing more written) and releases them: for crash simulations in tests.
   */
  async abandon(): Promise<void> {
    if (this.closed) return;
    await this.settle();
    this.closed = true;
    await this.persistence?.abandon();
  }

  // ---- memory and indexes ----

  /** Applies `ch` to memory and the indexes; `packed`: `ch.v` already packed (at start). */
  private put(ch: Change, packed?: string): void {
    switch (ch.c) {
      case 'transactions':
        return this.putTransaction(ch.k, ch.v, packed);
      case 'sessions':
        return this.putSession(ch.k, ch.v, packed);
      case 'sms': {
        const m = this.maps.sms;
        if (ch.v && !m.has(ch.k)) push(this.smsByMerchant, ch.v.merchantId, ch.k);
        if (ch.v) m.set(ch.k, ch.v, packed);
        else this.deleteListed(this.smsByMerchant, m, ch.k);
        return;
      }
      case 'outbox':
        return this.putOutbox(ch.k, ch.v, packed);
      case 'paymentIntents': {
        const m = this.maps.paymentIntents;
        const old = m.get(ch.k);
        if (old) this.intentsBySession.set(old.sessionId, (this.intentsBySession.get(old.sessionId) ?? 1) - 1);
        if (ch.v) {
          m.set(ch.k, ch.v, packed);
          this.intentsBySession.set(ch.v.sessionId, (this.intentsBySession.get(ch.v.sessionId) ?? 0) + 1);
        } else m.delete(ch.k);
        return;
      }
      default: {
        const m = this.maps[ch.c] as PackedMap<object>;
        if (ch.v) m.set(ch.k, ch.v, packed);
        else m.delete(ch.k);
      }
    }
  }

  private putTransaction(k: string, v: TransactionRecord | null, packed?: string): void {
    const m = this.maps.transactions;
    const old = m.get(k);
    if (old) {
      if (old.vendorReference !== null) this.unlistVendorRef(old.merchantId, old.vendorReference, k);
      this.pendingByMerchant.get(old.merchantId)?.delete(k);
      this.openByMerchant.get(old.merchantId)?.delete(k);
      // A record's merchant and createdAt never change; a deletion (a sandbox reset) takes it out.
      if (!v || v.merchantId !== old.merchantId || v.createdAt !== old.createdAt) this.txOrder.get(old.merchantId)?.remove(k);
    }
    if (!v) {
      m.delete(k);
      return;
    }
    m.set(k, v, packed);
    if (v.vendorReference !== null) {
      let refs = this.byVendorRef.get(v.merchantId);
      if (!refs) this.byVendorRef.set(v.merchantId, (refs = new ShardedMap<string | string[], number>()));
      const h = hash31(v.vendorReference);
      const ids = refs.get(h);
      refs.set(h, ids === undefined ? k : typeof ids === 'string' ? [ids, k] : [...ids, k]);
    }
    if (!old || v.merchantId !== old.merchantId || v.createdAt !== old.createdAt) {
      let order = this.txOrder.get(v.merchantId);
      if (!order) this.txOrder.set(v.merchantId, (order = new TimeOrder()));
      if (this.loading) order.append(createdMs(v.createdAt), k);
      else order.add(createdMs(v.createdAt), k);
    }
    if (v.status === 'PENDING') addTo(this.pendingByMerchant, v.merchantId, k);
    if (holdsCredit(v.status)) {
      let open = this.openByMerchant.get(v.merchantId);
      if (!open) this.openByMerchant.set(v.merchantId, (open = new ShardedMap<true>()));
      open.set(k, true);
    }
  }

  /** Takes transaction `id` (reference `ref`) out of `byVendorRef`. */
  private unlistVendorRef(merchantId: string, ref: string, id: string): void {
    const refs = this.byVendorRef.get(merchantId);
    const h = hash31(ref);
    const ids = refs?.get(h);
    if (ids === undefined) return;
    const rest = typeof ids === 'string' ? [ids] : ids;
    const left = rest.filter((x) => x !== id);
    if (left.length === 0) refs!.delete(h);
    else refs!.set(h, left.length === 1 ? left[0]! : left);
  }

  private putSession(k: string, v: SessionRecord | null, packed?: string): void {
    const old = this.maps.sessions.get(k);
    if (old) this.sessionByDigest.delete(old.tokenDigest);
    if (!v) {
      this.maps.sessions.delete(k);
      return;
    }
    this.maps.sessions.set(k, v, packed);
    this.sessionByDigest.set(v.tokenDigest, k);
  }

  private putOutbox(k: string, v: OutboxEvent | null, packed?: string): void {
    const m = this.maps.outbox;
    if (v && !m.has(k)) push(this.outboxByMerchant, v.merchantId, k);
    if (!v) {
      this.deleteListed(this.outboxByMerchant, m, k);
      this.outboxPending.delete(k);
      return;
    }
    m.set(k, v, packed);
    if (v.state === 'pending') this.outboxPending.add(k);
    else this.outboxPending.delete(k);
  }

  /** Deletes record `k` of `records`, listed by merchant in `lists`: the list drops it on its next read. */
  private deleteListed(lists: Map<string, string[]>, records: PackedMap<{ merchantId: string }>, k: string): void {
    const old = records.get(k);
    if (!old) return;
    records.delete(k);
    let merchants = this.deletedFrom.get(lists);
    if (!merchants) this.deletedFrom.set(lists, (merchants = new Set()));
    merchants.add(old.merchantId);
  }

  // ---- reads ----

  get<C extends CollectionName>(c: C, k: string): Collections[C] | undefined {
    return this.maps[c].get(k);
  }
  /** Every record of `c` (a scan: for rare bulk operations such as a sandbox reset). */
  values<C extends CollectionName>(c: C): IterableIterator<Collections[C]> {
    return this.maps[c].values();
  }
  count(c: CollectionName): number {
    return this.maps[c].size;
  }
  transactionByVendorReference(merchantId: string, vendorReference: string): TransactionRecord | undefined {
    const ids = this.byVendorRef.get(merchantId)?.get(hash31(vendorReference));
    if (typeof ids === 'string') {
      const t = this.maps.transactions.get(ids);
      return t?.vendorReference === vendorReference ? t : undefined;
    }
    for (const id of ids ?? []) {
      const t = this.maps.transactions.get(id);
      if (t?.vendorReference === vendorReference) return t;
    }
    return undefined;
  }
  sessionByTokenDigest(digest: string): SessionRecord | undefined {
    const id = this.sessionByDigest.get(digest);
    return id === undefined ? undefined : this.maps.sessions.get(id);
  }
  /**
   * Up to `limit` of the merchant's transactions newest first (`createdAt`, then id, descending; a
   * record's `createdAt` never changes) after the one `cursor` names (null, or not the merchant's:
   * from the newest), and whether older ones follow. Only the page is decoded.
   */
  transactionsPage(merchantId: string, limit: number, cursor: string | null): { items: TransactionRecord[]; more: boolean } {
    const order = this.txOrder.get(merchantId);
    if (!order) return { items: [], more: false };
    const at = cursor === null ? null : this.maps.transactions.get(cursor);
    const { ids, more } = order.newestFirst(limit, at && at.merchantId === merchantId ? { ms: createdMs(at.createdAt), id: at.id } : null);
    return { items: ids.map((id) => this.maps.transactions.get(id)!), more };
  }
  /** How many transactions the merchant has. */
  merchantTransactionCount(merchantId: string): number {
    return this.txOrder.get(merchantId)?.size ?? 0;
  }
  /** The ids of the merchant's transactions, in no particular order. */
  merchantTransactionIds(merchantId: string): readonly string[] {
    return this.txOrder.get(merchantId)?.all() ?? [];
  }
  /** The merchant's transactions that hold credit (`holdsCredit`), in no particular order. */
  *openTransactions(merchantId: string): Iterable<TransactionRecord> {
    for (const id of this.openByMerchant.get(merchantId)?.keys() ?? []) {
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
  /** The entries of the largest table over all records an insertion may rehash at once (for tests and diagnostics). */
  largestTable(): number {
    const sharded = [
      ...Object.values(this.maps),
      this.sessionByDigest,
      this.intentsBySession,
      ...this.byVendorRef.values(),
      ...this.openByMerchant.values(),
    ];
    // Left whole: per-merchant tables (as many as merchants), and the open transactions and pending
    // deliveries (bounded by the payment window and the retry schedule; kept in order).
    const plain = [this.byVendorRef, this.txOrder, this.openByMerchant, this.outboxPending];
    return Math.max(...sharded.map((m) => m.largestPart), ...plain.map((m) => m.size));
  }
  pendingMerchants(): string[] {
    return [...this.pendingByMerchant.entries()].filter(([, s]) => s.size > 0).map(([k]) => k);
  }
  /** How many payment intents session `sessionId` holds. */
  paymentIntentCount(sessionId: string): number {
    return this.intentsBySession.get(sessionId) ?? 0;
  }
  /** The ids of the merchant's SMS, oldest first (no record decoded). */
  smsIds(merchantId: string): readonly string[] {
    return this.liveIds(this.smsByMerchant, merchantId, this.maps.sms);
  }
  /** The ids of the merchant's webhook events, oldest first (no record decoded). */
  outboxIds(merchantId: string): readonly string[] {
    return this.liveIds(this.outboxByMerchant, merchantId, this.maps.outbox);
  }
  /** The ids listed for `merchantId` in `lists`, without those deleted since (dropped from the list once, on the first read after). */
  private liveIds(lists: Map<string, string[]>, merchantId: string, records: PackedMap<object>): readonly string[] {
    const ids = lists.get(merchantId) ?? [];
    if (!this.deletedFrom.has(lists) || !this.deletedFrom.get(lists)!.delete(merchantId)) return ids;
    const live = ids.filter((id) => records.has(id));
    lists.set(merchantId, live);
    return live;
  }
  pendingOutbox(): OutboxEvent[] {
    return [...this.outboxPending].flatMap((id) => this.maps.outbox.get(id) ?? []);
  }
}

/** Per collection whose indexes keep time order: the field whose time places a record at start. */
const START_ORDER: { [C in CollectionName]?: keyof Collections[C] & string } = {
  transactions: 'expiresAt',
  sms: 'sentAt',
  outbox: 'createdAt',
};

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
