/**
 * The suite under the failed-authentication throttle (auth-pacer.ts), against a fake server that
 * enforces a small `x-auth-failure-limit` (an edited copy of the contract: 3 failures per 2 s, sliding),
 * so a window passes in real time within the test.
 */
import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { authFailureLimit, MAX_RESENDS } from './auth-pacer.ts';
import { Client } from './http.ts';
import { Contract } from '../judge/contract.ts';

const KEY = 'sk_test_pacer_good_000001';
const LIMIT = { limit: 3, windowSeconds: 2 };

/** The variant-1 document with every security scheme's x-auth-failure-limit set to `limit`. */
function contractWith(limit: { limit: number; windowSeconds: number }): Contract {
  const doc = structuredClone(loadBundledDocument(1));
  const schemes = (doc.components as { securitySchemes: Record<string, Record<string, unknown>> }).securitySchemes;
  for (const s of Object.values(schemes)) if (s['x-auth-failure-limit']) s['x-auth-failure-limit'] = { ...limit };
  return new Contract(1, doc);
}

/**
 * A server throttling failed authentications like ADR-027 (sliding window here): a request with a
 * key other than KEY answers 401; once `limit` 401s lie in the window, every request answers 429
 * AUTH_THROTTLED with Retry-After (or `retryAfter`, to send a value the contract does not allow).
 */
function throttlingServer(opts: { retryAfter?: string } = {}) {
  const failures: number[] = [];
  const log: number[] = [];
  const fetchImpl = (async (_url: string, init: RequestInit) => {
    const now = Date.now();
    const live = failures.filter((t) => t > now - LIMIT.windowSeconds * 1000);
    failures.splice(0, failures.length, ...live);
    const key = (init.headers as Record<string, string>)['X-Api-Key'];
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
    if (failures.length >= LIMIT.limit) {
      log.push(429);
      const seconds = Math.max(1, Math.ceil((failures[0]! + LIMIT.windowSeconds * 1000 - now) / 1000));
      return json(
        429,
        { error: { code: 'AUTH_THROTTLED', message: 'throttled', retry_after: seconds } },
        { 'retry-after': opts.retryAfter ?? String(seconds) },
      );
    }
    if (key !== KEY) {
      failures.push(now);
      log.push(401);
      return json(401, { error: { code: 'INVALID_API_KEY', message: 'Invalid API key' } });
    }
    log.push(404);
    return json(404, { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } });
  }) as typeof fetch;
  return { fetchImpl, log };
}

const read = (c: Client, key: string) =>
  c.call('getPartnerTransaction', {
    pathParams: { transactionId: '8e1b6c8e-8f36-4b8e-9d55-0f3f1c2a7b10' },
    headers: { 'X-Api-Key': key },
  });

