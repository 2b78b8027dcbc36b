/**
 * ADR-085: the sandbox clock moves by milliseconds, so every limit can be reached from inside at
 * the millisecond: a token is accepted a millisecond before its lifetime ends and refused at it, a
 * PENDING transaction a millisecond before its payment window ends and EXPIRED at it, a spent A1
 * window refuses a millisecond before its end and counts anew at it. The base clock is a manual
 * one that never moves here: only the sandbox offset does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitOf, TOKEN_LIFETIME_MS } from '../model/index.ts';
import { loadMigrations } from './store/migrations.ts';
import { openSqliteRepository } from './store/sqlite/sqlite-repository.ts';
import { stateMachine } from '../generated/index.ts';
import { errorOf, partnerBody, server, sessionBodyV1, T0, type Api, type S1 } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';

let s: TestServer;
let api: Api;
let K: string;
let K2: string;
beforeAll(async () => {
  ({ s, api } = await server());
  K = s.merchants[0]!.apiKey;
  K2 = s.merchants[1]!.apiKey;
});
afterAll(() => s.close());

const key = (k: string) => ({ 'X-API-Key': k });
type Clock = S1['SandboxClock'];

/** Advances merchant `k`'s clock by `ms` milliseconds; returns the clock it answers. */
async function advanceMs(k: string, ms: number): Promise<Clock> {
  const r = await api<Clock>('POST', '/api/v1/sandbox/clock/advance', { headers: key(k), json: { milliseconds: ms } });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

describe('the sandbox clock in milliseconds (ADR-085)', () => {
  it('moves by milliseconds and answers its offset exact and in whole seconds rounded down', async () => {
    const before = (await api<Clock>('GET', '/api/v1/sandbox/clock', { headers: key(K2) })).body;
    const a = await advanceMs(K2, 1500);
    expect(a.offsetMilliseconds).toBe(before.offsetMilliseconds + 1500);
    expect(a.offsetSeconds).toBe(Math.floor(a.offsetMilliseconds / 1000));
    expect(Date.parse(a.now)).toBe(T0 + a.offsetMilliseconds);
    const b = await api<Clock>('POST', '/api/v1/sandbox/clock/advance', { headers: key(K2), json: { seconds: 2 } });
    expect(b.body.offsetMilliseconds).toBe(a.offsetMilliseconds + 2000);
    expect((await api<Clock>('GET', '/api/v1/sandbox/clock', { headers: key(K2) })).body).toEqual(b.body);
  });

  it.each([
    ['both members', { seconds: 1, milliseconds: 1 }],
    ['neither', {}],
    ['0 ms', { milliseconds: 0 }],
    ['a fraction of a millisecond', { milliseconds: 1.5 }],
    ['past 30 days', { milliseconds: 2_592_000_001 }],
  ])('refuses %s with 400 VALIDATION_ERROR, the clock unmoved', async (_what, json) => {
    const before = (await api<Clock>('GET', '/api/v1/sandbox/clock', { headers: key(K2) })).body;
    const r = await api('POST', '/api/v1/sandbox/clock/advance', { headers: key(K2), json });
    expect(r.status, r.text).toBe(400);
    expect(errorOf(r).code).toBe('VALIDATION_ERROR');
    expect((await api<Clock>('GET', '/api/v1/sandbox/clock', { headers: key(K2) })).body).toEqual(before);
  });

  it('a session token is accepted 1 ms before its lifetime ends and refused at its end', async () => {
    const tok = (await api<S1['SessionResponseV1']>('POST', '/api/v1/public/sessions', { headers: key(K), json: sessionBodyV1() })).body
      .token;
    const pay = await api<S1['SessionPaymentResult']>('POST', '/api/v1/sandbox/sessions/pay', {
      headers: key(K),
      json: { session_token: tok, outcome: 'success' },
    });
    expect(pay.status, pay.text).toBe(200);
    const verify = () =>
      api('GET', `/api/v1/public/transactions/${pay.body.transaction_id}/status`, { headers: { 'X-Session-Token': tok } });
    await advanceMs(K, TOKEN_LIFETIME_MS - 1);
    expect((await verify()).status).toBe(200);
    await advanceMs(K, 1);
    const refused = await verify();
    expect(refused.status).toBe(401);
    expect(errorOf(refused).code).toBe('INVALID_SESSION_TOKEN');
  });

  it('a PENDING transaction is PENDING 1 ms before its payment window ends and EXPIRED at its end', async () => {
    const t = (
      await api<S1['PartnerTransaction']>('POST', '/api/v1/public/partner/transactions', {
        headers: { 'X-Service-Key': K },
        json: partnerBody(),
      })
    ).body;
    const read = async () =>
      (await api<S1['PartnerTransaction']>('GET', `/api/v1/public/partner/transactions/${t.id}`, { headers: { 'X-Api-Key': K } })).body;
    const windowMs = stateMachine.paymentWindow.defaultSeconds * 1000;
    await advanceMs(K, windowMs - 1);
    expect((await read()).status).toBe('PENDING');
    await advanceMs(K, 1);
    const expired = await read();
    expect(expired.status).toBe('EXPIRED');
    expect(expired.updatedAt).toBe(new Date(Date.parse(t.createdAt) + windowMs).toISOString());
  });

  it('a spent A1 window refuses 1 ms before its end and counts anew at its end', async () => {
    const { limit, windowSeconds } = rateLimitOf('createSession', 1)!;
    const a1 = () => api('POST', '/api/v1/public/sessions', { headers: key(K), json: sessionBodyV1() });
    // a fresh window: the clock past any window this file's other tests started
    await advanceMs(K, windowSeconds * 1000);
    for (let i = 0; i < limit; i++) expect((await a1()).status).toBe(200);
    await advanceMs(K, windowSeconds * 1000 - 1);
    const limited = await a1();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    await advanceMs(K, 1);
    expect((await a1()).status).toBe(200);
  });
});

describe('the embedded store keeps the offset in milliseconds', () => {
  it('a database made before the change keeps its clock: 60 s of offset read as 60,000 ms', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-clock-ms-'));
    try {
      const file = path.join(dir, 'paylater.db');
      // the database as a server before ADR-085 left it: its migrations up to the go-live check, a clock advanced 60 s
      const before = loadMigrations(fileURLToPath(new URL('./store/sqlite/migrations/', import.meta.url))).filter(
        (m) => !m.name.includes('clock_milliseconds'),
      );
      const db = new DatabaseSync(file);
      db.exec(`CREATE TABLE schema_migrations (
                 version    INTEGER PRIMARY KEY,
                 name       TEXT NOT NULL,
                 checksum   TEXT NOT NULL,
                 applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
               ) STRICT`);
      for (const m of before) {
        db.exec(m.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, checksum) VALUES (?, ?, ?)').run(m.version, m.name, m.checksum);
      }
      db.exec("INSERT INTO merchant_state (merchant_id, clock_offset_seconds, endpoint_enabled) VALUES ('m1', 60, 1)");
      db.close();
      const repo = await openSqliteRepository({ file });
      try {
        expect((await repo.get('merchantState', 'm1'))?.clockOffsetMs).toBe(60_000);
      } finally {
        await repo.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
