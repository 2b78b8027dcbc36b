/** The OpenAPI `links` of both variants hold, and the check fails on a link that names a missing operation, parameter or property. */
import { describe, expect, it } from 'vitest';
import { bundleApi, listApis } from './spec.ts';
import { checkLinks } from './links.ts';
import { objectAt, valueAt } from '../../lib/json.ts';

describe('OpenAPI links', () => {
  it('chain B1 to B2, B3, B4 and the sandbox actions, and A1 to A2, in both variants', async () => {
    for (const api of await listApis()) {
      const doc = await bundleApi(api);
      expect(checkLinks(api.variant, doc)).toEqual([]);
      const b1 = objectAt(doc, 'paths', '/api/v1/public/partner/transactions', 'post', 'responses', '201', 'links');
      expect(
        Object.keys(b1)
          .map((name) => valueAt(b1, name, 'operationId'))
          .sort(),
      ).toEqual([
        'cancelPartnerTransactionByVendorReference',
        'getPartnerTransaction',
        'getPartnerTransactionByVendorReference',
        'sandboxCancelTransaction',
        'sandboxCompleteTransaction',
        'sandboxConfirmTransaction',
      ]);
      const a1 = objectAt(doc, 'paths', '/api/v1/public/sessions', 'post', 'responses', '200', 'links');
      expect(valueAt(a1, 'GetTransactionStatus', 'operationId')).toBe('getTransactionStatusBySessionToken');
    }
  });

  it('fails on a missing operation, an undeclared parameter or a property the response lacks', async () => {
    const api = (await listApis()).find((a) => a.variant === 1)!;
    const doc = await bundleApi(api);
    const links = objectAt(doc, 'paths', '/api/v1/public/partner/transactions', 'post', 'responses', '201', 'links');
    objectAt(links, 'GetPartnerTransaction').operationId = 'getTransaction';
    objectAt(links, 'GetPartnerTransactionByVendorReference').parameters = { vendor_reference: '$response.body#/vendorReference' };
    objectAt(links, 'SandboxConfirmTransaction', 'parameters').transactionId = '$response.body#/transactionId';
    expect(checkLinks(1, doc)).toEqual([
      'Variant 1 createPartnerTransaction 201 link GetPartnerTransaction: operation getTransaction does not exist',
      'Variant 1 createPartnerTransaction 201 link GetPartnerTransactionByVendorReference: getPartnerTransactionByVendorReference has no parameter vendor_reference',
      'Variant 1 createPartnerTransaction 201 link SandboxConfirmTransaction: $response.body#/transactionId names no property of the 201 response',
    ]);
  });
});