describe('x-auth-failure-limit', () => {
  it('is read from the contract (the same on every security scheme)', () => {
    expect(authFailureLimit(Contract.for(1))).toEqual({ limit: 20, windowSeconds: 60 });
    expect(authFailureLimit(contractWith(LIMIT))).toEqual(LIMIT);
  });

  it('a request answered 429 AUTH_THROTTLED is sent again after Retry-After, not judged; then the 401s are paced under the limit', async () => {
    const server = throttlingServer();
    const seen: number[] = [];
    const c = new Client('http://127.0.0.1:9', contractWith(LIMIT), server.fetchImpl, (ex) => void seen.push(ex.status), {
      knownKeys: [KEY],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await read(c, `${KEY}x`)).status);
    statuses.push((await read(c, KEY)).status);
    // every wrong key answered 401 in the end, the good key 404: nothing judged was a 429
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 404]);
    // one 429 met (the one that told the suite the server throttles), then none: the pacing kept it under
    expect(server.log.filter((s) => s === 429)).toHaveLength(1);
    expect(c.pacer.throttled).toBe(1);
    // the resent request is not in the transcript (a curl replay has no throttled step); onExchange saw it
    expect(c.transcript.map((e) => e.status)).toEqual(statuses);
    expect(seen.filter((s) => s === 429)).toHaveLength(1);
  }, 30_000);

  it('a known key under another header name is paced like a wrong key (the credential-header-name probe)', async () => {
    const server = throttlingServer();
    const c = new Client('http://127.0.0.1:9', contractWith(LIMIT), server.fetchImpl, undefined, { knownKeys: [KEY] });
    const misplaced = () =>
      c.call('getPartnerTransaction', {
        pathParams: { transactionId: '8e1b6c8e-8f36-4b8e-9d55-0f3f1c2a7b10' },
        headers: { 'X-Api-Key-Wrong': KEY },
      });
    const statuses: number[] = [];
    // wrong keys until the server throttled once and the pacing began, then the key under another name
    for (let i = 0; i < 8; i++) statuses.push((await (i < 4 ? read(c, `${KEY}x`) : misplaced())).status);
    expect(statuses).toEqual(Array(8).fill(401));
    expect(server.log.filter((s) => s === 429)).toHaveLength(1);
  }, 30_000);

  it('without the pacing, the same requests meet the throttle again', async () => {
    const server = throttlingServer();
    const c = new Client('http://127.0.0.1:9', contractWith(LIMIT), server.fetchImpl, undefined, { knownKeys: [KEY] });
    c.pacer.delayBefore = () => 0;
    for (let i = 0; i < 8; i++) await read(c, `${KEY}x`);
    expect(server.log.filter((s) => s === 429).length).toBeGreaterThan(1);
  }, 30_000);

  it('a Retry-After the contract does not allow is judged, not obeyed', async () => {
    for (const retryAfter of ['0', String(LIMIT.windowSeconds + 1), 'soon']) {
      const server = throttlingServer({ retryAfter });
      const c = new Client('http://127.0.0.1:9', contractWith(LIMIT), server.fetchImpl, undefined, { knownKeys: [KEY] });
      for (let i = 0; i < LIMIT.limit; i++) await read(c, `${KEY}x`);
      // the answer comes back to be judged (a header the schema refuses throws here; the model refuses the 429)
      const got = await read(c, KEY).then(
        (ex) => ex.status,
        (e: unknown) => e,
      );
      if (typeof got === 'number') expect(got, retryAfter).toBe(429);
      else expect(String(got), retryAfter).toMatch(/ConformanceError: .*Retry-After/);
      expect(server.log.at(-1)).toBe(429);
      expect(
        server.log.filter((x) => x === 429),
        retryAfter,
      ).toHaveLength(1);
      expect(c.pacer.throttled).toBe(0);
    }
  });

  it(`a request is sent at most ${MAX_RESENDS} more times, then its 429 is judged`, async () => {
    let sent = 0;
    const alwaysThrottled = (async () => {
      sent++;
      return new Response(JSON.stringify({ error: { code: 'AUTH_THROTTLED', message: 'throttled', retry_after: 1 } }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
      });
    }) as typeof fetch;
    const c = new Client('http://127.0.0.1:9', contractWith(LIMIT), alwaysThrottled, undefined, { knownKeys: [KEY] });
    const ex = await c.call('getPartnerTransaction', {
      pathParams: { transactionId: '8e1b6c8e-8f36-4b8e-9d55-0f3f1c2a7b10' },
      headers: { 'X-Api-Key': KEY },
    });
    expect(ex.status).toBe(429);
    expect(sent).toBe(MAX_RESENDS + 1);
  }, 30_000);
});

describe("the client's pauses", () => {
  it('count the time that passed: a whole pause, and an interrupted one only up to its interrupt', async () => {
    const ac = new AbortController();
    const c = new Client('http://127.0.0.1:9', Contract.for(1), undefined, undefined, { signal: ac.signal });
    const took = await c.pause(40);
    expect(took).toBeGreaterThanOrEqual(39);
    expect(c.pausedMs).toBe(took);
    setTimeout(() => ac.abort('SIGINT'), 20);
    await expect(c.pause(5_000)).rejects.toThrow(/interrupted by SIGINT/);
    // the interrupted pause counts the ~20 ms that passed, not the 5 s asked for
    expect(c.pausedMs - took).toBeGreaterThanOrEqual(15);
    expect(c.pausedMs - took).toBeLessThan(1_000);
  });
});
