/**
 * Figure: the resident memory of one `paylater serve --database-url` process while its database
 * grows from 0 to 100,000 transactions (target: growth < 50 MB). The rows are inserted in steps
 * by SQL (settled transactions of the first demo merchant); after each step the instance serves
 * B1 creates and reads by vendor reference for a while, then its RSS is read from /proc. The growth is
 * the highest RSS after a step minus the RSS on the empty database after the same load, run a
 * few times first so that the heap has settled.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildMerchants, DEMO_MERCHANTS } from '../../reference-server/config.ts';
import { migrateUrl } from '../../reference-server/store/postgres/migrate.ts';
import { startInstance, type Instance } from '../../reference-server/test-support/pg-instances.ts';
import { clusterOrReason, createsPerSecond } from './pg-tools.ts';
import { checkClean, fmt, load, type Figure } from './tools.ts';

const TOTAL = 100_000;
const STEPS = 5;
const LOAD_SECONDS = 3;
/** Loads on the empty database before its RSS is taken. */
const WARMUPS = 3;

/** Resident memory of process `pid` in bytes (Linux /proc). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) * 1024;
}

/** Inserts settled transactions `from`..`to` (inclusive) of `merchantId`. */
async function seed(client: pg.Client, merchantId: string, from: number, to: number): Promise<void> {
  await client.query(
    `INSERT INTO transactions (id, merchant_id, kind, order_reference, vendor_reference, status, total_centimes, currency,
       customer_phone, items, created_at, updated_at, expires_at)
     SELECT gen_random_uuid(), $1, 'partner', 'ORD-S' || lpad(g::text, 9, '0'), 'SEED-' || g,
       (ARRAY['APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'])[1 + g % 4], 129950, 'MAD', '212612345678',
       '[{"id":"10000000-0000-4000-8000-000000000000","name":"Wireless headphones","reference":"SKU-100","quantity":1,"unitPriceCentimes":129950,"categoryId":42}]',
       now() - (${TOTAL} - g) * interval '1 minute', now() - (${TOTAL} - g) * interval '1 minute' + interval '1 second',
       now() - (${TOTAL} - g) * interval '1 minute' + interval '30 minutes'
     FROM generate_series($2::int, $3::int) AS g`,
    [merchantId, from, to],
  );
}

/** Creates, and reads of a seeded transaction by its vendor reference, on the instance for `LOAD_SECONDS`. */
async function exercise(base: string, connections: number): Promise<void> {
  const key = DEMO_MERCHANTS[0]!.apiKey;
  const [, reads] = await Promise.all([
    createsPerSecond(base, LOAD_SECONDS, connections),
    load({
      url: `${base}/api/v1/public/partner/transactions/vendor/SEED-1`,
      headers: { 'X-Api-Key': key },
      connections: 2,
      duration: LOAD_SECONDS,
    }),
  ]);
  // Before the first step there is no SEED-1: 404 is its answer then.
  if (reads.errors > 0 || reads.timeouts > 0) checkClean('B2 reads', reads);
}

export const pgRss100k: Figure = {
  id: 'pg-rss-100k',
  title: 'RSS growth of an instance, database 0 → 100,000 transactions, MB',
  target: '< 50',
  pass: (r) => r < 50,
  async run(ctx) {
    const cluster = await clusterOrReason();
    if (typeof cluster === 'string') return { ratio: null, detail: '', reason: cluster };
    if (process.platform !== 'linux') return { ratio: null, detail: '', reason: 'reads RSS from /proc (Linux only)' };
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-rss-'));
    let instance: Instance | null = null;
    try {
      const url = await cluster.createDatabase();
      await migrateUrl(url);
      instance = await startInstance({ databaseUrl: url, dir, args: ['--no-auth-throttle'] });
      const pid = instance.child.pid!;
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        const merchantId = buildMerchants([...DEMO_MERCHANTS])[0]!.id;
        // Warm up on the empty database until the heap settles (compiled code, pools, buffers).
        for (let i = 0; i < WARMUPS; i++) await exercise(instance.baseUrl, ctx.connections);
        const base = rssOf(pid);
        const samples: Array<{ rows: number; rss: number }> = [];
        for (let step = 1; step <= STEPS; step++) {
          const to = (TOTAL / STEPS) * step;
          await seed(db, merchantId, to - TOTAL / STEPS + 1, to);
          await exercise(instance.baseUrl, ctx.connections);
          const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM transactions');
          samples.push({ rows: Number(rows[0]!.n), rss: rssOf(pid) });
        }
        const peak = Math.max(...samples.map((s) => s.rss));
        const mb = (b: number) => b / 2 ** 20;
        return {
          ratio: mb(peak - base),
          detail:
            `RSS ${fmt(mb(base), 1)} MB on the empty database (after ${WARMUPS} such loads), highest ${fmt(mb(peak), 1)} MB; after each step: ` +
            samples.map((s) => `${fmt(s.rows)} rows ${fmt(mb(s.rss), 1)} MB`).join(', ') +
            ` (${LOAD_SECONDS} s of B1 creates on ${ctx.connections} connections and reads after each step)`,
        };
      } finally {
        await db.end();
      }
    } finally {
      await instance?.stop();
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
