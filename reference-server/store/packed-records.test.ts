/** Packed records: what is read back is what JSON would have kept, member order included, and it takes less room. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DICTIONARY_LIMIT, PackedMap, SHAPE_NODE_LIMIT, packRecord, packedTime, shapeStats, unpackRecord } from './packed-records.ts';

/** ISO timestamps as `toISOString()` prints them, and near misses that must stay strings. */
const timestamp = fc
  .date({ min: new Date(-62_000_000_000_000), max: new Date(250_000_000_000_000), noInvalidDate: true })
  .map((d) => d.toISOString());
const nearMiss = fc.constantFrom(
  '2026-11-23T10:00:00Z',
  '2026-11-23T10:00:00.000+00:00',
  '2026-02-30T10:00:00.000Z',
  '2026-11-23t10:00:00.000Z',
  '+002026-11-23T10:00:00.000Z',
);
const leaf = fc.oneof(fc.jsonValue({ maxDepth: 0 }), timestamp, nearMiss);
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 }), tie('o')),
  o: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('id', '__proto__', 'createdAt')), tie('v'), { maxKeys: 6 }),
})).o;

/**
 * Dictionary fields with values from a small set, as the store's are (random values would fill the
 * dictionary, shared by the whole process, and leave none of its room for the later tests).
 */
const dictionaryFields = fc.record(
  {
    merchantId: fc.constantFrom('mer_a', 'mer_b', '2026-11-23T10:00:00.000Z'),
    status: fc.oneof(fc.constantFrom('PENDING', 'APPROVED'), fc.integer()),
  },
  { requiredKeys: [] },
);

