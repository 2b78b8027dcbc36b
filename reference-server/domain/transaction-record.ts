/** The one builder of a new transaction record, for both kinds (partner B1, checkout payment). */
import { iso } from './clock.ts';
import { orderReference, uuid } from './ids.ts';
import { attempt } from './stateMachine.ts';
import type { ItemRecord, TransactionKind, TransactionRecord } from './types.ts';
import { centimesOf } from '../../lib/money.ts';

/** An item line as a B1 request carries it (amounts in decimal MAD, validated by the contract). */
export interface RequestItem {
  name: string;
  reference?: string;
  quantity: number;
  unitPrice: number;
  categoryId?: number;
}

/** A request's item lines as a record holds them: amounts in centimes, absent fields null. */
export function itemLines(items: readonly RequestItem[]): Array<Omit<ItemRecord, 'id'>> {
  return items.map((i) => ({
    name: i.name,
    reference: i.reference ?? null,
    quantity: i.quantity,
    unitPriceCentimes: centimesOf(i.unitPrice)!,
    categoryId: i.categoryId ?? null,
  }));
}

export interface NewTransaction {
  kind: TransactionKind;
  /** The operation that creates it: its creation transition in `x-state-machine` gives the first status. */
  createdBy: string;
  merchantId: string;
  vendorReference: string | null;
  totalCentimes: number;
  currency: 'MAD';
  customerPhone: string;
  /** The lines; each gets its own id. */
  items: ReadonlyArray<Omit<ItemRecord, 'id'>>;
  sessionId: string | null;
  paymentIntentId: string | null;
  /** The merchant's now, epoch ms. */
  nowMs: number;
  /** The payment window in force (ADR-010). */
  paymentWindowSeconds: number;
}

/**
 * Seed rules (transaction life cycle; ADR-011 order references): a new transaction starts in
 * the status of its creation transition, gets an `ORD-` order reference, and must be
 * confirmed or paid before `createdAt + payment window`, when it expires.
 * @rule b1-created-record
 */
export function newTransaction(t: NewTransaction): TransactionRecord {
  const created = attempt(t.createdBy, null, { now: t.nowMs });
  if (!created.ok) throw new Error(`state machine: ${t.createdBy} creates no transaction`);
  return {
    id: uuid(),
    kind: t.kind,
    merchantId: t.merchantId,
    orderReference: orderReference(),
    vendorReference: t.vendorReference,
    status: created.to,
    totalCentimes: t.totalCentimes,
    currency: t.currency,
    customerPhone: t.customerPhone,
    items: t.items.map((i) => ({ id: uuid(), ...i })),
    createdAt: iso(t.nowMs),
    updatedAt: null,
    expiresAt: iso(t.nowMs + t.paymentWindowSeconds * 1000),
    approvedAt: null,
    expiredAt: null,
    sessionId: t.sessionId,
    paymentIntentId: t.paymentIntentId,
  };
}
