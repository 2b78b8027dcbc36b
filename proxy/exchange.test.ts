/**
 * The judging queue: ended exchanges judged in batches, JUDGE_BATCH_MS after the first of a batch
 * ended, in the order they ended; `drain()` judges every one at once; at its bound the oldest is
 * judged at once, nothing dropped.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JUDGE_BATCH_MS, JudgeQueue, type Exchange } from './exchange.ts';

/** An ended exchange as the queue reads it: its number and the sizes of its copies. */
const ended = (seq: number, bytes = 0): Exchange => ({ seq, request: { size: bytes }, answer: { size: 0 } }) as unknown as Exchange;
/** A turn of the event loop (its sockets handled, its immediates run). */
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the judging queue', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('exchanges that end within JUDGE_BATCH_MS of each other, over several turns of the loop, are judged in one batch, in order', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const batches: number[][] = [];
    let batch: number[] | null = null;
    const q = new JudgeQueue(
      (ex) => {
        if (!batch) {
          batches.push((batch = []));
          // a batch is what one drain judges: it ends when this turn's synchronous work does
          queueMicrotask(() => (batch = null));
        }
        batch.push(ex.seq);
      },
      () => undefined,
      () => undefined,
    );
    for (const seq of [1, 2, 3]) {
      q.push(ended(seq));
      await turn();
    }
    // three turns of the loop later, none judged yet: they wait for the batch
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(JUDGE_BATCH_MS);
    expect(batches).toEqual([[1, 2, 3]]);
    // the next exchange starts the next batch
    q.push(ended(4));
    await turn();
    expect(batches).toEqual([[1, 2, 3]]);
    vi.advanceTimersByTime(JUDGE_BATCH_MS);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('drain() judges every queued exchange at once, and the batch timer then has nothing left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const seen: number[] = [];
    const q = new JudgeQueue(
      (ex) => seen.push(ex.seq),
      () => undefined,
      () => undefined,
    );
    q.push(ended(1));
    q.push(ended(2));
    await turn();
    q.drain();
    expect(seen).toEqual([1, 2]);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(JUDGE_BATCH_MS);
    expect(seen).toEqual([1, 2]);
  });

  it('a judge that throws is reported for its exchange; the others of the batch are judged', () => {
    const seen: number[] = [];
    const failed: string[] = [];
    const q = new JudgeQueue(
      (ex) => {
        if (ex.seq === 2) throw new Error('broken rule');
        seen.push(ex.seq);
      },
      (ex, why) => failed.push(`${ex.seq}: ${why}`),
      () => undefined,
    );
    for (const seq of [1, 2, 3]) q.push(ended(seq));
    q.drain();
    expect(seen).toEqual([1, 3]);
    expect(failed).toEqual(['2: the proxy could not judge this exchange: broken rule']);
  });

  it('at 1,000 exchanges waiting, the oldest is judged at once (counted), nothing dropped', () => {
    const seen: number[] = [];
    let full = 0;
    const q = new JudgeQueue(
      (ex) => seen.push(ex.seq),
      () => undefined,
      () => full++,
    );
    for (let seq = 1; seq <= 1002; seq++) q.push(ended(seq));
    expect(seen).toEqual([1, 2]);
    expect(full).toBe(2);
    q.drain();
    expect(seen.length).toBe(1002);
    expect(seen.at(-1)).toBe(1002);
  });
});
