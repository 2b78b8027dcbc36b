/** A Variant 1 partner transaction as a handler answers it: the fixture of the server's tests. */
import type { components } from '../../generated/v1/schema.d.ts';

export type Tx = components['schemas']['PartnerTransaction'];

export const TX: Tx = {
  id: '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10',
  status: 'PENDING',
  totalAmount: 600,
  currency: 'MAD',
  customerPhone: '212612345678',
  items: [{ id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', name: 'Item', quantity: 1, unitPrice: 600, categoryId: null, reference: null }],
  merchantName: 'Shop',
  storeName: 'Main',
  orderReference: 'ORD-000000000A',
  vendorReference: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: null,
};
