/**
 * The database file at start (ADR-046): files that are not this store's database, or not whole,
 * are refused with a message naming the file, and left byte for byte as they were; a second
 * process on the file is refused and a process killed with -9 leaves nothing that stops the next.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  writeSync,
  closeSync,
  writeFileSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DataFileError } from '../errors.ts';
import { exited, spawnChildServer } from '../../test-support/spawn-child.ts';
import { partnerBody } from '../../test-support/helpers.ts';
import type { TransactionRecord } from '../../domain/types.ts';
import { writeSeededDataFile } from '../../testing.ts';
import { openSqliteRepository } from './sqlite-repository.ts';
import { SCHEMA_TAMPERINGS } from '../../test-support/schema-tampering.ts';
import { spawnPaylater } from '../../../scripts/lib/paylater-process.ts';

const dir = () => mkdtempSync(path.join(tmpdir(), 'paylater-sqlite-'));

/** Every file of `d` with its content's hash. */
function filesOf(d: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(d).map((f) => [
      f,
      createHash('sha256')
        .update(readFileSync(path.join(d, f)))
        .digest('hex'),
    ]),
  );
}

/** Opens `file`, expecting a refusal whose message names it and matches `why`; the folder's files are unchanged. */
async function expectRefused(file: string, why: RegExp): Promise<void> {
  const before = filesOf(path.dirname(file));
  const e = await openSqliteRepository({ file }).then(
    async (r) => {
      await r.close();
      return null;
    },
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(DataFileError);
  expect((e as Error).message).toContain(file);
  expect((e as Error).message).toMatch(why);
  expect(filesOf(path.dirname(file))).toEqual(before);
}

/** A database file of this store holding `n` transactions (closed: no WAL beside it). */
async function seeded(n: number): Promise<string> {
  const file = path.join(dir(), 'paylater.db');
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 20) + ms).toISOString();
  const tx = (i: number): TransactionRecord => ({
    id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    kind: 'partner',
    merchantId: 'm_1',
    orderReference: `ORD-${i}`,
    vendorReference: `V-${i}`,
    status: 'APPROVED',
    totalCentimes: 129950,
    currency: 'MAD',
    customerPhone: '212612345678',
    items: [
      {
        id: `10000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        name: 'Wireless headphones',
        reference: 'SKU-100',
        quantity: 1,
        unitPriceCentimes: 129950,
        categoryId: null,
      },
    ],
    createdAt: at(i * 1000),
    updatedAt: null,
    expiresAt: at(i * 1000 + 1_800_000),
    approvedAt: at(i * 1000 + 60_000),
    expiredAt: null,
    sessionId: null,
    paymentIntentId: null,
  });
  await writeSeededDataFile(
    file,
    Array.from({ length: n }, (_, i) => tx(i)),
  );
  return file;
}

/** Overwrites `bytes` at `offset` of `file`. */
function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
}

/** The first page of the table `transactions`' b-tree, and the page size. */
function rootPage(file: string, name: string): { page: number; size: number } {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const page = db.prepare('SELECT rootpage FROM sqlite_schema WHERE name = ?').get(name)!.rootpage as number;
    const size = db.prepare('PRAGMA page_size').get()!.page_size as number;
    return { page, size };
  } finally {
    db.close();
  }
}

// @checks ADR-046
describe("a database file that is not whole, or not this store's, is refused and left unchanged", () => {
  it('an empty file (0 bytes): SQLite would take it for a new database; this store never leaves one', async () => {
    const file = path.join(dir(), 'paylater.db');
    writeFileSync(file, '');
    await expectRefused(file, /is empty \(0 bytes\)/);
  });

  it('garbage', async () => {
    const file = path.join(dir(), 'paylater.db');
    writeFileSync(file, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919) % 251)));
    await expectRefused(file, /is not an SQLite database/);
  });

  it('a JSON file, and a data file of an earlier version given as --data', async () => {
    const file = path.join(dir(), 'paylater.db');
    writeFileSync(file, '{"transactions": []}\n');
    await expectRefused(file, /is a JSON file, not an SQLite database/);
    const earlier = path.join(dir(), 'paylater.json');
    writeFileSync(earlier, JSON.stringify({ format: 'paylater-reference-server', version: 1, journalSeq: 0, collections: {} }));
    await expectRefused(earlier, /data file of an earlier version.*no longer reads.*move .*paylater\.json/);
  });

  it('a zeroed page, a torn page, a truncated file', async () => {
    const file = await seeded(3000);
    const { page, size } = rootPage(file, 'transactions_merchant_created');
    const original = readFileSync(file);
    overwrite(file, (page - 1) * size, Buffer.alloc(size)); // a lost page: zeros where an index's root was
    await expectRefused(file, /is corrupt/);
    writeFileSync(file, original);
    const leaf = Math.floor(statSync(file).size / size / 2); // a page in the middle of the file
    overwrite(file, leaf * size, Buffer.alloc(size / 2, 0xa5)); // a torn write: half of it garbage
    await expectRefused(file, /is corrupt/);
    writeFileSync(file, original);
    truncateSync(file, original.length - size / 2);
    await expectRefused(file, /is corrupt.*not a whole number of its \d+-byte pages/);
    writeFileSync(file, original);
    const repo = await openSqliteRepository({ file }); // the file as it was opens, all there
    expect(await repo.count('transactions')).toBe(3000);
    await repo.close();
  });

  it("a database of a newer schema, or another application's", async () => {
    const file = await seeded(1);
    const db = new DatabaseSync(file);
    db.exec("INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'from_the_future', 'x')");
    db.close();
    await expectRefused(file, /is at migration 999 \(from_the_future\), newer than this server's latest/);
    const other = path.join(dir(), 'paylater.db');
    const o = new DatabaseSync(other);
    o.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x')");
    o.close();
    await expectRefused(other, /an SQLite database of another application \(tables customers\)/);
  });

  it.each([
    ...SCHEMA_TAMPERINGS,
    [
      'a column of another type',
      'ALTER TABLE sms DROP COLUMN body; ALTER TABLE sms ADD COLUMN body INTEGER',
      /: table sms: column body is INTEGER, the migrations make TEXT NOT NULL\./,
    ],
  ])('a database whose tables the migrations did not make (%s): refused, naming what differs', async (_what, sql, why) => {
    // @checks ADR-080
    const file = await seeded(2);
    const db = new DatabaseSync(file);
    db.exec(sql);
    db.close();
    await expectRefused(file, why);
  });

  it('paylater serve --data on such a file exits 1 with the message and no stack trace, the file unchanged', async () => {
    const file = await seeded(2);
    const db = new DatabaseSync(file);
    db.exec('ALTER TABLE transactions DROP COLUMN customer_phone');
    db.close();
    const before = filesOf(path.dirname(file));
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'scripts', 'paylater.ts'), 'serve', '--data', file, '--port', '0'],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 110_000,
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `paylater serve: The data file ${file} does not have the schema its migrations make: table transactions: column customer_phone missing.`,
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).not.toMatch(/listening/);
    expect(filesOf(path.dirname(file))).toEqual(before);
  }, 120_000);

  it('a data file of an earlier version beside a database not made yet: the start stops, saying what to do, and makes nothing', async () => {
    const d = dir();
    writeFileSync(
      path.join(d, 'paylater.json'),
      JSON.stringify({ format: 'paylater-reference-server', version: 1, journalSeq: 0, collections: {} }),
    );
    const file = path.join(d, 'paylater.db');
    await expectRefused(
      file,
      /paylater\.json is the data file of an earlier version.*does not start on an empty store.*move .*paylater\.json/,
    );
    expect(existsSync(file)).toBe(false);
  });
});

/** The user the servers of the rights tests run as: `nobody` when this process is root (root may write any file), else this process's own. */
function serverUser(): { uid: number; gid: number; name: string } {
  if (userInfo().uid !== 0) return { uid: userInfo().uid, gid: userInfo().gid, name: userInfo().username };
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g'), name: 'nobody' };
}

/** `paylater serve --data file` in a process of its own as `user`: its exit code, or 'listening' (it started, and was stopped); its output. */
async function serveAs(user: { uid: number; gid: number }, file: string): Promise<{ status: number | 'listening'; output: string }> {
  const { child, output } = spawnPaylater(['serve', '--data', file, '--port', '0'], {}, user);
  const exit = once(child, 'exit') as Promise<[number | null]>;
  const started = new Promise<'listening'>((resolve) =>
    child.stdout.on('data', () => {
      if (/listening on/.test(output())) resolve('listening');
    }),
  );
  const first = await Promise.race([exit.then(([code]) => code ?? -1), started]);
  if (first === 'listening') {
    child.kill('SIGTERM');
    await exit;
  }
  return { status: first, output: output() };
}

// Concurrent: each test is a server process of its own, mostly waiting for its start.
// @checks ADR-046
describe("a data file this server's user may not write is refused at start and left as it was", { concurrent: true }, () => {
  const user = serverUser();
  /** A database of this store, in a folder of its own, both the server user's (`restrict` then takes a right away). */
  async function owned(restrict: (file: string) => void): Promise<string> {
    const file = await seeded(2);
    for (const f of [path.dirname(file), file]) chownSync(f, user.uid, user.gid);
    restrict(file);
    return file;
  }
  const who = `${user.name}, uid ${user.uid}`;
  const remedy = 'Nothing was changed; make it writable for that user, or start with another --data file.';

  it.each<[string, (file: string) => void, (file: string) => string]>([
    [
      'the file read-only, in a folder it may write',
      (file) => chmodSync(file, 0o444),
      (file) =>
        `The data file ${file} cannot be written by this server's user (${who}): it may not write the file (open for writing: EACCES, permission denied). ${remedy}`,
    ],
    [
      'the folder read-only, the file writable',
      (file) => chmodSync(path.dirname(file), 0o555),
      (file) =>
        `The data file ${file} cannot be written by this server's user (${who}): it may not create files in its folder ${path.dirname(file)}, where the store keeps the file's lock and log (access W_OK: EACCES, permission denied). ${remedy}`,
    ],
    [
      "its log left behind by another user's server, read-only for this one",
      (file) => {
        writeFileSync(`${file}-wal`, '');
        chmodSync(`${file}-wal`, 0o444);
        if (userInfo().uid === 0) chownSync(`${file}-wal`, 0, 0);
      },
      (file) =>
        `The data file ${file} cannot be written by this server's user (${who}): it may not write its log ${file}-wal (open for writing: EACCES, permission denied). ${remedy}`,
    ],
  ])('%s: one line naming the file and the missing right, exit 1, every file of the folder unchanged', async (_what, restrict, message) => {
    const file = await owned(restrict);
    const before = filesOf(path.dirname(file));
    const r = await serveAs(user, file);
    expect(r.output).toBe(`paylater serve: ${message(file)}\n`);
    expect(r.status).toBe(1);
    expect(filesOf(path.dirname(file))).toEqual(before);
  });

  it('the same file with the right given back: the server starts as that user', async () => {
    const file = await owned((f) => chmodSync(f, 0o444));
    chmodSync(file, 0o644);
    const r = await serveAs(user, file);
    expect(r.status).toBe('listening');
    expect(r.output).not.toMatch(/cannot be written/);
  });

  it('a read-only file system (root too may not write there)', async () => {
    const d = dir();
    const file = path.join(d, 'paylater.db');
    let mounted = false;
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', d], { stdio: 'ignore' });
      mounted = true;
    } catch {
      // asserted below
    }
    expect(mounted, `mount -t tmpfs on ${d} (needs root)`).toBe(true);
    try {
      await (await openSqliteRepository({ file })).close();
      execFileSync('mount', ['-o', 'remount,ro', d]);
      await expectRefused(
        file,
        /cannot be written by this server's user \(.*\): it may not create files in its folder .* \(access W_OK: EROFS, read-only file system\)\. Nothing was changed/,
      );
    } finally {
      if (mounted) execFileSync('umount', ['-l', d]);
    }
  });
});

