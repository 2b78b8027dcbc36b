/**
 * The PostgreSQL schema against a real server (a throwaway cluster, or PAYLATER_TEST_DATABASE_URL):
 * migrations apply once, even from instances starting together; a newer or edited database is
 * refused; and the exactness the shared sandbox relies on is the database's (unique vendor
 * references, one winner of a conditional update, exact counters, each outbox row claimed once).
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgresBin, startCluster, type Cluster } from '../../test-support/pg-cluster.ts';
import { loadMigrations, migrate, migrateUrl, MigrationError, runMigrate } from './migrate.ts';
import { SCHEMA_TAMPERINGS } from '../../test-support/schema-tampering.ts';
import { spawnPaylater } from '../../../scripts/lib/paylater-process.ts';
import { DEMO_MERCHANTS } from '../../config.ts';
import { partnerBody } from '../../test-support/helpers.ts';

const run = promisify(execFile);
let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster({ pausable: true });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

async function migrated(): Promise<{ url: string; pool: pg.Pool }> {
  const url = await cluster.createDatabase();
  await migrateUrl(url);
  return { url, pool: new pg.Pool({ connectionString: url, max: 20 }) };
}

async function insertTransaction(pool: pg.Pool, merchant: string, vendorReference: string | null): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO transactions (id, merchant_id, kind, order_reference, vendor_reference, status, total_centimes, currency,
       customer_phone, items, created_at, expires_at)
     VALUES ($1, $2, 'partner', $3, $4, 'PENDING', 129950, 'MAD', '212612345678', '[]', now(), now() + interval '30 minutes')`,
    [id, merchant, `ORD-${id.slice(0, 10)}`, vendorReference],
  );
  return id;
}

/**
 * The hash of the whole database, schema and rows, as pg_dump writes it (not blocking this process:
 * the cluster may be reached through its relay here, pg-cluster.ts).
 */
const dump = async (url: string) =>
  createHash('sha256')
    .update(
      (await run(path.join(findPostgresBin(), 'pg_dump'), ['--dbname', url, '--restrict-key=paylater'], { encoding: 'buffer' })).stdout,
    )
    .digest('hex');

describe('migrations', () => {
  it('apply once; a second run changes nothing', async () => {
    const url = await cluster.createDatabase();
    const latest = loadMigrations().at(-1)!.version;
    expect(await migrateUrl(url)).toEqual({ applied: loadMigrations().map((m) => m.version), version: latest });
    expect(await migrateUrl(url)).toEqual({ applied: [], version: latest });
  });

  it('three instances starting together apply each migration exactly once', async () => {
    const url = await cluster.createDatabase();
    const results = await Promise.all([migrateUrl(url), migrateUrl(url), migrateUrl(url)]);
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, loadMigrations().length]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query('SELECT version FROM schema_migrations ORDER BY version');
    await c.end();
    expect(rows.map((r: { version: number }) => r.version)).toEqual(loadMigrations().map((m) => m.version));
  });

  it('refuse a database at a newer migration, and one whose applied migration was edited', async () => {
    const url = await cluster.createDatabase();
    await migrateUrl(url);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query("INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'from_the_future', 'x')");
      await expect(migrate(c)).rejects.toThrow(/database is at migration 999 \(from_the_future\), newer than this server's latest/);
      await c.query('DELETE FROM schema_migrations WHERE version = 999');
      await c.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1");
      await expect(migrate(c)).rejects.toThrow(MigrationError);
      await expect(migrate(c)).rejects.toThrow(/migration 1 \(initial\) was changed after it was applied/);
    } finally {
      await c.end();
    }
  });

  it.each([...SCHEMA_TAMPERINGS])(
    'refuse a database whose tables the migrations did not make (%s), changing nothing',
    async (_what, sql, why) => {
      const { url, pool } = await migrated();
      await insertTransaction(pool, 'm1', 'ORDER-1');
      await pool.query(sql);
      await pool.end();
      const before = await dump(url);
      await expect(migrateUrl(url)).rejects.toThrow(MigrationError);
      await expect(migrateUrl(url)).rejects.toThrow(why);
      expect(await dump(url)).toBe(before);
    },
  );

  it('a database as its migrations made it passes the check, and keeps the search path it had', async () => {
    const { url, pool } = await migrated();
    await pool.end();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      expect(await migrate(c)).toEqual({ applied: [], version: loadMigrations().at(-1)!.version });
      expect((await c.query('SHOW search_path')).rows[0]).toEqual({ search_path: '"$user", public' });
    } finally {
      await c.end();
    }
  });

  it('paylater migrate: help, missing URL, unreachable database, success', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = [(s: string) => void out.push(s), (s: string) => void err.push(s)] as const;
    expect(await runMigrate(['--help'], ...io)).toBe(0);
    expect(out.join()).toMatch(/Usage: paylater migrate/);
    const saved = process.env.PAYLATER_DATABASE_URL;
    delete process.env.PAYLATER_DATABASE_URL;
    try {
      expect(await runMigrate([], ...io)).toBe(2);
      expect(err.at(-1)).toMatch(/no database/);
      expect(await runMigrate(['--database-url', 'postgres://nobody:secret@127.0.0.1:1/none'], ...io)).toBe(1);
      expect(err.at(-1)).toMatch(/cannot connect to the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/);
      expect(err.at(-1)).not.toMatch(/secret/);
      const url = await cluster.createDatabase();
      expect(await runMigrate([`--database-url=${url}`], ...io)).toBe(0);
      expect(out.at(-1)).toMatch(/^applied migrations 1/);
    } finally {
      if (saved !== undefined) process.env.PAYLATER_DATABASE_URL = saved;
    }
  });
});

