/**
 * Versioned migrations of the PostgreSQL store (`../migrations.ts`: files in `./migrations/`,
 * recorded in `schema_migrations`). Applied at start-up and by
 * `paylater migrate`, in one transaction under an advisory lock, so instances starting together
 * apply each migration once. A database at a migration this server does not know (a newer server
 * migrated it), or whose applied migration was edited since, is refused with a clear message; so
 * is one whose tables' columns and indexes (`information_schema.columns`, `pg_indexes`) are not
 * those its applied migrations make, read from the same migrations applied to temporary tables
 * in a savepoint that is rolled back: nothing of the database is changed by the refusal. So is a
 * database the connection's role may not write (`missingRights`): PostgreSQL would let the server
 * start, serve every read and refuse every write.
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  loadMigrations as loadFrom,
  MigrationError,
  pendingMigrations,
  schemaDifferences,
  type Migration,
  type SchemaShape,
} from '../migrations.ts';

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

const SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    integer PRIMARY KEY,
  name       text        NOT NULL,
  checksum   text        NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The columns and indexes of the tables in `schema` (an index's definition without its table's schema). */
async function shapeOf(client: pg.ClientBase, schema: string): Promise<SchemaShape> {
  const shape: SchemaShape = new Map();
  const table = (name: string) => {
    let t = shape.get(name);
    if (!t) shape.set(name, (t = { columns: new Map(), indexes: new Map() }));
    return t;
  };
  const columns = await client.query<Record<string, string | number | null>>(
    `SELECT table_name, column_name, udt_name, is_nullable, column_default, is_identity, datetime_precision
     FROM information_schema.columns WHERE table_schema = $1`,
    [schema],
  );
  for (const c of columns.rows)
    table(c.table_name as string).columns.set(
      c.column_name as string,
      `${c.udt_name as string}${c.udt_name === 'timestamptz' ? `(${c.datetime_precision as number})` : ''}${c.is_nullable === 'NO' ? ' NOT NULL' : ''}${c.column_default === null ? '' : ` DEFAULT ${c.column_default as string}`}${c.is_identity === 'YES' ? ' IDENTITY' : ''}`,
    );
  const indexes = await client.query<{ tablename: string; indexname: string; indexdef: string }>(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1',
    [schema],
  );
  for (const i of indexes.rows)
    table(i.tablename).indexes.set(i.indexname, i.indexdef.replace(/ ON (ONLY )?\S+\.(\S+) USING /, ' ON $1$2 USING '));
  return shape;
}

/**
 * The schema `migrations` make: applied to temporary tables (the session's own schema, first in
 * the search path) in a savepoint rolled back once they are read.
 */
async function expectedShape(client: pg.ClientBase, migrations: readonly Migration[]): Promise<SchemaShape> {
  await client.query('SAVEPOINT expected_schema');
  try {
    await client.query('SET LOCAL search_path = pg_temp');
    await client.query(SCHEMA_MIGRATIONS);
    for (const m of migrations) await client.query(m.sql);
    const { rows } = await client.query<{ s: string }>('SELECT pg_my_temp_schema()::regnamespace::text AS s');
    return await shapeOf(client, rows[0]!.s);
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT expected_schema');
  }
}

/** What the store does with the rows of every table its migrations make: reads them, locks them (`FOR UPDATE` needs UPDATE), upserts and deletes them. */
const TABLE_RIGHTS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;

/**
 * The rights the connection's role lacks for this store, in words ("INSERT, UPDATE, DELETE on
 * table transactions, sms"), or none. Asked of the catalogue (`has_database_privilege`,
 * `has_schema_privilege`, `has_table_privilege`, the role's memberships included): nothing is
 * written. The start reads the schema the migrations make from temporary tables (TEMPORARY on
 * the database); a database without the store's tables gets them (CREATE on the schema); each of
 * the tables the migrations make that exists needs `TABLE_RIGHTS` (`schema_migrations` only
 * SELECT: the server reads it and writes it only to migrate).
 */
