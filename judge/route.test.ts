/**
 * The judge's routes: a path asked again is the same frozen route (remembered per variant), each
 * path its own parameters, and past the memo's bound every path is still routed as the table routes it.
 */
import { expect, it } from 'vitest';
import { routeTable } from '../server/routes.ts';
import { routeOf } from './route.ts';

const B2 = (id: string) => `/api/v1/public/partner/transactions/${id}`;

it('a path asked again is the same route, read-only; another path has its own parameters', () => {
  const a = routeOf(1, 'GET', B2('tx-1'))!;
  expect(a).toEqual({ opId: 'getPartnerTransaction', params: { transactionId: 'tx-1' } });
  expect(routeOf(1, 'GET', B2('tx-1'))).toBe(a);
  expect(Object.isFrozen(a) && Object.isFrozen(a.params)).toBe(true);
  expect(routeOf(1, 'GET', B2('tx-2'))!.params).toEqual({ transactionId: 'tx-2' });
  // percent-decoded, as the table decodes it
  expect(routeOf(1, 'GET', B2('tx%2D3'))!.params).toEqual({ transactionId: 'tx-3' });
  // another variant: its own table's route, remembered apart
  const m2 = routeTable(2).match('GET', B2('tx-1'));
  expect(routeOf(2, 'GET', B2('tx-1'))).toEqual(m2 && { opId: m2.entry.operationId, params: m2.params });
  expect(routeOf(2, 'GET', B2('tx-1'))).not.toBe(a);
  // another method, HEAD, no operation: none
  expect(routeOf(1, 'DELETE', B2('tx-1'))).toBeUndefined();
  expect(routeOf(1, 'HEAD', B2('tx-1'))).toBeUndefined();
  expect(routeOf(1, 'GET', '/nowhere')).toBeUndefined();
});

it('past the bound of remembered paths, every path is routed as the route table routes it', () => {
  for (let i = 0; i < 2500; i++) {
    const path = i % 2 ? B2(`tx-${i}`) : `/api/v1/sandbox/transactions/tx-${i}/confirm`;
    const m = routeTable(1).match('POST', path) ?? routeTable(1).match('GET', path);
    const r = routeOf(1, i % 2 ? 'GET' : 'POST', path);
    expect(r).toEqual({ opId: m!.entry.operationId, params: m!.params });
  }
});

it('a path longer than the memo keeps is routed each time, as the table routes it, and not remembered', () => {
  const long = B2('x'.repeat(600));
  const m = routeTable(1).match('GET', long)!;
  const a = routeOf(1, 'GET', long);
  expect(a).toEqual({ opId: m.entry.operationId, params: m.params });
  expect(routeOf(1, 'GET', long)).not.toBe(a);
});
