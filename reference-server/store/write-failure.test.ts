/**
 * A full disk (ADR-026) under the SQLite store, on a 1 MiB tmpfs: nothing acknowledged is lost,
 * reads keep answering, writes answer 503 STORAGE_UNAVAILABLE with Retry-After, and writing
 * resumes once space returns. The tmpfs is required (the test runs as root on the project's
 * machines): SQLite's writes have no seam to inject a failure into.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { DEMO_MERCHANTS, serverConfig } from '../config.ts';
import { systemClock } from '../domain/clock.ts';
import { partnerBody } from '../test-support/helpers.ts';
import { storageRetryAfterSeconds } from './errors.ts';
import { openSqliteRepository } from './sqlite/sqlite-repository.ts';

function tryMountTmpfs(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'paylater-enospc-'));
const onTmpfs = tryMountTmpfs(dir);

// @checks ADR-026
describe('storage write failures (a 1 MiB tmpfs filled up)', () => {
  it('keeps what was acknowledged, answers reads, answers writes 503 with Retry-After, and resumes once space returns', async () => {
    expect(onTmpfs, `mount -t tmpfs on ${dir} (needs root)`).toBe(true);
    const file = path.join(dir, 'paylater.db');
    let now = Date.now();
    const repository = await openSqliteRepository({ file, now: () => now });
    const handle = await createApp({ repository, clock: systemClock, config: serverConfig({ log: () => {} }) });
    const server: Server = await new Promise((r) => {
      const s = handle.app.listen(0, '127.0.0.1', () => r(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const key = DEMO_MERCHANTS[0]!.apiKey;
    const create = (vendorReference: string) =>
      fetch(`${base}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-Key': key },
        body: JSON.stringify(partnerBody({ vendorReference })),
      });
    const filler = path.join(dir, 'filler');
    try {
      const first = await create('W-1');
      expect(first.status).toBe(201);
      const { id } = (await first.json()) as { id: string };

      // The disk fills up.
      try {
        writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      let failed: Response | null = null;
      const acked: string[] = [];
      for (let i = 0; i < 200 && !failed; i++) {
        const r = await create(`W-full-${i}`);
        if (r.status === 201) acked.push(((await r.json()) as { id: string }).id);
        else failed = r;
      }
      expect(failed?.status).toBe(503);
      expect(failed!.headers.get('retry-after')).toBe(String(storageRetryAfterSeconds));
      expect(await failed!.json()).toEqual({
        error: {
          code: 'STORAGE_UNAVAILABLE',
          message: `Storage is unavailable, retry after ${storageRetryAfterSeconds} seconds`,
          retry_after: storageRetryAfterSeconds,
        },
      });

      // Reads keep answering, from what is on disk; the failed create is not visible.
      const read = await fetch(`${base}/api/v1/public/partner/transactions/${id}`, { headers: { 'X-API-Key': key } });
      expect(read.status).toBe(200);
      const clock = await fetch(`${base}/api/v1/sandbox/clock`, { headers: { 'X-API-Key': key } });
      expect(clock.status).toBe(200);
      const lost = await fetch(`${base}/api/v1/public/partner/transactions/vendor/W-full-${acked.length}`, {
        headers: { 'X-API-Key': key },
      });
      expect(lost.status).toBe(404);
      // During the wait, writes are refused at once.
      expect((await create('W-2')).status).toBe(503);

      // Space returns: after Retry-After, writing resumes by itself.
      rmSync(filler, { force: true });
      now += storageRetryAfterSeconds * 1000;
      const resumed = await create('W-3');
      expect(resumed.status).toBe(201);
      const { id: id3 } = (await resumed.json()) as { id: string };

      await new Promise<void>((r) => server.close(() => r()));
      await handle.close();
      const reopened = await openSqliteRepository({ file });
      for (const keep of [id, id3, ...acked]) expect(await reopened.get('transactions', keep), keep).toBeDefined();
      expect(await reopened.transactionByVendorReference(handle.core.config.merchants[0]!.id, 'W-2')).toBeUndefined();
      expect(await reopened.transactionByVendorReference(handle.core.config.merchants[0]!.id, `W-full-${acked.length}`)).toBeUndefined();
      await reopened.close();
    } finally {
      server.close();
      await handle.close().catch(() => {});
      if (onTmpfs) execFileSync('umount', ['-l', dir]); // lazy: files a failed run left open must not keep it mounted
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
