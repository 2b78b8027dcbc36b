import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations } from './migrations.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The checksums databases in use recorded when each migration was applied (sha256 of the text
 * run, as shipped at 767391d; the clock in milliseconds, ADR-085, after): a migration whose text run changed would be refused on every one
 * of them ("was changed after it was applied").
 */
const SHIPPED: Record<string, string[]> = {
  sqlite: [
    '2e2c24d75eb89e5e834885e508e8638d69fcf2e7d60a082f3ab9932f5d8f7779',
    '7b9fa707715196cc1ff732799189b3cec613282d0f2d26c00318711a9d877af9',
    '4dd625802d31ae817fc2490ec2684ce49565e8bfde938fb507f48013b05be25a',
  ],
  postgres: [
    'c87175925a7b9f705aeaffa343a56e7634fb368801aae37bc6ee7b33375b4abf',
    '6d81f83b698bfe25f1ea6584d0c7b7c79de347c0ab5048a5566441519701d9d2',
    'ab208c3ab7b6d4e951567c901132d44bd16f649a152e5ca9369a510ea5c6bdbd',
    '55f77e86ebe4dc0b7a4b9542d9c7d542c3375e66a76b935e00d8f86133b5a11e',
    '4dd625802d31ae817fc2490ec2684ce49565e8bfde938fb507f48013b05be25a',
  ],
};

const temp = mkdtempSync(path.join(tmpdir(), 'paylater-migrations-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('migrations', () => {
  it.each(Object.keys(SHIPPED))('%s: the shipped migrations keep the checksums databases recorded', (store) => {
    expect(loadMigrations(here(`./${store}/migrations/`)).map((m) => m.checksum)).toEqual(SHIPPED[store]);
  });

  it("both stores' first migration runs the one statement of the unique index on (merchant, vendorReference)", () => {
    const statement = readFileSync(here('./vendor-reference-unique.sql'), 'utf8');
    expect(statement).toMatch(/^CREATE UNIQUE INDEX transactions_vendor_reference ON transactions \(merchant_id, vendor_reference\)/);
    for (const store of Object.keys(SHIPPED)) {
      const [first] = loadMigrations(here(`./${store}/migrations/`));
      expect(first!.sql.split(statement)).toHaveLength(2);
      expect(first!.sql).not.toMatch(/\\ir/);
    }
  });

  it('a line `\\ir <file>` is that file’s text, relative to the migration’s folder; the checksum is of the text run', () => {
    const dir = path.join(temp, 'store', 'migrations');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(temp, 'shared.sql'), 'CREATE TABLE b (id INTEGER);\n');
    writeFileSync(path.join(dir, '0001_first.sql'), 'CREATE TABLE a (id INTEGER);\n\\ir ../../shared.sql\n-- end\n');
    writeFileSync(path.join(dir, '0002_plain.sql'), 'CREATE TABLE a (id INTEGER);\nCREATE TABLE b (id INTEGER);\n-- end\n');
    const [first, plain] = loadMigrations(dir);
    expect(first!.sql).toBe('CREATE TABLE a (id INTEGER);\nCREATE TABLE b (id INTEGER);\n-- end\n');
    expect(first!.checksum).toBe(plain!.checksum);
  });
});
