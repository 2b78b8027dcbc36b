/** A partner transaction record as B1/B2 answer it, for the state tests that feed observations directly. */
import { randomUUID } from 'node:crypto';

/** A PENDING record created at `createdAt` (ms), its members overridden by `over`. */
export function partnerRecord(createdAt: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    orderReference: 'ORD-1',
    vendorReference: `ref-${randomUUID().slice(0, 8)}`,
    status: 'PENDING',
    totalAmount: 600,
    currency: 'MAD',
    customerPhone: '212612345678',
    merchantName: 'M',
    storeName: 'S',
    items: [{ name: 'x', quantity: 1, unitPrice: 600 }],
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: null,
    ...over,
  };
}