describe('packed records', () => {
  it('unpack(pack(r)) is r as JSON keeps it: the same members in the same order, timestamps and ids included', () => {
    fc.assert(
      fc.property(fc.string(), value, fc.boolean(), dictionaryFields, (key, record, idIsKey, small) => {
        const r = { ...small, ...(idIsKey ? { ...record, id: key } : record) };
        const back = unpackRecord<object>(key, packRecord(key, r));
        expect(JSON.stringify(back)).toBe(JSON.stringify(r));
        expect(back).toEqual(JSON.parse(JSON.stringify(r)));
      }),
      { numRuns: 2000 },
    );
  });

  it('packs a 24-character date as a number exactly when toISOString prints it back (leap days, hour 24, second 60, year 0000 included)', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    const nearDate = fc
      .tuple(
        fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 99, 100, 1900, 2000, 2024, 2026, 2100, 9999)),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
      )
      .map(
        ([y, mo, d, h, mi, sec, ms]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(sec, 2)}.${pad(ms, 3)}Z`,
      );
    fc.assert(
      fc.property(nearDate, (s) => {
        const ms = Date.parse(s);
        const printsBack = Number.isFinite(ms) && new Date(ms).toISOString() === s;
        const packed = packRecord('k', { t: s });
        expect(packed.includes(s)).toBe(!printsBack);
        expect(unpackRecord<{ t: string }>('k', packed).t).toBe(s);
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps what JSON keeps of dates and undefined members, and a __proto__ member as an own member', () => {
    const r = { at: new Date(Date.UTC(2026, 10, 23, 9, 30)), gone: undefined, list: [undefined, 1] };
    Object.defineProperty(r, '__proto__', { value: { x: 1 }, enumerable: true });
    const back = unpackRecord<Record<string, unknown>>('k', packRecord('k', r));
    expect(JSON.stringify(back)).toBe(JSON.stringify(r));
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
  });

  it('takes well under half the JSON text of a partner transaction (names once per shape, timestamps as ms, the id left out)', () => {
    const id = '5f0e7c1a-8d3b-4c2e-9a71-0b6d4e2f8c13';
    const t = {
      id,
      kind: 'partner',
      merchantId: 'mer_0bf6049fecb1f6a4f53b9006',
      orderReference: 'ORD-000000004T',
      vendorReference: 'SHOP-2026-000173',
      status: 'PENDING',
      totalCentimes: 129950,
      currency: 'MAD',
      customerPhone: '212612345678',
      items: [{ id: 'a1', name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPriceCentimes: 129950, categoryId: 42 }],
      createdAt: '2026-11-23T09:30:00.000Z',
      updatedAt: null,
      expiresAt: '2026-11-23T10:00:00.000Z',
      approvedAt: null,
      expiredAt: null,
      sessionId: null,
      paymentIntentId: null,
    };
    const packed = packRecord(id, t);
    expect(packed).not.toContain(id);
    expect(packed).not.toContain('2026-11-23');
    expect(packed).not.toContain('merchantId');
    // The merchant id and the enums are dictionary indexes; the merchant's own strings stay.
    for (const v of [t.merchantId, t.kind, t.status, t.currency]) expect(packed).not.toContain(v);
    for (const v of [t.vendorReference, t.orderReference, t.customerPhone, 'Wireless headphones']) expect(packed).toContain(v);
    expect(packed.length).toBeLessThan(JSON.stringify(t).length / 3);
    expect(unpackRecord(id, packed)).toEqual(t);
  });

  it('keeps dictionary fields exactly past the limit of the dictionary (new values then kept as they are), and reads a time kept in one', () => {
    // A packed time read from a dictionary field (`state` holding a date) is the date's, not its index.
    const at = '2026-11-23T10:00:00Z'; // not toISOString's form: kept as a string, in the dictionary, which has room yet
    expect(packedTime(packRecord('k', { state: at }), 'state')).toBe(Date.parse(at));
    expect(packedTime(packRecord('k', { status: 'PENDING' }), 'status')).toBeNaN();
    const values = Array.from({ length: DICTIONARY_LIMIT + 50 }, (_, i) => `mer_${i.toString(36)}`);
    const packed = values.map((merchantId, i) => packRecord('k', { merchantId, status: i % 2 ? 'PENDING' : 'APPROVED' }));
    values.forEach((merchantId, i) =>
      expect(unpackRecord('k', packed[i]!)).toEqual({ merchantId, status: i % 2 ? 'PENDING' : 'APPROVED' }),
    );
    // Past the limit the dictionary holds no more: the last values are in the text itself.
    expect(packed.at(-1)).toContain(values.at(-1));
    expect(packed[0]).not.toContain(values[0]);
  });

  it('a PackedMap answers as a Map of JSON copies does, and hands out copies: changing one changes nothing stored', () => {
    const m = new PackedMap<{ id: string; n: number; tags: string[] }>();
    const ref = new Map<string, { id: string; n: number; tags: string[] }>();
    for (let i = 0; i < 3000; i++) {
      const k = `k-${(i * 7919) % 1001}`;
      if (i % 4 === 3) expect(m.delete(k)).toBe(ref.delete(k));
      else {
        const v = { id: k, n: i, tags: [String(i % 7)] };
        m.set(k, v);
        ref.set(k, structuredClone(v));
      }
      expect(m.size).toBe(ref.size);
    }
    expect(new Map(m)).toEqual(ref);
    expect(new Map([...m.keys()].map((k) => [k, m.get(k)]))).toEqual(ref);
    const k = [...m.keys()][0]!;
    const one = m.get(k)!;
    one.n = -1;
    one.tags.push('changed');
    expect(m.get(k)).toEqual(ref.get(k));
  });
  // Last: it uses up the shape nodes of this file's process.
  it('keeps at most SHAPE_NODE_LIMIT shape nodes: past it, an object of a new shape is packed exactly with its names inline, and known shapes stay packed', () => {
    packRecord('k', { a: 1, createdAt: '2026-11-23T10:00:00.000Z' }); // a shape made before the limit
    for (let i = 0; shapeStats.nodes < SHAPE_NODE_LIMIT; i++) packRecord('k', { [`field-${i}`]: i });
    const r = {
      id: 'k',
      'new-field': { createdAt: '2026-11-23T10:00:00.000Z', list: [1, { x: null }] },
      expiresAt: '2026-11-23T10:30:00.000Z',
      status: 'PENDING',
    };
    Object.defineProperty(r, '__proto__', { value: { y: 2 }, enumerable: true });
    const packed = packRecord('k', r);
    expect(shapeStats.nodes).toBe(SHAPE_NODE_LIMIT);
    expect(packed).toContain('new-field');
    const back = unpackRecord<object>('k', packed);
    expect(JSON.stringify(back)).toBe(JSON.stringify(r));
    expect(Object.hasOwn(back, '__proto__')).toBe(true);
    expect(packedTime(packed, 'expiresAt')).toBe(Date.parse(r.expiresAt));
    expect(packedTime(packed, 'status')).toBeNaN();
    // A shape made before the limit is still used: its names stay out of the text.
    expect(packRecord('k', { a: 2, createdAt: '2026-11-23T11:00:00.000Z' })).not.toContain('createdAt');
    expect(shapeStats.nodes).toBe(SHAPE_NODE_LIMIT);
  });
});
