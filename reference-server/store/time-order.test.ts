/** The creation order of a merchant's transactions: always what sorting them would give, pages included. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TimeOrder } from './time-order.ts';

type Op =
  | { kind: 'add'; ms: number; id: string }
  | { kind: 'append'; ms: number; id: string }
  | { kind: 'remove'; pick: number }
  | { kind: 'page'; limit: number; pick: number | null };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), ms: fc.integer({ min: 0, max: 20 }), id: fc.string({ maxLength: 3 }) }),
  fc.record({ kind: fc.constant('append' as const), ms: fc.integer({ min: 0, max: 20 }), id: fc.string({ maxLength: 3 }) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('page' as const), limit: fc.integer({ min: 1, max: 6 }), pick: fc.option(fc.nat(), { nil: null }) }),
);

describe('TimeOrder', () => {
  it('pages newest first exactly as a sort by (createdAt, id) descending would, through adds, bulk appends and removals', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const order = new TimeOrder();
        const model = new Map<string, number>(); // id → ms
        const sorted = () => [...model].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0)).map(([id]) => id);
        for (const o of ops) {
          if (o.kind === 'add' || o.kind === 'append') {
            if (model.has(o.id)) continue; // an id is added once (a create)
            model.set(o.id, o.ms);
            if (o.kind === 'add') order.add(o.ms, o.id);
            else order.append(o.ms, o.id);
          } else if (o.kind === 'remove') {
            const ids = [...model.keys()];
            if (ids.length === 0) continue;
            const id = ids[o.pick % ids.length]!;
            model.delete(id);
            order.remove(id);
          } else {
            const all = sorted();
            const after = o.pick === null || all.length === 0 ? null : all[o.pick % all.length]!;
            const start = after === null ? 0 : all.indexOf(after) + 1;
            const page = order.newestFirst(o.limit, after === null ? null : { ms: model.get(after)!, id: after });
            expect(page.ids).toEqual(all.slice(start, start + o.limit));
            expect(page.more).toBe(start + o.limit < all.length);
          }
          expect(order.size).toBe(model.size);
        }
        expect(order.newestFirst(1000, null).ids).toEqual(sorted());
        expect([...order.all()].sort()).toEqual([...model.keys()].sort());
      }),
      { numRuns: 1000 },
    );
  });

  it('starts from the newest when the cursor is not held', () => {
    const order = new TimeOrder();
    for (let i = 0; i < 5; i++) order.add(i, `t${i}`);
    expect(order.newestFirst(2, { ms: 9, id: 'gone' })).toEqual({ ids: ['t4', 't3'], more: true });
    expect(order.newestFirst(2, { ms: 3, id: 't3' })).toEqual({ ids: ['t2', 't1'], more: true });
    expect(order.newestFirst(2, { ms: 1, id: 't1' })).toEqual({ ids: ['t0'], more: false });
  });
});
