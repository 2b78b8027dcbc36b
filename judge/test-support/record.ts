/** A partner transaction record as B1/B2 answer it, and the B1 request that makes it, for the judge's rule tests. */
import { randomUUID } from 'node:crypto';

/** A PENDING record created at `createdAt` (ms), as the contract declares it, its members overridden by `over`. */
export function partnerRecord(createdAt: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    orderReference: 'ORD-0000000001',
    vendorReference: `ref-${randomUUID().slice(0, 8)}`,
    status: 'PENDING',
    totalAmount: 600,
    currency: 'MAD',
    customerPhone: '212612345678',
    merchantName: 'M',
    storeName: 'S',
    items: [{ id: '0d2c1f7e-7b1a-4c4e-9f51-3f2a1b0c9d8e', name: 'x', reference: null, quantity: 1, unitPrice: 600, categoryId: null }],
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: null,
    ...over,
  };
}

/** The B1 request that makes `rec`. */
export function createRequest(rec: Record<string, unknown>): Record<string, unknown> {
  return {
    customerPhone: rec.customerPhone,
    total: rec.totalAmount,
    currency: rec.currency,
    items: [{ name: 'x', quantity: 1, unitPrice: rec.totalAmount }],
    vendorReference: rec.vendorReference,
  };
}
