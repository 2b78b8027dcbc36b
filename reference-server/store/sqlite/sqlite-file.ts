/**
 * Opening the embedded store's database file (ADR-046): everything that can refuse a file is
 * checked before anything is written to it, so a refused file is left byte for byte as it was.
 *
 * 0. The rights: this process may write the file and what the store writes beside it (below,
 *    `writeRefusal`). SQLite opens a file it may not write read-only without a word: the server
 *    would serve every record and fail every write.
 * 1. The lock: `<file>.lock`, a small SQLite database this process holds in SQLite's exclusive
 *    locking mode (an fcntl lock) for the life of the store. A second server on the file, in this
 *    process or another, is refused; the kernel drops the lock with a killed process, so nothing
 *    is left to clean up. (The data file itself cannot be held that way: the store reads and
 *    checkpoints it through more than one connection.)
 * 2. The file does not exist: a data file of an earlier version beside it (`paylater.json`, a
 *    JSON snapshot) stops the start, saying what to do; otherwise a new database is made under a
 *    temporary name, migrated, and renamed into place, so the file is never seen half made.
 * 3. Its first 100 bytes (read by this module, not by SQLite): an empty file, a JSON file (an
 *    earlier version's data file or another), or anything else that is not an SQLite database is
 *    refused. SQLite itself would take a 0-byte file for a new database: here an empty file is
 *    never one this server made (it makes the file whole before giving it its name), so it is a
 *    file that lost its content, and it is refused.
 * 4. A read-only connection: `PRAGMA quick_check` must pass (a torn or zeroed page, a truncated
 *    file); the schema must be this store's (`schema_migrations`) at a migration this server knows,
 *    and its tables' columns and indexes those its applied migrations make (read from an
 *    in-memory database they are applied to): a dropped column or index, a renamed table is
 *    refused here instead of failing every request that touches it.
 * 5. The connection the store uses: the pending migrations, in one transaction.
 */
import { accessSync, closeSync, constants, existsSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseSync } from 'node:sqlite';
import { DataFileError, failureOf } from '../errors.ts';
import { loadMigrations, MigrationError, pendingMigrations, schemaDifferences, type Migration, type SchemaShape } from '../migrations.ts';

/**
 * Opens a `node:sqlite` database. The module is loaded when the first database opens, not by a
 * static import: an ESM graph links its static imports before any line runs, so on a Node without
 * `node:sqlite` (older than package.json `engines`) importing the package's entry would die with
 * ERR_UNKNOWN_BUILTIN_MODULE before the entry's Node-version gate (lib/node-gate.ts) could say so.
 */
export function openDatabase(path: string, options?: ConstructorParameters<typeof DatabaseSync>[1]): DatabaseSync {
  const { DatabaseSync: Database } = process.getBuiltinModule('node:sqlite');
  // node:sqlite refuses an `undefined` options argument ("must be an object")
  return options === undefined ? new Database(path) : new Database(path, options);
}

const MIGRATIONS = loadMigrations(fileURLToPath(new URL('./migrations/', import.meta.url)));
/** What a refusal of a file that is not whole says to do. */
const RESTORE = 'Nothing was changed; restore it from a backup, or move it away to start with an empty store.';
const HEADER = Buffer.from('SQLite format 3\0', 'latin1');
/** The `format` member of an earlier version's JSON data file. */
const EARLIER_FORMAT = 'paylater-reference-server';

/** The data file of an earlier version that would sit beside `file`, if there is one. */
function earlierDataFile(file: string): string | null {
  const dir = path.dirname(file);
  const candidates = new Set([path.join(dir, 'paylater.json'), file.replace(/\.[^./]*$/, '') + '.json']);
  for (const c of candidates) if (c !== file && existsSync(c)) return c;
  return null;
}

function earlierVersionMessage(json: string, file: string): string {
  return (
    `${json} is the data file of an earlier version of this server (a JSON snapshot and its .journal), which this version no longer reads: ` +
    `it keeps its data in SQLite (${file}), and it does not start on an empty store while that file is there. ` +
    `Its records are not carried over. To start empty, move ${json} and ${json}.journal away; to keep serving them, run the earlier version.`
  );
}

