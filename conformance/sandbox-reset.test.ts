/**
 * ADR-043 and ADR-041: a sandbox-profile run checks the scenarios, and leaves both merchants' clocks
 * at real time and their A1 windows empty, where the sandbox offers a reset (its tour's last command
 * also deletes the main merchant's data, `deleteData`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/free-port.ts';
import { partnerBody } from '../reference-server/test-support/helpers.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { runSuite } from './run.ts';

const main = `sk_test_reset_main_${randomBytes(6).toString('hex')}`;
const secret = `whsec_${randomBytes(24).toString('base64')}`;
let port = 0;
const other = `sk_test_reset_other_${randomBytes(6).toString('hex')}`;
let server: TestServer;
beforeAll(async () => {
  port = await freePort();
  server = await startTestServer({
    mode: 'sandbox',
    merchants: [
      {
        name: 'Main',
        storeName: 'Main store',
        apiKey: main,
        variant: 1,
        webhookUrl: `http://127.0.0.1:${port}/hooks`,
        webhookSecret: secret,
      },
      { name: 'Other', storeName: 'Other store', apiKey: other, variant: 1 },
    ],
  });
});
afterAll(() => server?.close());

const clockOf = async (key: string) =>
  (await (await fetch(`${server.baseUrl}/api/v1/sandbox/clock`, { headers: { 'X-API-Key': key } })).json()) as { offsetSeconds: number };

/** A short sandbox-profile run of the suite with the main merchant's key and webhooks. */
const sandboxRun = (seed: number, log?: (line: string) => void) =>
  runSuite({
    baseUrl: server.baseUrl,
    apiKey: main,
    otherApiKey: other,
    variant: 1,
    profile: 'sandbox',
    runs: 1,
    seed,
    maxCommands: 8,
    paymentWindowSeconds: 1800,
    webhookPort: port,
    webhookSecret: secret,
    webhookGraceMs: 60,
    log,
  });

describe('paylater conform, sandbox profile', () => {
  it('checks the sandbox scenarios (ADR-043), then resets what it moved: offsets back to 0 and the A1 window cleared', async () => {
    const lines: string[] = [];
    const r = await sandboxRun(7, (l) => lines.push(l));
    expect(r.findings.map((f) => f.message)).toEqual([]);
    expect(lines).toContain('sandbox scenarios passed (6)');
    expect(lines).toContain('sandbox reset: clock back to real time, rate-limit window cleared');
    expect((await clockOf(main)).offsetSeconds).toBe(0);
    expect((await clockOf(other)).offsetSeconds).toBe(0);
    const a1 = await fetch(`${server.baseUrl}/api/v1/public/sessions`, {
      method: 'POST',
      headers: { 'X-API-Key': main, 'Content-Type': 'application/json' },
      body: JSON.stringify({ total: 600, currency: 'MAD', items: [{ id: 'a', name: 'x', price: 600, quantity: 1 }] }),
    });
    expect(a1.status).toBe(200);
    expect(a1.headers.get('ratelimit-remaining')).toBe('99');
  }, 120_000);

  it("runs again at once without a false finding: an earlier run's transaction ahead of the clock (moved back by the reset) expires during the setup", async () => {
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${server.baseUrl}${p}`, {
        method,
        headers: { 'X-API-Key': main, 'X-Service-Key': main, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // what an earlier run leaves: a PENDING transaction created far ahead, then the clock reset to real time
    expect((await call('POST', '/api/v1/sandbox/clock/advance', { seconds: 10_000 })).status).toBe(200);
    const created = await call(
      'POST',
      '/api/v1/public/partner/transactions',
      partnerBody({ vendorReference: `AHEAD-${randomBytes(8).toString('hex')}` }),
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const ahead = (await created.json()) as { id: string };
    expect((await call('POST', '/api/v1/sandbox/reset', {})).status).toBe(200);
    // read once the setup is over (the tour's reset with deleteData deletes it at the tour's end)
    let read: Promise<Response> | undefined;
    const r = await sandboxRun(8, (line) => {
      if (line.startsWith('coverage tour, first look')) read ??= call('GET', `/api/v1/public/partner/transactions/${ahead.id}`);
    });
    expect(r.findings.map((f) => f.message)).toEqual([]);
    expect(read).toBeDefined();
    expect(((await (await read!).json()) as { status: string }).status).toBe('EXPIRED');
  }, 120_000);
});