async function missingRights(client: pg.ClientBase, tables: () => Promise<string[]>, made: boolean): Promise<string[]> {
  const { rows: base } = await client.query<{ temp: boolean; create: boolean; db: string; schema: string }>(
    `SELECT has_database_privilege(current_database(), 'TEMPORARY') AS temp, has_schema_privilege(current_schema(), 'CREATE') AS create,
            current_database() AS db, current_schema() AS schema`,
  );
  const { temp, create, db, schema } = base[0]!;
  if (!temp)
    return [`TEMPORARY on the database ${db} (the start compares the schema with the one its migrations make in temporary tables)`];
  const missing = made || create ? [] : [`CREATE on the schema ${schema} (a database without the store's tables gets them)`];
  const { rows } = await client.query<{ name: string; lacks: string[] }>(
    `SELECT t.name, array_agg(p.privilege ORDER BY p.n) AS lacks
     FROM unnest($1::text[]) AS t(name)
     CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS p(privilege, n)
     WHERE to_regclass(quote_ident(t.name)) IS NOT NULL
       AND (t.name <> 'schema_migrations' OR p.privilege = 'SELECT')
       AND NOT has_table_privilege(to_regclass(quote_ident(t.name)), p.privilege)
     GROUP BY t.name ORDER BY t.name`,
    [await tables(), TABLE_RIGHTS],
  );
  const byRights = new Map<string, string[]>();
  for (const r of rows) byRights.set(r.lacks.join(', '), [...(byRights.get(r.lacks.join(', ')) ?? []), r.name]);
  for (const [rights, names] of byRights) missing.push(`${rights} on ${names.length > 1 ? 'tables' : 'table'} ${names.join(', ')}`);
  return missing;
}

/**
 * Brings the database of `client` (connected) up to the newest migration, or refuses it (a
 * `MigrationError`, nothing changed). `where` names the database in refusals.
 */
export async function migrate(client: pg.ClientBase, migrations = loadMigrations(), where = 'the database'): Promise<MigrateResult> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    // The schema each set of migrations makes, read once per call (the rights and the schema check share the full set's).
    const shapes = new Map<string, Promise<SchemaShape>>();
    const shapeOfMigrations = (ms: readonly Migration[]) => {
      const key = ms.map((m) => m.version).join();
      let shape = shapes.get(key);
      if (!shape) shapes.set(key, (shape = expectedShape(client, ms)));
      return shape;
    };
    const { rows: made } = await client.query<{ made: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS made");
    const lacks = await missingRights(client, async () => [...(await shapeOfMigrations(migrations)).keys()], made[0]!.made);
    if (lacks.length > 0) {
      const { rows: who } = await client.query<{ role: string }>('SELECT current_user AS role');
      throw new MigrationError(
        `${where}: the role ${who[0]!.role} lacks rights this server needs: ${lacks.join('; ')}. Nothing was changed; grant them, or give the URL of a role that has them`,
      );
    }
    if (!made[0]!.made) await client.query(SCHEMA_MIGRATIONS); // not when it exists: a role that may not create tables may use a migrated database
    const { rows } = await client.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const todo = pendingMigrations(rows, migrations, where);
    const versions = new Set(rows.map((r) => r.version));
    const expected = await shapeOfMigrations(migrations.filter((m) => versions.has(m.version)));
    const { rows: here } = await client.query<{ s: string }>('SELECT current_schema() AS s');
    const differences = schemaDifferences(expected, await shapeOf(client, here[0]!.s));
    if (differences.length > 0)
      throw new MigrationError(
        `${where} does not have the schema its migrations make: ${differences.join('; ')}. Nothing was changed; restore it from a backup, or give another database`,
      );
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
    return await migrate(client, loadMigrations(), `the database at ${redact(url)}`);
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