describe('one process per database file', () => {
  it('a second process is refused, naming the file; kill -9 leaves nothing that stops the next start, and every acknowledged write is there', async () => {
    const file = path.join(dir(), 'paylater.db');
    const { child, ...info } = await spawnChildServer(file);
    try {
      const r = await fetch(`${info.baseUrl}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-Key': info.key },
        body: JSON.stringify(partnerBody({ vendorReference: 'LOCK-1' })),
      });
      expect(r.status).toBe(201);
      const { id } = (await r.json()) as { id: string };
      const second = await openSqliteRepository({ file }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(second).toBeInstanceOf(DataFileError);
      expect((second as Error).message).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use`));
      child.kill('SIGKILL');
      await exited(child);
      const repo = await openSqliteRepository({ file });
      expect((await repo.get('transactions', id))?.vendorReference).toBe('LOCK-1');
      await repo.close();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('within one process too, a second open is refused until the first closes', async () => {
    const file = path.join(dir(), 'paylater.db');
    const first = await openSqliteRepository({ file });
    await expect(openSqliteRepository({ file })).rejects.toThrow(/is in use/);
    await first.close();
    const again = await openSqliteRepository({ file });
    await again.close();
  });

  it('a new file is made whole before it has its name: no temporary file is left', async () => {
    const d = dir();
    const repo = await openSqliteRepository({ file: path.join(d, 'paylater.db') });
    await repo.close();
    expect(readdirSync(d)).toEqual(['paylater.db']);
  });
});
