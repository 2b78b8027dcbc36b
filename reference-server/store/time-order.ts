/**
 * A merchant's transaction ids in `(createdAt, id)` order, oldest first, kept in order as they
 * come (a create lands at or near the end: a binary search and an append), so a page of the
 * list newest first is a binary search and a slice: no sort, and no record decoded to order it.
 * Two parallel arrays (the times as doubles, the ids as the records' own key strings) cost
 * 16 bytes per transaction.
 */
export class TimeOrder {
  private ms: number[] = [];
  private ids: string[] = [];
  /** False after `append` until `sort`: a bulk load appends in any order and sorts once. */
  private sorted = true;
  /** Ids removed since the arrays were last compacted: a reset removes them all in one pass, not one splice each. */
  private removed = new Set<string>();

  get size(): number {
    this.ensureClean();
    return this.ids.length;
  }

  /** The first index whose `(ms, id)` is not before `(ms, id)`. */
  private lowerBound(ms: number, id: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.ms[mid]!;
      if (m < ms || (m === ms && this.ids[mid]! < id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds `id` created at `ms` in its place. */
  add(ms: number, id: string): void {
    this.ensureClean();
    const i = this.lowerBound(ms, id);
    if (i === this.ids.length) {
      this.ms.push(ms);
      this.ids.push(id);
    } else {
      this.ms.splice(i, 0, ms);
      this.ids.splice(i, 0, id);
    }
  }

  /** Adds `id` at the end, out of order until the next `sort` (or read). */
  append(ms: number, id: string): void {
    this.ms.push(ms);
    this.ids.push(id);
    this.sorted = false;
  }

  /** Removes `id` (held); the arrays drop it on the next read or add. */
  remove(id: string): void {
    this.removed.add(id);
  }

  /** Where `id` created at `ms` is, or -1. */
  indexOf(ms: number, id: string): number {
    this.ensureClean();
    const i = this.lowerBound(ms, id);
    return this.ids[i] === id ? i : -1;
  }

  /**
   * Up to `limit` ids newest first, after `after` (an id created at `ms`; null, or one not held:
   * from the newest), and whether any older ones follow.
   */
  newestFirst(limit: number, after: { ms: number; id: string } | null): { ids: string[]; more: boolean } {
    this.ensureClean();
    let end = this.ids.length;
    if (after) {
      const i = this.indexOf(after.ms, after.id);
      if (i >= 0) end = i;
    }
    const start = Math.max(0, end - limit);
    return { ids: this.ids.slice(start, end).reverse(), more: start > 0 };
  }

  /** Every id, in no particular order. */
  all(): readonly string[] {
    this.ensureClean();
    return this.ids;
  }

  private ensureClean(): void {
    if (this.removed.size > 0) {
      const keep = this.ids.map((_, i) => i).filter((i) => !this.removed.has(this.ids[i]!));
      this.ms = keep.map((i) => this.ms[i]!);
      this.ids = keep.map((i) => this.ids[i]!);
      this.removed.clear();
    }
    if (this.sorted) return;
    const order = this.ids.map((_, i) => i);
    order.sort((a, b) => this.ms[a]! - this.ms[b]! || (this.ids[a]! < this.ids[b]! ? -1 : this.ids[a]! > this.ids[b]! ? 1 : 0));
    this.ms = order.map((i) => this.ms[i]!);
    this.ids = order.map((i) => this.ids[i]!);
    this.sorted = true;
  }

  /** Sorts what `append` added (at the end of a bulk load, before the server takes requests). */
  sort(): void {
    this.ensureClean();
  }
}

/** The time a transaction is listed by: its `createdAt` (epoch ms; 0 when unreadable, so the order stays total). */
export function createdMs(createdAt: string): number {
  const ms = Date.parse(createdAt);
  return Number.isNaN(ms) ? 0 : ms;
}