/** Refuses `file` unless its first bytes are an SQLite database's (nothing is written). */
function checkHeader(file: string): void {
  const size = statSync(file).size;
  if (size === 0)
    throw new DataFileError(
      file,
      `The data file ${file} is empty (0 bytes): this server never leaves an empty data file, so its content was lost. Nothing was changed; restore it from a backup, or delete it to start with an empty store.`,
    );
  const head = Buffer.alloc(Math.min(size, 100));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.length >= HEADER.length && head.subarray(0, HEADER.length).equals(HEADER)) {
    const pageSize = head.length >= 18 ? head.readUInt16BE(16) : 0;
    const bytes = pageSize === 1 ? 65536 : pageSize;
    if (bytes >= 512 && size % bytes === 0) return;
    throw new DataFileError(
      file,
      `The data file ${file} is corrupt: ${size} bytes is not a whole number of its ${bytes}-byte pages (a torn or truncated file). ${RESTORE}`,
    );
  }
  const text = head.toString('utf8').trimStart();
  if (text.startsWith('{') || text.startsWith('[')) {
    if (text.includes(EARLIER_FORMAT)) throw new DataFileError(file, earlierVersionMessage(file, file.replace(/\.json$/, '') + '.db'));
    throw new DataFileError(
      file,
      `The data file ${file} is a JSON file, not an SQLite database. Nothing was changed; give --data a database file.`,
    );
  }
  throw new DataFileError(
    file,
    `The data file ${file} is not an SQLite database (it starts with ${JSON.stringify(head.subarray(0, 16).toString('latin1'))}). ${RESTORE}`,
  );
}

const inUse = (file: string) => `The data file ${file} is in use by another program (it holds the database's lock).`;
/**
 * Checks `file` through a read-only connection: not locked, intact, of this store's schema at a known migration,
 * its tables' columns and indexes those its applied migrations make.
 * @rule ADR-080
 */
function checkDatabase(file: string): void {
  const sidecars = [`${file}-wal`, `${file}-shm`].filter((f) => !existsSync(f));
  let db: DatabaseSync;
  try {
    db = openDatabase(file, { readOnly: true, timeout: 0 });
  } catch (e) {
    throw new DataFileError(file, `The data file ${file} cannot be opened: ${(e as Error).message}. Nothing was changed.`);
  }
  try {
    let tables: string[];
    try {
      tables = db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all()
        .map((r) => r.name as string);
    } catch (e) {
      if (failureOf(e) === 'busy') throw new DataFileError(file, inUse(file));
      throw e;
    }
    const problems = db
      .prepare('PRAGMA quick_check')
      .all()
      .map((r) => r.quick_check as string);
    if (problems.join() !== 'ok') throw new Error(problems.slice(0, 3).join('; '));
    if (tables.length === 0) return; // an empty SQLite database: it gets the schema
    if (!tables.includes('schema_migrations'))
      throw new DataFileError(
        file,
        `The data file ${file} is an SQLite database of another application (tables ${tables.slice(0, 5).join(', ')}), not this server's. Nothing was changed; give --data another file.`,
      );
    const applied = appliedMigrations(db);
    try {
      pendingMigrations(applied, MIGRATIONS, `The data file ${file}`);
    } catch (e) {
      throw new DataFileError(file, `${(e as Error).message}. Nothing was changed.`);
    }
    const differences = schemaDifferences(expectedShape(new Set(applied.map((r) => r.version))), shapeOf(db));
    if (differences.length > 0)
      throw new DataFileError(
        file,
        `The data file ${file} does not have the schema its migrations make: ${differences.join('; ')}. ${RESTORE}`,
      );
  } catch (e) {
    if (e instanceof DataFileError) throw e;
    throw new DataFileError(file, `The data file ${file} is corrupt (${(e as Error).message}). ${RESTORE}`);
  } finally {
    db.close();
    // The files a read-only connection makes beside a WAL database (an empty log, its
    // shared-memory index) go again: no other process can be using them (the file is not
    // locked, or this check refused it before any use).
    for (const f of sidecars) if (existsSync(f) && (f.endsWith('-shm') || statSync(f).size === 0)) rmSync(f, { force: true });
  }
}

