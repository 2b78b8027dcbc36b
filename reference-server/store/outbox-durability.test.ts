/**
 * The durable outbox under kill -9: an event is written in the same store write as the
 * state change that causes it, so after a crash every stored change has exactly its one
 * event and no event exists for a change that was not stored.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from './file-persistence.ts';
import { exited, spawnChildServer } from './fixtures/spawn-child.ts';
import type { TransactionRecord } from '../domain/types.ts';
import { partnerBody } from '../test-helpers.ts';
import { merchantIdOf } from '../config.ts';
import { sha256 } from '../domain/ids.ts';

describe('kill -9 during cancellations', () => {
  it('leaves exactly one transaction.cancelled per stored cancellation and none for the rest', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'paylater-outbox-')), 'paylater.json');
    const { child, ...info } = await spawnChildServer(file);
    try {
      const refs = Array.from({ length: 400 }, (_, i) => `C-${i}`);
      for (let i = 0; i < refs.length; i += 40) {
        await Promise.all(
          refs.slice(i, i + 40).map(async (ref) => {
            const r = await fetch(`${info.baseUrl}/api/v1/public/partner/transactions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'X-Service-Key': info.key },
              body: JSON.stringify(partnerBody({ vendorReference: ref })),
            });
            expect(r.status).toBe(201);
          }),
        );
      }
      const acked: string[] = [];
      let next = 0;
      const worker = async () => {
        while (next < refs.length) {
          const ref = refs[next++]!;
          try {
            const r = await fetch(`${info.baseUrl}/api/v1/public/partner/transactions/vendor/${ref}/cancel`, {
              method: 'PUT',
              headers: { 'X-Api-Key': info.key },
            });
            if (r.status === 200) acked.push(ref);
          } catch {
            return; // the process died under us
          }
        }
      };
      const workers = Array.from({ length: 8 }, () => worker());
      while (acked.length < 40) await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGKILL');
      await Promise.all(workers);
      await exited(child);

      const store = await openFileStore(file);
      try {
        const merchantId = merchantIdOf(sha256(info.key));
        const txs = refs.map((ref) => store.transactionByVendorReference(merchantId, ref));
        expect(txs.every(Boolean)).toBe(true);
        const events = store.outboxIds(merchantId).map((id) => store.get('outbox', id)!);
        const byTx = new Map<string, string[]>();
        for (const e of events) byTx.set(e.transactionId, [...(byTx.get(e.transactionId) ?? []), e.event]);
        let canceled = 0;
        for (const t of txs as TransactionRecord[]) {
          if (t.status === 'CANCELED') {
            canceled += 1;
            expect(byTx.get(t.id), `events of canceled ${t.vendorReference}`).toEqual(['transaction.cancelled']);
          } else {
            expect(t.status).toBe('PENDING');
            expect(byTx.get(t.id), `events of pending ${t.vendorReference}`).toBeUndefined();
          }
        }
        for (const ref of acked)
          expect(txs.find((t) => t!.vendorReference === ref)!.status, `acknowledged cancel of ${ref}`).toBe('CANCELED');
        expect(canceled).toBeGreaterThanOrEqual(acked.length);
        expect(canceled).toBeLessThan(refs.length); // the kill did land mid-way
      } finally {
        await store.close();
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
