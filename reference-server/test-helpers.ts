/** Helpers for this package's tests. */
import { startTestServer, type TestServer, type TestServerOptions } from './testing.ts';
import { ManualClock } from './domain/clock.ts';

export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export async function call(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string> | [string, string][]; json?: unknown; raw?: string | Buffer } = {},
): Promise<Answer> {
  const headers = new Headers(opts.headers as HeadersInit | undefined);
  let body: string | Buffer | undefined;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  } else if (opts.raw !== undefined) body = opts.raw;
  const r = await fetch(base + path, { method, headers, body: body as BodyInit | undefined });
  const text = await r.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}

export const T0 = Date.UTC(2026, 10, 20, 14, 5, 9);

export async function server(opts: TestServerOptions = {}): Promise<{ s: TestServer; clock: ManualClock; api: (method: string, path: string, o?: Parameters<typeof call>[3]) => Promise<Answer> }> {
  const clock = opts.clock instanceof ManualClock ? opts.clock : new ManualClock(T0);
  const s = await startTestServer({ webhookDispatcherFactory: null, ...opts, clock });
  return { s, clock, api: (m, p, o) => call(s.baseUrl, m, p, o) };
}

export const item = (price: number, quantity = 1) => ({ name: 'Wireless headphones', reference: 'SKU-100', quantity, unitPrice: price });
export const partnerBody = (over: Record<string, unknown> = {}) => ({ customerPhone: '212612345678', total: 1299.5, currency: 'MAD', items: [item(1299.5)], ...over });
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