/** The columns and indexes of `db`'s tables (`PRAGMA table_info`, `index_list`, `index_xinfo`; a partial index's condition from its SQL). */
function shapeOf(db: DatabaseSync): SchemaShape {
  const shape: SchemaShape = new Map();
  const indexSql = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?");
  const indexColumns = db.prepare('SELECT name, desc, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno');
  for (const { name } of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()) {
    const table = name as string;
    const columns = db.prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)').all(table);
    const indexes = db.prepare('SELECT name, "unique" FROM pragma_index_list(?)').all(table);
    shape.set(table, {
      columns: new Map(
        columns.map((c) => [
          c.name as string,
          `${c.type as string}${c.notnull ? ' NOT NULL' : ''}${c.dflt_value === null ? '' : ` DEFAULT ${c.dflt_value as string}`}${c.pk ? ` PRIMARY KEY (${c.pk as number})` : ''}`,
        ]),
      ),
      indexes: new Map(
        indexes.map((i) => {
          const cols = indexColumns
            .all(i.name as string)
            .map(
              (c) =>
                `${(c.name as string | null) ?? '(expression)'}${c.desc ? ' DESC' : ''}${c.coll === 'BINARY' ? '' : ` COLLATE ${c.coll as string}`}`,
            );
          const sql = indexSql.get(i.name as string)?.sql;
          const where = typeof sql === 'string' ? /\bWHERE\b([\s\S]*)$/i.exec(sql)?.[1]?.replace(/\s+/g, ' ').trim() : undefined;
          return [i.name as string, `${i.unique ? 'UNIQUE ' : ''}(${cols.join(', ')})${where ? ` WHERE ${where}` : ''}`];
        }),
      ),
    });
  }
  return shape;
}

/** The schema the migrations `versions` make, read once per set from an in-memory database they are applied to. */
const expectedShapes = new Map<string, SchemaShape>();
function expectedShape(versions: ReadonlySet<number>): SchemaShape {
  const key = [...versions].join();
  let shape = expectedShapes.get(key);
  if (!shape) {
    const db = openDatabase(':memory:');
    try {
      migrate(
        db,
        'the in-memory database',
        MIGRATIONS.filter((m) => versions.has(m.version)),
      );
      shape = shapeOf(db);
    } finally {
      db.close();
    }
    expectedShapes.set(key, shape);
  }
  return shape;
}

function appliedMigrations(db: DatabaseSync): Array<{ version: number; name: string; checksum: string }> {
  return db.prepare('SELECT version, name, checksum FROM schema_migrations ORDER BY version').all() as ReturnType<typeof appliedMigrations>;
}

/** Applies the migrations `db` lacks in one transaction (the write lock taken first), or none of them. `where` names the database in refusals. */
function migrate(db: DatabaseSync, where: string, migrations: readonly Migration[] = MIGRATIONS): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
               version    INTEGER PRIMARY KEY,
               name       TEXT NOT NULL,
               checksum   TEXT NOT NULL,
               applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
             ) STRICT`);
    const insert = db.prepare('INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)');
    for (const m of pendingMigrations(appliedMigrations(db), migrations, where)) {
      db.exec(m.sql);
      insert.run(m.version, m.name, m.checksum);
    }
    db.exec('COMMIT');
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

/**
 * The pragmas of a connection to the file (before its first read): WAL; `synchronous=NORMAL`, so
 * that a commit writes its log frames without syncing them on the event loop: the store syncs
 * the log itself, off the event loop, before it answers (ADR-047). SQLite checkpoints the log
 * into the file on the commit that passes 1,000 pages (`wal_autocheckpoint`, its default).
 */
function configure(db: DatabaseSync): void {
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF');
}

/** Makes a new, migrated database at `file` (under the data file lock): made whole under a temporary name, then renamed. */
function create(file: string): void {
  const temp = `${file}.new`;
  for (const f of [temp, `${temp}-wal`, `${temp}-shm`]) rmSync(f, { force: true }); // what a process killed while making one left
  const db = openDatabase(temp);
  try {
    configure(db);
    migrate(db, `The data file ${file}`);
  } finally {
    db.close(); // checkpoints the log into the file and removes it
  }
  renameSync(temp, file);
}

/** The server's user as a refusal names it: its name and uid (the effective one, whose rights count). */
function serverUser(): string {
  const uid = process.geteuid?.();
  try {
    return `${userInfo().username}, uid ${uid}`;
  } catch {
    return `uid ${uid}`; // a uid with no entry in the system's user database
  }
}

/** A system call's refusal in a message: its code and its words ("EACCES, permission denied"). */
function errnoOf(e: unknown): string {
  const { code, message } = e as NodeJS.ErrnoException;
  const words = /^[A-Z]+: ([^,]+),/.exec(message)?.[1];
  return code ? `${code}${words ? `, ${words}` : ''}` : message;
}

/** The refusal of `file`, one line: this process may not `what` (`call` failed with `e`). */
const unwritable = (file: string, what: string, call: string, e: unknown) =>
  new DataFileError(
    file,
    `The data file ${file} cannot be written by this server's user (${serverUser()}): it may not ${what} (${call}: ${errnoOf(e)}). Nothing was changed; make it writable for that user, or start with another --data file.`,
  );

