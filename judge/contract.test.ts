import { describe, expect, it } from 'vitest';
import { Contract } from './contract.ts';
import { arrayAt, objectAt } from '../lib/json.ts';

describe('Contract.queryParameters (what unknownQuery must not send as unknown)', () => {
  it('lists the query parameters of the operation and of its path item, $refs resolved', () => {
    // A fresh instance (not the shared Contract.for), with its own copy of the document, edited here.
    const c = new Contract(1);
    expect(c.queryParameters('getPartnerTransaction')).toEqual([]);
    const item = objectAt(c.doc, 'paths', '/api/v1/public/partner/transactions/{transactionId}');
    objectAt(c.doc, 'components', 'parameters').expandQuery = { name: 'expand', in: 'query', schema: { type: 'string' } };
    item.parameters = [{ name: 'trace', in: 'query', schema: { type: 'string' } }];
    const get = objectAt(item, 'get');
    get.parameters = [...(get.parameters === undefined ? [] : arrayAt(get, 'parameters')), { $ref: '#/components/parameters/expandQuery' }];
    expect(c.queryParameters('getPartnerTransaction').sort()).toEqual(['expand', 'trace']);
  });
});
