/** One process per data file: the lock, its recovery after kill -9, and leftover temp files. */
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileLockedError } from './data-lock.ts';
import { openFileStore } from './file-persistence.ts';
import { exited, spawnChildServer } from './fixtures/spawn-child.ts';
import { partnerBody } from '../test-helpers.ts';

const dir = () => mkdtempSync(path.join(tmpdir(), 'paylater-lock-'));

async function create(baseUrl: string, key: string, vendorReference: string): Promise<string> {
  const r = await fetch(`${baseUrl}/api/v1/public/partner/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Key': key },
    body: JSON.stringify(partnerBody({ vendorReference })),
  });
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: string }).id;
}

describe('the data file lock', () => {
  it('a second process refuses the data file, naming it and the process holding it; kill -9 leaves a lock that is recovered', async () => {
    const file = path.join(dir(), 'paylater.json');
    const { child, ...info } = await spawnChildServer(file);
    try {
      const id = await create(info.baseUrl, info.key, 'LOCK-1');
      const second = await openFileStore(file).then(
        () => null,
        (e: unknown) => e,
      );
      expect(second).toBeInstanceOf(DataFileLockedError);
      expect((second as Error).message).toContain(file);
      expect((second as Error).message).toContain(`process ${child.pid}`);
      const owner = JSON.parse(readFileSync(`${file}.lock`, 'utf8')) as { pid: number };
      expect(owner.pid).toBe(child.pid);

      child.kill('SIGKILL');
      await exited(child);
      expect(existsSync(`${file}.lock`)).toBe(true); // left behind by the killed process
      const s = await openFileStore(file);
      expect(s.get('transactions', id)).toBeDefined();
      expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
      await s.close();
      expect(existsSync(`${file}.lock`)).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('a lock file still being written (not parseable yet, fresh) is not taken over at once', async () => {
    const file = path.join(dir(), 'paylater.json');
    writeFileSync(`${file}.lock`, '');
    const started = Date.now();
    const s = await openFileStore(file);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    await s.close();
  });

  it('within one process too, a second open of the same file is refused until the first closes', async () => {
    const file = path.join(dir(), 'paylater.json');
    const first = await openFileStore(file);
    await expect(openFileStore(file)).rejects.toThrow(DataFileLockedError);
    await first.close();
    const again = await openFileStore(file);
    await again.close();
  });

  it('a lock of a process that no longer exists, or a torn lock file, is taken over', async () => {
    for (const content of [
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), startedAt: '2026-01-01T00:00:00.000Z' }),
      '{"pid":',
    ]) {
      const file = path.join(dir(), 'paylater.json');
      writeFileSync(`${file}.lock`, content);
      const old = new Date(Date.now() - 60_000);
      utimesSync(`${file}.lock`, old, old); // a torn lock counts as stale only once it is not being written
      const s = await openFileStore(file);
      await s.close();
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  });
});

describe('leftover temp files', () => {
  it('a temp file a crash left during a fold is removed at start; other files are kept', async () => {
    const d = dir();
    const file = path.join(d, 'data.json');
    const leftover = path.join(d, '.data.json.4242.1763647509000.tmp');
    const unrelated = path.join(d, '.other.json.4242.1763647509000.tmp');
    writeFileSync(leftover, '{"torn');
    writeFileSync(unrelated, 'keep');
    const s = await openFileStore(file);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(unrelated)).toBe(true);
    await s.close();
  });
});
