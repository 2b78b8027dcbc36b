/**
 * `paylater certify --resilience`: while certify observes, the sandbox answers the merchant's
 * next A1 call 429 and the one after 500 (ADR-052). A client that waits `retry_after` and backs
 * off after the 500 passes both items; one that retries at once fails both, with the gaps seen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionBodyV1 } from '../reference-server/test-support/helpers.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { runCertify } from './certify.ts';
import type { CertifyReport } from './checklist.ts';
import { RETRY_AFTER_S } from './resilience.ts';

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startTestServer({ webhookDispatcherFactory: null });
  key = s.merchants[0]!.apiKey;
});
afterAll(() => s.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A merchant backend creating a session (A1): `backoff` honours retry_after and backs off; `burst`
 * retries at once. `afterRetryAfter`, when given, is awaited once a 429's wait is over, before the retry.
 */
async function createSession(policy: 'backoff' | 'burst', afterRetryAfter?: () => Promise<void>): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const r = await fetch(`${s.baseUrl}/api/v1/public/sessions`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'content-type': 'application/json' },
      body: JSON.stringify(sessionBodyV1()),
    });
    const body = (await r.json()) as { error?: { retry_after?: number } };
    statuses.push(r.status);
    if (r.status === 200) break;
    if (policy === 'backoff') await sleep(r.status === 429 ? (body.error?.retry_after ?? 1) * 1000 : 300 * 2 ** attempt);
    if (policy === 'backoff' && r.status === 429) await afterRetryAfter?.();
  }
  return statuses;
}

/** Waits until the sandbox's fault rule answers `failure` (certify switches 429 → 500 once the 429 was used). */
async function ruleIs(failure: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = (await (await fetch(`${s.baseUrl}/api/v1/sandbox/faults`, { headers: { 'X-API-Key': key } })).json()) as {
      rule: { failure: string; used: number } | null;
    };
    if (r.rule?.failure === failure && r.rule.used === 0) return;
    await sleep(50);
  }
  throw new Error(`the fault rule never became ${failure}`);
}

const itemOf = (r: CertifyReport, id: string) => r.items.find((i) => i.id === id)!;

describe('paylater certify --resilience', () => {
  it('a client that waits retry_after and backs off after a 500 passes both items', async () => {
    let seen: number[] = [];
    const r = await runCertify({
      baseUrl: s.baseUrl,
      apiKey: key,
      resilience: true,
      during: async () => {
        // certify switches the rule to 500 once it sees the 429 used (it polls): on a slow machine
        // that may take longer than retry_after, so the retry also waits for the switch
        seen = await createSession('backoff', () => ruleIs('500'));
      },
    });
    expect(seen).toEqual([429, 500, 200]);
    // The gaps are measured on a real clock, which a busy machine only lengthens: the messages are
    // matched by their shape, the verdicts say what was judged.
    const ra = itemOf(r, 'resilience.retry-after');
    expect(ra.verdict, ra.seen).toBe('pass');
    const waited = new RegExp(`^the next A1 came (\\d+\\.\\d\\d) s after the 429 \\(retry_after ${RETRY_AFTER_S} s\\)$`).exec(ra.seen);
    expect(waited, ra.seen).not.toBeNull();
    expect(Number(waited![1])).toBeGreaterThanOrEqual(RETRY_AFTER_S);
    const bo = itemOf(r, 'resilience.backoff');
    expect(bo.verdict, bo.seen).toBe('pass');
    const retried = /^after the 500 the first retry came (\d+ ms|\d+\.\d\d s) later, (\d+) A1 call\(s\) within 1\.00 s$/.exec(bo.seen);
    expect(retried, bo.seen).not.toBeNull();
    // the one retry (the 200) is counted when it came within the window (shown in ms), not after
    expect(Number(retried![2]), bo.seen).toBe(retried![1]!.endsWith(' ms') ? 1 : 0);
    // the rule is removed when certify stops
    const after = await fetch(`${s.baseUrl}/api/v1/sandbox/faults`, { headers: { 'X-API-Key': key } });
    expect(await after.json()).toEqual({ rule: null });
  }, 30_000);

  it('a client that retries at once fails both items', async () => {
    const r = await runCertify({
      baseUrl: s.baseUrl,
      apiKey: key,
      resilience: true,
      during: async () => {
        expect((await createSession('burst'))[0]).toBe(429);
        await ruleIs('500');
        expect(await createSession('burst')).toEqual([500, 200]);
      },
    });
    const ra = itemOf(r, 'resilience.retry-after');
    expect(ra.verdict).toBe('fail');
    expect(ra.seen).toMatch(/^the next A1 came (\d+ ms|\d+\.\d\d s) after the 429 \(retry_after 2 s\): it did not wait$/);
    const bo = itemOf(r, 'resilience.backoff');
    expect(bo.verdict).toBe('fail');
    expect(bo.seen).toMatch(/first retry came \d+ ms later.*: a burst/);
  }, 30_000);

  it('without --resilience the items are not observed', async () => {
    const r = await runCertify({ baseUrl: s.baseUrl, apiKey: key, during: () => createSession('backoff').then(() => undefined) });
    expect(itemOf(r, 'resilience.retry-after').verdict).toBe('not_observed');
    expect(itemOf(r, 'resilience.backoff').verdict).toBe('not_observed');
  });
});
