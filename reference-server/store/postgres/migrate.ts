/**
 * Versioned migrations of the PostgreSQL store (`../migrations.ts`: files in `./migrations/`,
 * recorded in `schema_migrations`). Applied at start-up and by
 * `paylater migrate`, in one transaction under an advisory lock, so instances starting together
 * apply each migration once. A database at a migration this server does not know (a newer server
 * migrated it), or whose applied migration was edited since, is refused with a clear message.
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadMigrations as loadFrom, MigrationError, pendingMigrations, type Migration } from '../migrations.ts';

export { MigrationError, type Migration };

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** Any constant: the key of the advisory lock that serialises migrations across instances. */
const LOCK_KEY = 0x70_61_79_6c; // "payl"

/** The migrations shipped with this server, in order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return loadFrom(dir);
}

export interface MigrateResult {
  /** Versions applied by this call. */
  applied: number[];
  /** The database's version afterwards. */
  version: number;
}

/** Brings the database of `client` (connected) up to the newest migration. */
export async function migrate(client: pg.ClientBase, migrations = loadMigrations()): Promise<MigrateResult> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version    integer PRIMARY KEY,
         name       text        NOT NULL,
         checksum   text        NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const todo = pendingMigrations(rows, migrations, 'the database');
    const applied: number[] = [];
    for (const m of todo) {
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return { applied, version: migrations.at(-1)?.version ?? 0 };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** Connects to `url`, migrates, disconnects. */
export async function migrateUrl(url: string): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (e) {
    throw new MigrationError(`cannot connect to the database at ${redact(url)}: ${(e as Error).message}`, { cause: e });
  }
  try {
    return await migrate(client);
  } finally {
    await client.end();
  }
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

export const MIGRATE_USAGE = `Usage: paylater migrate [--database-url URL]

Applies the PostgreSQL store's migrations (also applied when the server starts on a database).
  --database-url URL   postgres://user:password@host:port/database
                       (default: the PAYLATER_DATABASE_URL environment variable)
Exit codes: 0 migrated (or already up to date), 1 refused or failed, 2 bad options.
`;

/** `paylater migrate`: returns the exit code. */
export async function runMigrate(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(`${s}\n`),
  err: (s: string) => void = (s) => process.stderr.write(`${s}\n`),
): Promise<number> {
  let url = process.env.PAYLATER_DATABASE_URL;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') {
      out(MIGRATE_USAGE);
      return 0;
    }
    if (a === '--database-url' && argv[i + 1] !== undefined) url = argv[++i];
    else if (a.startsWith('--database-url=')) url = a.slice('--database-url='.length);
    else {
      err(`paylater migrate: unknown option ${a}\n${MIGRATE_USAGE}`);
      return 2;
    }
  }
  if (!url) {
    err(`paylater migrate: no database: pass --database-url or set PAYLATER_DATABASE_URL\n${MIGRATE_USAGE}`);
    return 2;
  }
  try {
    const r = await migrateUrl(url);
    out(
      r.applied.length
        ? `applied migrations ${r.applied.join(', ')}; the database is at ${r.version}`
        : `the database is up to date (migration ${r.version})`,
    );
    return 0;
  } catch (e) {
    err(`paylater migrate: ${(e as Error).message}`);
    return 1;
  }
}
