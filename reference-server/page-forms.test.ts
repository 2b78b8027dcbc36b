/**
 * The page forms beside the API: the demo shop's checkout form of each
 * variant (urlencoded, 10 kB, 50 fields) and the dashboard's go-live run (JSON, 4 kB). A body
 * over the byte limit answers 413 PAYLOAD_TOO_LARGE, one with too many fields 400
 * VALIDATION_ERROR (http/page-body.ts says why), a body that does not parse 400; always in the
 * one error shape, never a 500, and nothing stored changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { COLLECTIONS } from './domain/types.ts';
import { startTestServer, type TestServer } from './testing.ts';
import { mountSite } from './site.ts';
import { DEMO_MERCHANTS } from './config.ts';

let dist: string;
let server: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  dist = await mkdtemp(path.join(os.tmpdir(), 'paylater-forms-'));
  await mkdir(path.join(dist, 'docs'), { recursive: true });
  await writeFile(path.join(dist, 'docs', 'index.html'), '<!doctype html><title>PayLater docs</title>');
  server = await startTestServer({
    log: (line) => logged.push(line),
    mount: (app) => mountSite(app, { merchants: DEMO_MERCHANTS, mode: 'sandbox', distDir: dist }),
  });
});
afterAll(async () => {
  await server.close();
  await rm(dist, { recursive: true, force: true });
});

/** Every record the store holds, collection by collection. */
async function stored(): Promise<Record<string, number>> {
  const repo = server.handle.core.repo;
  return Object.fromEntries(await Promise.all(COLLECTIONS.map(async (c) => [c, await repo.count(c)] as const)));
}

async function post(url: string, contentType: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.baseUrl}${url}`, {
    method: 'POST',
    headers: { 'Content-Type': contentType, ...headers },
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text };
}

/** A refusal in the one error shape: exactly `{ error: { code, message[, details] } }`. */
function expectRefusal(r: { status: number; type: string | null; text: string }, status: number, code: string, message: RegExp) {
  expect(r.status, r.text).toBe(status);
  expect(r.type).toMatch(/^application\/json/);
  const body = JSON.parse(r.text) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(message);
  for (const k of Object.keys(body.error)) expect(['code', 'message', 'details']).toContain(k);
}

const FORM = 'application/x-www-form-urlencoded';
/** `n` fields `a`, `a`, …: 2n−1 bytes, so 5,000 of them (9,999 bytes) stay under 10 kB. */
const fields = (n: number) => Array.from({ length: n }, () => 'a').join('&');

describe.each([1, 2])('the demo shop checkout form, variant %i', (variant) => {
  const url = `/demo/v${variant}/checkout`;

  it('answers a 20 kB body 413 PAYLOAD_TOO_LARGE stating its 10 kB limit; nothing stored changes', async () => {
    const before = await stored();
    const r = await post(url, FORM, `qty_hdp-200=1&locale=en&note=${'x'.repeat(20 * 1024)}`);
    expectRefusal(r, 413, 'PAYLOAD_TOO_LARGE', /^Request body exceeds 10 kB$/);
    expect(await stored()).toEqual(before);
  });

  it('answers 5,000 fields (9,999 bytes, under the byte limit) 400 VALIDATION_ERROR naming the 50-field limit; nothing stored changes', async () => {
    const before = await stored();
    const body = `qty_hdp-200=1&${fields(4999)}`;
    expect(body.length).toBeLessThan(10 * 1024);
    const r = await post(url, FORM, body);
    expectRefusal(r, 400, 'VALIDATION_ERROR', /more than 50 fields/);
    expect(await stored()).toEqual(before);
  });

  it('answers 5,000 fields over 20 kB 413 (the byte limit is checked first)', async () => {
    const before = await stored();
    const r = await post(url, FORM, Array.from({ length: 5000 }, (_, i) => `f${i}=1`).join('&'));
    expectRefusal(r, 413, 'PAYLOAD_TOO_LARGE', /^Request body exceeds 10 kB$/);
    expect(await stored()).toEqual(before);
  });

  it('still takes a real order: 303 to the payment page, one checkout session stored', async () => {
    const before = await stored();
    const r = await post(url, FORM, 'qty_hdp-200=1&locale=en');
    expect(r.status, r.text).toBe(303);
    expect((await stored()).sessions).toBe(before.sessions! + 1);
  });
});

describe('the dashboard go-live run (JSON)', () => {
  const url = '/dashboard/go-live/run';
  const key = { 'X-API-Key': DEMO_MERCHANTS[0]!.apiKey };

  it('answers a 20 kB body 413 PAYLOAD_TOO_LARGE stating its 4 kB limit; nothing stored changes', async () => {
    const before = await stored();
    const r = await post(url, 'application/json', JSON.stringify({ webhookUrl: null, pad: 'x'.repeat(20 * 1024) }), key);
    expectRefusal(r, 413, 'PAYLOAD_TOO_LARGE', /^Request body exceeds 4 kB$/);
    expect(await stored()).toEqual(before);
  });

  it('answers 5,000 members 413 (over its 4 kB limit) and a body that does not parse 400 VALIDATION_ERROR', async () => {
    const before = await stored();
    const many = `{${Array.from({ length: 5000 }, (_, i) => `"f${i}":1`).join(',')}}`;
    expectRefusal(await post(url, 'application/json', many, key), 413, 'PAYLOAD_TOO_LARGE', /^Request body exceeds 4 kB$/);
    expectRefusal(await post(url, 'application/json', '{"webhookUrl": ', key), 400, 'VALIDATION_ERROR', /could not be parsed/);
    expect(await stored()).toEqual(before);
  });
});

describe('the last error handler', () => {
  it('logged no INTERNAL_ERROR for any of the refusals above', () => {
    expect(logged.filter((l) => l.includes('INTERNAL_ERROR'))).toEqual([]);
  });
});
