/**
 * Durability under kill -9 (ADR-047): a server on a database file is killed ten times in the
 * middle of bursts of creates and cancels. Every acknowledged write reads back identical
 * afterwards; a write in flight at the kill is there whole or not at all: each stored
 * transaction has its one SMS, and its events match its state (exactly one transaction.cancelled
 * for a cancellation, none for a PENDING one), because each is written in the one commit of the
 * change that causes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exited, spawnChildServer, type ChildServer } from '../test-support/spawn-child.ts';
import { partnerBody } from '../test-support/helpers.ts';
import { merchantIdOf } from '../config.ts';
import { sha256 } from '../domain/ids.ts';
import { openSqliteRepository } from './sqlite/sqlite-repository.ts';

type Body = { id: string; status: string; vendorReference: string };

const KILLS = 10;

// @checks ADR-047
describe('kill -9 in the middle of bursts of creates and cancels, ten times', () => {
  it('every acknowledged write reads back identical; every stored transaction has its SMS and the events of its state', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-kill-'));
    const file = path.join(dir, 'paylater.db');
    /** Per vendorReference: the last acknowledged answer, and whether a later write was in flight at a kill. */
    const acked = new Map<string, Body>();
    const uncertain = new Set<string>();
    let writes = 0;
    let key = '';
    let child: ChildServer | null = null;
    try {
      for (let cycle = 0; cycle < KILLS; cycle++) {
        child = await spawnChildServer(file);
        key = child.key;
        const base = child.baseUrl;
        let done = 0;
        let next = 0;
        let dead = false;
        const pending = [...acked.values()].filter((b) => b.status === 'PENDING' && !uncertain.has(b.vendorReference));
        const worker = async (w: number) => {
          while (!dead) {
            const cancel = w % 2 === 1 && pending.length > 0;
            const ref = cancel ? pending.pop()!.vendorReference : `K-${cycle}-${next++}`;
            try {
              const r = cancel
                ? await fetch(`${base}/api/v1/public/partner/transactions/vendor/${ref}/cancel`, {
                    method: 'PUT',
                    headers: { 'X-Api-Key': key },
                  })
                : await fetch(`${base}/api/v1/public/partner/transactions`, {
                    method: 'POST',
                    headers: { 'content-type': 'application/json', 'X-Service-Key': key },
                    body: JSON.stringify(partnerBody({ vendorReference: ref })),
                  });
              expect(r.status, ref).toBe(cancel ? 200 : 201);
              acked.set(ref, (await r.json()) as Body);
              done += 1;
              writes += 1;
            } catch (e) {
              if (!dead) throw e;
              uncertain.add(ref); // in flight at the kill: there whole or not at all
              return;
            }
          }
        };
        const workers = Array.from({ length: 8 }, (_, w) => worker(w));
        const target = 30 + Math.floor(Math.random() * 40);
        while (done < target) await new Promise((r) => setTimeout(r, 2));
        dead = true;
        child.child.kill('SIGKILL');
        await Promise.all(workers);
        await exited(child.child);
      }

      // Read back through a new server on the file.
      child = await spawnChildServer(file);
      const base = child.baseUrl;
      const read = async (ref: string) => {
        const r = await fetch(`${base}/api/v1/public/partner/transactions/vendor/${ref}`, { headers: { 'X-Api-Key': key } });
        return { status: r.status, body: (await r.json()) as Body };
      };
      let canceled = 0;
      for (const [ref, answer] of acked) {
        const now = await read(ref);
        expect(now.status, ref).toBe(200);
        if (uncertain.has(ref) && now.body.status === 'CANCELED' && answer.status === 'PENDING') continue; // the cancel in flight made it
        expect(now.body, `acknowledged ${ref}`).toEqual(answer);
        if (answer.status === 'CANCELED') canceled += 1;
      }
      expect(writes).toBeGreaterThanOrEqual(KILLS * 30);
      expect(canceled).toBeGreaterThan(0);
      child.child.kill('SIGKILL');
      await exited(child.child);
      child = null;

      const repo = await openSqliteRepository({ file });
      try {
        const merchantId = merchantIdOf(sha256(key));
        const all = [];
        for (let cursor: string | null = null; ;) {
          const page = await repo.transactionsPage(merchantId, 500, cursor);
          all.push(...page.items);
          if ((cursor = page.next) === null) break;
        }
        expect(all.length).toBeGreaterThanOrEqual(acked.size);
        for (const t of all) {
          const sms = await repo.smsPage(merchantId, 10, null, t.id);
          expect(
            sms.items.map((s) => s.transactionId),
            `SMS of ${t.vendorReference}`,
          ).toEqual([t.id]);
          const events = (await repo.outboxPage(merchantId, 10, null, t.id)).items.map((e) => e.event);
          expect(events, `events of ${t.status} ${t.vendorReference}`).toEqual(t.status === 'CANCELED' ? ['transaction.cancelled'] : []);
          expect(['PENDING', 'CANCELED']).toContain(t.status);
        }
      } finally {
        await repo.close();
      }
    } finally {
      if (child && child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
