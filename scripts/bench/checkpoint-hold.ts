/**
 * Figure: how long the checkpoint's last step holds commits back (reported), the choice behind
 * `store/sqlite/checkpointer.ts` and ADR-058 measured side by side. On a database made by the store
 * (its migrations: every table and index), the event loop commits groups of creates as the store
 * does (a transaction row, its SMS row; `fdatasync` of the log after each commit, off the event
 * loop) while the store's own checkpointer (`checkpointer.ts`: passive rounds every 250 ms that
 * catch up) ends with either `RESTART` (the store's) or `TRUNCATE` (its last step before), and ids
 * are either random (version 4) or in time order (version 7, ADR-058). Per configuration, alternating for
 * `BENCH_ROUNDS` rounds of `BENCH_DURATION` × 3 seconds: the longest a `BEGIN IMMEDIATE` waited
 * (the hold), the log pages written per create, creates/s.
 *
 * The ratio is the worst hold of the store's configuration (RESTART, version 7) ÷ that of the
 * previous last step and ids (TRUNCATE, version 4).
 */
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { orderReference } from '../../reference-server/domain/ids.ts';
import { openSqliteRepository } from '../../reference-server/store/sqlite/sqlite-repository.ts';
import { configure } from '../../reference-server/store/sqlite/sqlite-file.ts';
import { Checkpointer } from '../../reference-server/store/sqlite/checkpointer.ts';
import { fmt, inTempDir, median, type Figure } from './tools.ts';

type Mode = 'TRUNCATE' | 'RESTART';
interface Config {
  mode: Mode;
  ids: 'v4' | 'v7';
}
const CONFIGS: Config[] = [
  { mode: 'TRUNCATE', ids: 'v4' },
  { mode: 'RESTART', ids: 'v4' },
  { mode: 'TRUNCATE', ids: 'v7' },
  { mode: 'RESTART', ids: 'v7' },
];
/** Creates per group commit (the store commits what waited, up to 256). */
const GROUP = 20;

/** Bytes this process's main thread has handed to write() so far (Linux: /proc/<pid>/task/<pid>/io). */
function mainThreadBytesWritten(): number {
  const m = /^wchar: (\d+)$/m.exec(readFileSync(`/proc/${process.pid}/task/${process.pid}/io`, 'utf8'));
  if (!m) throw new Error('no wchar in /proc/<pid>/task/<pid>/io');
  return Number(m[1]);
}

interface Measured {
  holdMaxMs: number;
  holdsOver10: number;
  pagesPerCreate: number;
  createsPerSecond: number;
}

async function measure(file: string, config: Config, seconds: number): Promise<Measured> {
  const db = new DatabaseSync(file);
  configure(db);
  const fileFd = openSync(file, 'r+');
  const checkpointer = new Checkpointer(file, fileFd, config.mode);
  const id = config.ids === 'v4' ? randomUUID : randomUUIDv7;
  const insertTx = db.prepare(
    `INSERT INTO transactions (id, merchant_id, kind, order_reference, vendor_reference, status, total_centimes, currency,
       customer_phone, items, created_at, expires_at) VALUES (?, 'm_bench', 'partner', ?, NULL, 'PENDING', 129950, 'MAD', '212612345678', ?, ?, ?)`,
  );
  const insertSms = db.prepare(
    `INSERT INTO sms (id, merchant_id, to_phone, body, transaction_id, sent_at) VALUES (?, 'm_bench', '212612345678', ?, ?, ?)`,
  );
  const items = JSON.stringify([
    { id: randomUUID(), name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPriceCentimes: 129950, categoryId: 42 },
  ]);
  const smsBody = 'Demo Shop: confirm your payment of 1,299.50 MAD (ORD-0000000000) within 30 minutes.';
  const log = await open(`${file}-wal`, 'r+');
  let creates = 0;
  const written = mainThreadBytesWritten();
  let holdMaxMs = 0;
  let holdsOver10 = 0;
  const end = performance.now() + seconds * 1000;
  try {
    while (performance.now() < end) {
      const t = performance.now();
      for (;;) {
        try {
          db.exec('BEGIN IMMEDIATE');
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 2)); // held by the checkpoint: off the event loop, as the store
        }
      }
      const held = performance.now() - t;
      holdMaxMs = Math.max(holdMaxMs, held);
      if (held > 10) holdsOver10 += 1;
      for (let i = 0; i < GROUP; i++) {
        const txId = id();
        const now = new Date().toISOString();
        insertTx.run(txId, orderReference(), items, now, now);
        insertSms.run(id(), smsBody, txId, now);
      }
      db.exec('COMMIT');
      await log.datasync();
      creates += GROUP;
      checkpointer.committed();
    }
  } finally {
    await checkpointer.close();
    await log.close();
    db.close();
    closeSync(fileFd); // after the last connection to the file
  }
  // The event loop's thread writes only the log (the checkpoints write from the worker's): a frame is 24 bytes of header and a 4 KiB page.
  const pages = (mainThreadBytesWritten() - written) / 4120;
  return { holdMaxMs, holdsOver10, pagesPerCreate: pages / creates, createsPerSecond: creates / seconds };
}

export const checkpointHold: Figure = {
  id: 'checkpoint-hold',
  title: "Checkpoint's hold on commits: store's (RESTART, UUID v7) ÷ previous (TRUNCATE, v4), worst ms",
  target: 'report',
  run: (ctx) =>
    inTempDir('paylater-bench-ckpt-', async (dir) => {
      const seconds = Math.max(ctx.durationSeconds, 5) * 3;
      const results = new Map<Config, Measured[]>(CONFIGS.map((c) => [c, []]));
      for (let round = 0; round < Math.max(ctx.rounds, 1); round++) {
        for (const config of CONFIGS) {
          const file = path.join(dir, `${config.mode}-${config.ids}-${round}.db`);
          await (await openSqliteRepository({ file })).close(); // the store's own file: its migrations, every index
          results.get(config)!.push(await measure(file, config, seconds));
        }
      }
      const worst = (c: Config) => Math.max(...results.get(c)!.map((m) => m.holdMaxMs));
      const lines = CONFIGS.map((c) => {
        const ms = results.get(c)!;
        return (
          `${c.mode.padEnd(8)} ids ${c.ids}: commits held at most ${fmt(worst(c), 1)} ms (per round ${ms.map((m) => fmt(m.holdMaxMs, 1)).join(', ')}; holds over 10 ms ${ms.map((m) => m.holdsOver10).join(', ')}); ` +
          `${fmt(median(ms.map((m) => m.pagesPerCreate)), 2)} log pages per create; ${fmt(median(ms.map((m) => m.createsPerSecond)))} creates/s (median)`
        );
      });
      return { ratio: worst(CONFIGS[3]!) / worst(CONFIGS[0]!), detail: lines.join('\n  ') };
    }),
};