describe("a role that may not write the store's tables", () => {
  /** `paylater serve` on `url` in a process of its own: its exit code, or the base URL it listens on; its output. */
  async function serve(url: string): Promise<{ exit: number | null; baseUrl: string | null; output: string; stop(): Promise<void> }> {
    const { child, output } = spawnPaylater(['serve', '--port', '0', '--database-url', url]);
    const exit = once(child, 'exit') as Promise<[number | null]>;
    const listening = new Promise<string>((resolve) =>
      child.stdout.on('data', () => {
        const base = /listening on (http:\/\/\S+)/.exec(output())?.[1];
        if (base) resolve(base);
      }),
    );
    const first = await Promise.race([exit.then(([code]) => ({ code })), listening]);
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exit;
      }
    };
    return typeof first === 'string'
      ? { exit: null, baseUrl: first, output: output(), stop }
      : { exit: first.code, baseUrl: null, output: output(), stop };
  }

  // @checks ADR-080
  it('is refused at start in one line naming the URL (password masked) and the missing rights, exit 1, nothing written; with the rights it starts and creates', async () => {
    const { url, pool } = await migrated();
    await insertTransaction(pool, 'm_1', 'READ-ONLY-1');
    const suffix = new URL(url).pathname.slice(1).replace(/^paylater_test_/, ''); // roles are the cluster's: one pair per database
    const as = (role: string) => {
      const u = new URL(url);
      u.username = role;
      u.password = 'hunter2-secret';
      return u.toString();
    };
    const [reader, writer] = [`reader_${suffix}`, `writer_${suffix}`];
    await pool.query(`CREATE ROLE ${reader} LOGIN PASSWORD 'hunter2-secret'; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${reader}`);
    await pool.query(
      `CREATE ROLE ${writer} LOGIN PASSWORD 'hunter2-secret'; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${writer}`,
    );
    const { rows } = await pool.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY tablename",
    );
    await pool.end();
    const before = await dump(url);
    const [refused, started] = await Promise.all([serve(as(reader)), serve(as(writer))]);
    try {
      const masked = as(reader).replace('hunter2-secret', '***');
      expect(refused.output).toBe(
        `paylater serve: the database at ${masked}: the role ${reader} lacks rights this server needs: INSERT, UPDATE, DELETE on tables ${rows.map((r) => r.name).join(', ')}. Nothing was changed; grant them, or give the URL of a role that has them\n`,
      );
      expect(refused.exit).toBe(1);
      expect(await dump(url)).toBe(before);
      // A role with exactly those rights (no CREATE on the schema: the store's tables are there) starts and writes.
      expect(started.baseUrl, started.output).not.toBeNull();
      const r = await fetch(`${started.baseUrl!}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-Key': DEMO_MERCHANTS[0]!.apiKey },
        body: JSON.stringify(partnerBody({ vendorReference: 'READ-ONLY-2' })),
      });
      expect(r.status).toBe(201);
    } finally {
      await Promise.all([refused.stop(), started.stop()]);
    }
  }, 120_000);
});

describe('what the database makes exact across instances', () => {
  it('vendorReference is unique per merchant (23505), other merchants and null references are free', async () => {
    const { pool } = await migrated();
    try {
      await insertTransaction(pool, 'm1', 'ORDER-1');
      await expect(insertTransaction(pool, 'm1', 'ORDER-1')).rejects.toMatchObject({
        code: '23505',
        constraint: 'transactions_vendor_reference',
      });
      await insertTransaction(pool, 'm2', 'ORDER-1');
      await insertTransaction(pool, 'm1', null);
      await insertTransaction(pool, 'm1', null);
    } finally {
      await pool.end();
    }
  });

  it('50 concurrent conditional cancels of one PENDING transaction: exactly one wins', async () => {
    const { pool } = await migrated();
    try {
      const id = await insertTransaction(pool, 'm1', 'ORDER-2');
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          pool.query("UPDATE transactions SET status = 'CANCELED', updated_at = now() WHERE id = $1 AND status = 'PENDING' RETURNING id", [
            id,
          ]),
        ),
      );
      expect(results.filter((r) => r.rowCount === 1)).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it('101 concurrent increments of one rate-limit window count 1..101, each once', async () => {
    const { pool } = await migrated();
    try {
      const counts = await Promise.all(
        Array.from({ length: 101 }, () =>
          pool.query<{ count: number }>(
            `INSERT INTO rate_limit_windows (key, window_start, count) VALUES ('m1:createSession', '2026-11-23T00:00:00Z', 1)
             ON CONFLICT (key) DO UPDATE SET count = rate_limit_windows.count + 1 RETURNING count`,
          ),
        ),
      );
      expect(counts.map((r) => r.rows[0]!.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
    } finally {
      await pool.end();
    }
  });

  it('three deliverers claiming due outbox rows with FOR UPDATE SKIP LOCKED never claim one row twice', async () => {
    const { pool } = await migrated();
    try {
      const tx = await insertTransaction(pool, 'm1', 'ORDER-3');
      for (let i = 0; i < 30; i++) {
        await pool.query(
          `INSERT INTO webhook_outbox (id, merchant_id, event, transaction_id, payload, created_at, state, url, next_attempt_at)
           VALUES ($1, 'm1', 'transaction.cancelled', $2, '{}', now(), 'pending', 'http://127.0.0.1:9/', now() - interval '1 second')`,
          [`msg_${i}`, tx],
        );
      }
      const claimed: string[] = [];
      const deliverer = async () => {
        const c = await pool.connect();
        try {
          for (;;) {
            await c.query('BEGIN');
            const { rows } = await c.query<{ id: string }>(
              "SELECT id FROM webhook_outbox WHERE state = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at, id LIMIT 4 FOR UPDATE SKIP LOCKED",
            );
            if (rows.length === 0) {
              await c.query('COMMIT');
              return;
            }
            for (const r of rows) claimed.push(r.id);
            await c.query("UPDATE webhook_outbox SET state = 'delivered' WHERE id = ANY($1)", [rows.map((r) => r.id)]);
            await c.query('COMMIT');
          }
        } finally {
          c.release();
        }
      };
      await Promise.all([deliverer(), deliverer(), deliverer()]);
      expect(claimed).toHaveLength(30);
      expect(new Set(claimed).size).toBe(30);
    } finally {
      await pool.end();
    }
  });
});

describe('the throwaway cluster', () => {
  it('can be stopped and started again (for outage tests)', async () => {
    const url = await cluster.createDatabase();
    await cluster.pause();
    await expect(migrateUrl(url)).rejects.toThrow(/cannot connect to the database/);
    await cluster.start();
    expect((await migrateUrl(url)).version).toBe(loadMigrations().at(-1)!.version);
  });
});
