/**
 * The fast-check model: what the model knows (`state`, plain data that outlives a run) and this
 * run's transactions and sessions. Commands' preconditions read it alone; the Real side is the
 * World (the HTTP client, the webhook receiver and the verdicts).
 */
import type { AsyncCommand } from 'fast-check';
import { IMMUTABLE_FIELDS, INITIAL } from '../model/index.ts';
import type { Exchange } from './http.ts';
import { centimesOf } from '../lib/money.ts';
import type { ModelState, Session, Tx, Who } from './model-state.ts';
import type { World } from './world.ts';

export interface Model {
  state: ModelState;
  txs: Tx[];
  sessions: Session[];
}
export type Real = World;
export type Cmd = AsyncCommand<Model, Real, false>;

type Json = Record<string, unknown>;

/** An answer the model allows: a status and, for a refusal, its code (any code when absent). */
export interface Outcome {
  status: number;
  code?: string;
}

/** The refusal with `code`, at the one status the error catalogue gives that code (the model's). */
export { refusal } from '../model/index.ts';

export function pick<T>(list: T[], idx: number): T | undefined {
  if (!list.length) return undefined;
  return idx < 0 ? list[Math.max(0, list.length + idx)] : list[idx % list.length];
}

export function errorOf(ex: Exchange): Json | undefined {
  return (ex.json as { error?: Json } | undefined)?.error;
}

/** The fields of a partner transaction that never change once created (the model's `IMMUTABLE_FIELDS`). */
export const RECORD_FIELDS = IMMUTABLE_FIELDS;

/**
 * The created record agrees with the request.
 * @checks b1-created-record
 */
export function checkCreated(w: World, ex: Exchange, body: Json, who: Who = 'main'): void {
  const rec = ex.json as Json;
  const op = ex.opId;
  w.checkNames(who, op, '$', rec);
  if (who === 'main') w.checkInstant(ex, '$.createdAt', rec.createdAt, 'the instant of the creation');
  w.check(rec.status === INITIAL, op, '$.status', `created with status ${String(rec.status)}`, INITIAL, rec.status);
  w.check(rec.updatedAt === null, op, '$.updatedAt', `updatedAt is ${JSON.stringify(rec.updatedAt)} at creation`, null, rec.updatedAt);
  w.check(
    centimesOf(rec.totalAmount) === centimesOf(body.total),
    op,
    '$.totalAmount',
    `totalAmount ${String(rec.totalAmount)} for total ${String(body.total)}`,
    body.total,
    rec.totalAmount,
  );
  w.check(
    rec.customerPhone === body.customerPhone,
    op,
    '$.customerPhone',
    'customerPhone differs from the request',
    body.customerPhone,
    rec.customerPhone,
  );
  w.check(rec.currency === body.currency, op, '$.currency', 'currency differs from the request', body.currency, rec.currency);
  w.check(
    rec.vendorReference === (body.vendorReference ?? null),
    op,
    '$.vendorReference',
    'vendorReference differs from the request',
    body.vendorReference ?? null,
    rec.vendorReference,
  );
  const items = rec.items as Json[];
  const inItems = body.items as Json[];
  w.check(items.length === inItems.length, op, '$.items', `${items.length} items for ${inItems.length} sent`);
  inItems.forEach((it, i) => {
    const o = items[i]!;
    for (const [f, v] of [
      ['name', it.name],
      ['quantity', it.quantity],
      ['reference', it.reference ?? null],
      ['categoryId', it.categoryId ?? null],
    ] as const) {
      w.check(o[f] === v, op, `$.items[${i}].${f}`, `${f} ${JSON.stringify(o[f])}, sent ${JSON.stringify(v)}`, v, o[f]);
    }
    w.check(
      centimesOf(o.unitPrice) === centimesOf(it.unitPrice),
      op,
      `$.items[${i}].unitPrice`,
      'unitPrice differs from the request',
      it.unitPrice,
      o.unitPrice,
    );
  });
}
