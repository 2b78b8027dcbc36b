/**
 * Versioned migrations, the same layout for both stores: ordered SQL files in a store's
 * `migrations/` folder (`NNNN_name.sql`, numbered from 0001 without gaps), each recorded in the
 * database's `schema_migrations` table with a checksum when applied. A database at a migration
 * the server does not know (a newer server migrated it), or whose applied migration was edited
 * since, is refused with a clear message. A line `\ir <file>` (psql's include, relative to the
 * migration's folder) stands for that file's text: a statement both stores run is written once
 * (`../vendor-reference-unique.sql`); the checksum is of the text run, so a migration that took a
 * statement out into such a file keeps the checksum the databases it was applied to recorded.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {}

/** The migrations in `dir`, in order. */
export function loadMigrations(dir: string): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) continue;
    const sql = readFileSync(path.join(dir, file), 'utf8').replace(/^\\ir (\S+)\n/gm, (_, f: string) =>
      readFileSync(path.join(dir, f), 'utf8'),
    );
    out.push({ version: Number(m[1]), name: m[2]!, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  out.forEach((mig, i) => {
    if (mig.version !== i + 1)
      throw new MigrationError(`migrations must be numbered 0001, 0002, … without gaps: ${mig.version} found at position ${i + 1}`);
  });
  return out;
}

/**
 * Checks the migrations recorded in a database (`applied`) against `migrations`: throws when one
 * is unknown (newer) or was changed; returns the versions still to apply. `where` names the database.
 */
export function pendingMigrations(
  applied: ReadonlyArray<{ version: number; name: string; checksum: string }>,
  migrations: readonly Migration[],
  where: string,
): Migration[] {
  const known = new Map(migrations.map((m) => [m.version, m]));
  for (const row of applied) {
    const mine = known.get(row.version);
    if (!mine) {
      const latest = migrations.at(-1);
      throw new MigrationError(
        `${where} is at migration ${row.version} (${row.name}), newer than this server's latest (${latest ? `${latest.version} ${latest.name}` : 'none'}): run a server at least as new as the one that migrated it`,
      );
    }
    if (mine.checksum !== row.checksum)
      throw new MigrationError(
        `${where}: migration ${row.version} (${row.name}) was changed after it was applied: write a new migration instead`,
      );
  }
  const done = new Set(applied.map((r) => r.version));
  return migrations.filter((m) => !done.has(m.version));
}

/**
 * A schema as the checks at start read it: per table, each column's and each index's description
 * (type, nullability, default, key; unique, columns, condition), in the store's own words.
 */
export type SchemaShape = Map<string, { columns: Map<string, string>; indexes: Map<string, string> }>;

/**
 * What differs between the schema the applied migrations make (`expected`, read from a database
 * they were just applied to) and a database's (`actual`), one line per difference
 * ("table transactions: column customer_phone missing"). Tables the migrations did not make are
 * not this store's concern; everything in the tables they made is.
 */
export function schemaDifferences(expected: SchemaShape, actual: SchemaShape): string[] {
  const out: string[] = [];
  for (const [table, want] of expected) {
    const have = actual.get(table);
    if (!have) {
      out.push(`table ${table} missing`);
      continue;
    }
    for (const [kind, w, h] of [
      ['column', want.columns, have.columns],
      ['index', want.indexes, have.indexes],
    ] as const) {
      for (const [name, shape] of w) {
        const got = h.get(name);
        if (got === undefined) out.push(`table ${table}: ${kind} ${name} missing`);
        else if (got !== shape) out.push(`table ${table}: ${kind} ${name} is ${got}, the migrations make ${shape}`);
      }
      for (const name of h.keys()) if (!w.has(name)) out.push(`table ${table}: ${kind} ${name} not made by the migrations`);
    }
  }
  return out;
}