/**
 * What keeps this process from writing the data file `file` and the files the store writes
 * beside it, as a refusal naming the file and the missing right, or null. Nothing is written:
 * - the folder must take new files (the lock, the log and its index, a new database under a
 *   temporary name): asked with access(2), W_OK and X_OK;
 * - the file, its log (`-wal`) and the log's index (`-shm`), each that exists, must open for
 *   reading and writing: open(2) with O_RDWR, closed at once, no byte written. The kernel answers
 *   as it will answer SQLite, with this process's effective rights (root's included: access(2)
 *   would answer with its permitted capabilities), a read-only file system (EROFS), an immutable
 *   file (EPERM);
 * - the lock (`.lock`), if it exists: access(2) only. Closing any descriptor of a file drops
 *   every fcntl lock this process holds on it, and this process may be holding that one.
 * Called with the lock held (no other store of this process has the files open), or when it
 * could not be taken, to say why.
 */
function writeRefusal(file: string): DataFileError | null {
  const folder = path.dirname(file);
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch (e) {
    return unwritable(file, `create files in its folder ${folder}, where the store keeps the file's lock and log`, 'access W_OK', e);
  }
  const files: Array<[name: string, what: string]> = [
    [file, 'write the file'],
    [`${file}-wal`, `write its log ${file}-wal`],
    [`${file}-shm`, `write its log's index ${file}-shm`],
  ];
  for (const [name, what] of files) {
    let fd: number;
    try {
      fd = openSync(name, constants.O_RDWR);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return unwritable(file, what, 'open for writing', e);
    }
    closeSync(fd);
  }
  const lockPath = `${file}.lock`;
  try {
    accessSync(lockPath, constants.W_OK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return unwritable(file, `write its lock ${lockPath}`, 'access W_OK', e);
  }
  return null;
}

/** The lock of a data file, held until `release`. */
export interface DataFileLock {
  release(): void;
}

/** Takes the lock of `file` (`<file>.lock`), or refuses: another server holds it, or this process may not write there. */
function lockDataFile(file: string): DataFileLock {
  const lockPath = `${file}.lock`;
  const cannot = (e: unknown) =>
    writeRefusal(file) ??
    new DataFileError(file, `The lock ${lockPath} of the data file ${file} cannot be taken: ${(e as Error).message}. Nothing was changed.`);
  let db: DatabaseSync;
  try {
    db = openDatabase(lockPath, { timeout: 0 });
  } catch (e) {
    throw cannot(e);
  }
  try {
    db.exec('PRAGMA journal_mode = OFF; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT');
  } catch (e) {
    db.close();
    if (failureOf(e) === 'busy')
      throw new DataFileError(
        file,
        `The data file ${file} is in use by another server (it holds ${lockPath}); stop it or start this one with another --data file.`,
      );
    throw cannot(e);
  }
  return {
    release() {
      for (const f of [lockPath, `${lockPath}-journal`]) rmSync(f, { force: true }); // removed while still held: no other server can have taken it meanwhile
      db.close();
    },
  };
}

/**
 * The store's connection to database file `file` (made if absent) and the lock it holds, or a `DataFileError` saying why not.
 * @rule ADR-046
 */
export async function openDatabaseFile(file: string): Promise<{ db: DatabaseSync; lock: DataFileLock }> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
  } catch (e) {
    throw unwritable(file, `make its folder ${path.dirname(file)}`, 'mkdir', e);
  }
  const lock = lockDataFile(file);
  try {
    const refused = writeRefusal(file);
    if (refused) throw refused;
    if (!existsSync(file)) {
      const earlier = earlierDataFile(file);
      if (earlier) throw new DataFileError(file, earlierVersionMessage(earlier, file));
      create(file);
    }
    checkHeader(file);
    checkDatabase(file);
    const db = openDatabase(file, { timeout: 0 });
    try {
      configure(db);
      migrate(db, `The data file ${file}`);
    } catch (e) {
      db.close();
      if (failureOf(e) === 'busy') throw new DataFileError(file, inUse(file));
      throw e instanceof MigrationError ? new DataFileError(file, e.message) : e;
    }
    return { db, lock };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** An in-memory database with the store's schema (`--memory`, tests). */
export function openMemoryDatabase(): DatabaseSync {
  const db = openDatabase(':memory:');
  db.exec('PRAGMA temp_store = MEMORY');
  migrate(db, 'the in-memory database');
  return db;
}
