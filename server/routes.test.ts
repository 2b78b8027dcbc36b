/**
 * The route table (server/routes.ts): every operation of both variants is found by its own
 * template, a literal segment wins over a parameter, HEAD is GET, parameters are
 * percent-decoded, a 405's `Allow` lists the methods of a path, and the table is built once.
 */
import { describe, expect, it } from 'vitest';
import { variants } from '../generated/index.ts';
import { matchRequest, operationTables, routeTable } from './routes.ts';

const V1 = '/api/v1/public/partner/transactions';

describe('routeTable', () => {
  it.each([1, 2] as const)('Variant %s: every operation matches its own template, parameters filled, and nothing else', (v) => {
    const table = routeTable(v);
    const ops = Object.values(operationTables[v]);
    expect(ops.length).toBe(Object.keys(variants[`v${v}`].operations).length);
    for (const e of ops) {
      const path = e.path.replace(/\{([^}]+)\}/g, (_, n: string) => `x-${n}`);
      const m = table.match(e.method, path);
      expect(m?.entry.operationId, `${e.method} ${path}`).toBe(e.operationId);
      expect(m?.params).toEqual(Object.fromEntries(e.pathParams.map((n) => [n, `x-${n}`])));
      expect(table.match(e.method, `${path}/extra`)?.entry.operationId).not.toBe(e.operationId);
    }
  });

  it('a literal segment wins over a parameter at the same place, whatever the document order', () => {
    const m = routeTable(1).match('GET', `${V1}/vendor/ORDER-1`);
    expect(m?.entry.operationId).toBe('getPartnerTransactionByVendorReference');
    expect(m?.params).toEqual({ vendorReference: 'ORDER-1' });
    expect(routeTable(1).match('GET', `${V1}/vendor`)?.entry.operationId).toBe('getPartnerTransaction');
  });

  it('HEAD is matched as GET; an empty parameter, a trailing slash or an unknown path matches nothing', () => {
    expect(routeTable(2).match('HEAD', '/healthz')?.entry.operationId).toBe('getHealth');
    expect(routeTable(1).match('GET', `${V1}/`)).toBeNull();
    expect(routeTable(1).match('GET', '/healthz/')).toBeNull();
    expect(routeTable(1).match('GET', '/nope')).toBeNull();
    expect(routeTable(1).match('PATCH', V1)).toBeNull();
  });

  it('percent-decodes parameters and names the first one whose escape is invalid', () => {
    const ok = routeTable(1).match('GET', `${V1}/vendor/A%2FB%20%C3%A9`);
    expect([ok?.params.vendorReference, ok?.malformed]).toEqual(['A/B é', null]);
    const bad = routeTable(1).match('GET', `${V1}/%E0%A4%A`);
    expect([bad?.entry.operationId, bad?.params.transactionId, bad?.malformed]).toEqual([
      'getPartnerTransaction',
      '%E0%A4%A',
      'transactionId',
    ]);
  });

  it('allowedAt lists the methods served at a path (HEAD with GET), sorted; serves narrows both calls', () => {
    expect(routeTable(1).allowedAt(V1)).toEqual(['POST']);
    expect(routeTable(1).allowedAt('/api/v1/sandbox/webhook-endpoint')).toEqual(['GET', 'HEAD', 'PUT']);
    expect(routeTable(1).allowedAt('/nope')).toEqual([]);
    const noSandbox = (e: { sandbox: boolean }) => !e.sandbox;
    expect(routeTable(1).allowedAt('/api/v1/sandbox/webhook-endpoint', noSandbox)).toEqual([]);
    expect(routeTable(1).match('GET', '/api/v1/sandbox/clock', noSandbox)).toBeNull();
  });

  it('is built once per variant and shared; a request keeps its match per variant', () => {
    expect(routeTable(1)).toBe(routeTable(1));
    expect(routeTable(1)).not.toBe(routeTable(2));
    const req = { method: 'GET' };
    const a = matchRequest(req, '/healthz', 1);
    expect(a?.entry.operationId).toBe('getHealth');
    expect(matchRequest(req, '/healthz', 1)).toBe(a);
    expect(matchRequest(req, '/healthz', 2)).not.toBe(a);
    expect(matchRequest(req, '/readyz', 1)?.entry.operationId).toBe('getReadiness');
    expect(matchRequest(req, '/healthz', 1, (e) => e.operationId !== 'getHealth')).toBeNull();
  });
});
