/** Helpers for this package's tests. */
import { startTestServer, type TestServer, type TestServerOptions } from './testing.ts';
import { ManualClock } from './domain/clock.ts';
import type { V1, V2 } from '../generated/index.ts';
import { isJson } from '../lib/json.ts';

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
  const s = await startTestServer({ webhookDispatcherFactory: null, ...opts, clock });
  const api: Api = (m, p, o) => call(s.baseUrl, m, p, o);
  return { s, clock, api };
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
