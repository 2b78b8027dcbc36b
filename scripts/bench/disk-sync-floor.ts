/**
 * Figure: the disk's own worst `fdatasync`, in ms (reported): the floor under
 * `store-200k-latency`'s worst request. Every write the embedded store answers waits for an
 * `fdatasync` of its log (ADR-047: durable before answered), so no answered write can be faster
 * than the slowest sync the disk gives while it runs.
 *
 * Nothing else of ours runs: one file in the folder the store's bench uses (`os.tmpdir()`),
 * 64 MiB written once, then 16 KiB appended in place and synced in a loop (the store's log is
 * overwritten from its start after each checkpoint's restart; a group commit writes a few pages),
 * for `BENCH_ROUNDS` × `BENCH_DURATION` × 4 seconds. Printed: the syncs, their median, p99, p99.9
 * and worst, and how many took over 50 ms (the store's target for a whole request). The ratio is
 * the worst sync in ms (docs/performance.md has the runs).
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fmt, inTempDir, type Figure } from './tools.ts';

const FILE_BYTES = 64 * 2 ** 20;
const APPEND_BYTES = 16 * 1024;
/** The store's target for a whole request (store-200k-latency). */
const REQUEST_TARGET_MS = 50;

export const diskSyncFloor: Figure = {
  id: 'disk-sync-floor',
  title: "The disk's worst fdatasync (16 KiB append, nothing else), ms",
  target: 'report',
  run: (ctx) =>
    inTempDir('paylater-bench-sync-', async (dir) => {
      const fd = openSync(path.join(dir, 'log'), 'w');
      try {
        const chunk = Buffer.alloc(APPEND_BYTES, 0x5a);
        for (let off = 0; off < FILE_BYTES; off += chunk.length) writeSync(fd, chunk, 0, chunk.length, off);
        fdatasyncSync(fd);
        const seconds = Math.max(ctx.rounds, 1) * Math.max(ctx.durationSeconds, 1) * 4;
        const times: number[] = [];
        const end = performance.now() + seconds * 1000;
        for (let off = 0; performance.now() < end; off = (off + chunk.length) % FILE_BYTES) {
          writeSync(fd, chunk, 0, chunk.length, off);
          const t = performance.now();
          fdatasyncSync(fd);
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
        const worst = times.at(-1)!;
        const over = times.filter((t) => t > REQUEST_TARGET_MS).length;
        return {
          ratio: worst,
          detail:
            `${fmt(times.length)} syncs in ${seconds} s (${path.dirname(dir)}): median ${fmt(at(0.5), 2)} ms, p99 ${fmt(at(0.99), 2)} ms, ` +
            `p99.9 ${fmt(at(0.999), 2)} ms, worst ${fmt(worst, 1)} ms; ${over} over ${REQUEST_TARGET_MS} ms`,
        };
      } finally {
        closeSync(fd);
      }
    }),
};
