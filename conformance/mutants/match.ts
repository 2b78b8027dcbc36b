/** What the mutants match on: the operations' paths, a response's error code, the caller's key, a fabricated record. */
import { randomUUID } from 'node:crypto';
import { valueAt, type Json } from '../../lib/json.ts';
import { json, type ProxyContext, type ProxyRequest, type ProxyResponse } from './proxy.ts';

export const B1 = /^\/api\/v1\/public\/partner\/transactions$/;
export const B2 = /^\/api\/v1\/public\/partner\/transactions\/([0-9a-f-]{36})$/;
export const B3 = /^\/api\/v1\/public\/partner\/transactions\/vendor\/([^/]+)$/;
export const B4 = /^\/api\/v1\/public\/partner\/transactions\/vendor\/([^/]+)\/cancel$/;
export const A1 = /^\/api\/v1\/public\/sessions$/;
export const A2 = /^\/api\/v1\/public\/transactions\/([0-9a-f-]{36})\/status$/;
export const A3 = /^\/api\/v1\/public\/transactions\/([0-9a-f-]{36})$/;
export const code = (res: ProxyResponse): string | undefined => {
  try {
    const c = valueAt(json(res), 'error', 'code');
    return typeof c === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
};
export const key = (req: ProxyRequest): string => req.headers['x-api-key'] ?? req.headers['x-service-key'] ?? '';
export const otherKey = (req: ProxyRequest, ctx: ProxyContext): string => (key(req) === ctx.keys.main ? ctx.keys.other : ctx.keys.main);
export const now = (): string => new Date().toISOString();

export function fabricate(body: Json): Json {
  return {
    id: randomUUID(),
    orderReference: `ORD-${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
    vendorReference: body.vendorReference ?? null,
    status: 'PENDING',
    totalAmount: body.total,
    currency: body.currency,
    customerPhone: body.customerPhone,
    merchantName: 'Merchant',
    storeName: 'Store',
    items: (body.items as Json[]).map((it) => ({
      id: randomUUID(),
      name: it.name,
      reference: it.reference ?? null,
      quantity: it.quantity,
      unitPrice: it.unitPrice,
      categoryId: it.categoryId ?? null,
    })),
    createdAt: now(),
    updatedAt: null,
  };
}

export const GET = (req: ProxyRequest): boolean => req.method === 'GET';

/** The merchant's sandbox time (ms) as the server reads it, asked with `apiKey` (the main merchant's by default). */
export async function sandboxNow(ctx: ProxyContext, apiKey = ctx.keys.main): Promise<number> {
  const r = await ctx.forward({ method: 'GET', path: '/api/v1/sandbox/clock', headers: { 'x-api-key': apiKey }, body: '' });
  return Date.parse(String(json(r).now));
}

/** The key a B-operation request names, or the main merchant's (A2 carries a session token). */
export const merchantKey = (req: ProxyRequest, ctx: ProxyContext): string => key(req) || ctx.keys.main;
