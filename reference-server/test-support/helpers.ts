/** Helpers for this package's tests. */
import { afterAll, beforeAll } from 'vitest';
import { DEMO_MERCHANTS } from '../config.ts';
import { onPostgres, startTestServerOnPostgres } from './test-database.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../testing.ts';
import { ManualClock } from '../domain/clock.ts';
import type { V1, V2 } from '../../generated/index.ts';
import { isJson } from '../../lib/json.ts';

/** The generated schema types of each variant, to type the answers a test expects. */
export type S1 = V1.components['schemas'];
export type S2 = V2.components['schemas'];
/** The `error` member of every error answer. */
export type ErrorInfo = S1['Error']['error'];

/**
 * An HTTP answer; `body` is the parsed JSON (or the text when it is not JSON), typed as `B`, the
 * schema the test expects for this answer. The type is a view, not a check: the test's
 * assertions check the values (and `errorOf` checks the shape of an error).
 */
export interface Answer<B = unknown> {
  status: number;
  headers: Headers;
  body: B;
  text: string;
}

export type CallOptions = { headers?: Record<string, string> | [string, string][]; json?: unknown; raw?: string | Buffer };

export async function call<B = unknown>(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Answer<B>> {
  const headers = new Headers(opts.headers);
  let body: string | Buffer | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  } else if (opts.raw !== undefined) body = opts.raw;
  const r = await fetch(base + path, { method, headers, body: body as BodyInit | undefined });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: r.status, headers: r.headers, body: parsed as B, text };
}

/** The `error` of an error answer; throws (failing the test) with the answer's text when the body is not one. */
export function errorOf(answer: Answer<unknown>): ErrorInfo {
  const error = isJson(answer.body) ? answer.body.error : undefined;
  if (!isJson(error) || typeof error.code !== 'string' || typeof error.message !== 'string') {
    throw new Error(`expected an error answer, got ${answer.status} ${answer.text}`);
  }
  return error as ErrorInfo;
}

/** `call` bound to a test server's base URL. */
export type Api = <B = unknown>(method: string, path: string, opts?: CallOptions) => Promise<Answer<B>>;

export const T0 = Date.UTC(2026, 10, 20, 14, 5, 9);

export async function server(opts: TestServerOptions = {}): Promise<{ s: TestServer; clock: ManualClock; api: Api }> {
  const clock = opts.clock instanceof ManualClock ? opts.clock : new ManualClock(T0);
  const options: TestServerOptions = { webhookDispatcherFactory: null, ...opts, clock };
  const onDb = onPostgres && opts.dataFile === undefined && opts.databaseUrl === undefined;
  const s = onDb ? await startTestServerOnPostgres(options) : await startTestServer(options);
  const api: Api = (m, p, o) => call(s.baseUrl, m, p, o);
  return { s, clock, api };
}

/** One test server shared by a test file (started in `beforeAll`, closed in `afterAll`), with its demo merchants' keys. */
export interface SharedServer {
  /** The server (once `beforeAll` ran). */
  readonly s: TestServer;
  clock: ManualClock;
  api: Api;
  /** The API keys of the two demo merchants (Variant 1, Variant 2). */
  K1: string;
  K2: string;
  /** The API-key header, and the service-key header, of `key`. */
  k: (key: string) => { 'X-API-Key': string };
  svc: (key: string) => { 'X-Service-Key': string };
  /** How many transactions the server stores. */
  txCount: () => Promise<number>;
}

/** Registers the hooks of a test file's shared server (the demo merchants, no webhook engine, a manual clock at `T0`). */
export function sharedServer(opts: Omit<TestServerOptions, 'clock' | 'merchants'> = {}): SharedServer {
  const clock = new ManualClock(T0);
  let current: TestServer | undefined;
  const must = (): TestServer => {
    if (!current) throw new Error('the shared test server starts in beforeAll');
    return current;
  };
  beforeAll(async () => {
    current = (await server({ ...opts, clock })).s;
  });
  afterAll(() => current?.close());
  return {
    get s() {
      return must();
    },
    clock,
    api: (m, p, o) => call(must().baseUrl, m, p, o),
    K1: DEMO_MERCHANTS[0]!.apiKey,
    K2: DEMO_MERCHANTS[1]!.apiKey,
    k: (key) => ({ 'X-API-Key': key }),
    svc: (key) => ({ 'X-Service-Key': key }),
    txCount: () => must().handle.core.repo.count('transactions'),
  };
}

export const item = (price: number, quantity = 1) => ({ name: 'Wireless headphones', reference: 'SKU-100', quantity, unitPrice: price });
export const partnerBody = (over: Record<string, unknown> = {}) => ({
  customerPhone: '212612345678',
  total: 1299.5,
  currency: 'MAD',
  items: [item(1299.5)],
  ...over,
});
export const sessionBodyV1 = (over: Record<string, unknown> = {}) => ({
  total: 1299.5,
  currency: 'MAD',
  items: [
    { id: 'SKU-100', name: 'Wireless headphones', price: 999.5, quantity: 1 },
    { id: 'SKU-200', name: 'Charging case', price: 150, quantity: 2 },
  ],
  ...over,
});
export const sessionBodyV2 = (over: Record<string, unknown> = {}) => sessionBodyV1({ total: '1299.50', ...over });
