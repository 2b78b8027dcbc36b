/** Request generators: valid bodies from the schemas' limits, and single faults at the seed's boundaries. */
import fc from 'fast-check';
import { amountRange, loadBundledDocument } from '../generated/index.ts';
import { centimesFromNumber, centimesOf, centimesToNumber, formatCentimes, sumLines } from '../lib/money.ts';

type Json = Record<string, unknown>;

/** `c` centimes as a decimal string: two decimals, or none for whole dirhams unless `withDecimals`. */
function decimalString(c: number, withDecimals: boolean): string {
  const s = formatCentimes(c);
  return withDecimals ? s : s.replace(/\.00$/, '');
}

/** The seed's limits: the amount range of A1 and B1 (`amountRange`, `x-amount-range`), B1's item name length, the phone pattern. */
function limitsFromSpec(): { minCentimes: number; maxCentimes: number; nameMax: number; phone: RegExp } {
  const schemas = (loadBundledDocument(1).components as Json).schemas as Record<string, Json>;
  const named = (schemas.PartnerTransactionItemInput!.properties as Record<string, Json>).name!;
  const name = typeof named.$ref === 'string' ? schemas[named.$ref.split('/').pop()!]! : named;
  const phone = schemas.CustomerPhone!.pattern;
  if (typeof name.maxLength !== 'number' || typeof phone !== 'string')
    throw new Error('bundled document: PartnerTransactionItemInput.name needs maxLength and CustomerPhone a pattern');
  return {
    minCentimes: centimesFromNumber(amountRange.minimum)!,
    maxCentimes: centimesFromNumber(amountRange.maximum)!,
    nameMax: name.maxLength,
    phone: new RegExp(phone, 'u'),
  };
}
const LIMITS = limitsFromSpec();
const mad = (c: number): string => decimalString(c, false);

const phone = fc
  .tuple(fc.constantFrom('212', '33', '1', '44', '971'), fc.integer({ min: 6, max: 11 }), fc.nat())
  .map(([cc, n, x]) => (cc + String(x).padStart(n, '7')).slice(0, 15))
  .filter((p) => LIMITS.phone.test(p));

const name = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0) },
  { weight: 1, arbitrary: fc.constant('N'.repeat(LIMITS.nameMax)) },
);

/** A target total in centimes, boundaries weighted in. */
const total = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: LIMITS.minCentimes, max: LIMITS.maxCentimes }) },
  { weight: 1, arbitrary: fc.constantFrom(LIMITS.minCentimes, LIMITS.maxCentimes) },
);

interface Line {
  name: string;
  quantity: number;
  price: number;
  reference?: string;
  categoryId?: number;
}

/** Extra item lines (built once: building arbitraries such as stringMatching per value is costly). */
const extraLines = fc.array(
  fc.record({
    name,
    quantity: fc.integer({ min: 1, max: 3 }),
    cents: fc.integer({ min: 1, max: 10000 }),
    reference: fc.option(fc.stringMatching(/^[A-Z0-9-]{1,20}$/), { nil: undefined }),
    categoryId: fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }),
  }),
  { maxLength: 2 },
);

type ExtraLine = typeof extraLines extends fc.Arbitrary<(infer T)[]> ? T : never;

/** Items whose Σ price × quantity is exactly `t` centimes: extra lines, then one line for the rest. */
function lines(t: number, extra: ExtraLine[], lastName: string): Line[] {
  const used = extra.reduce((s, l) => s + l.cents * l.quantity, 0);
  const kept = t - used < 1 ? [] : extra;
  const last = t - kept.reduce((s, l) => s + l.cents * l.quantity, 0);
  return [
    ...kept.map((l) => ({ name: l.name, quantity: l.quantity, price: l.cents, reference: l.reference, categoryId: l.categoryId })),
    { name: lastName, quantity: 1, price: last },
  ];
}

export function validPartnerBody(): fc.Arbitrary<Json> {
  return fc.tuple(phone, total, extraLines, name).map(([p, t, extra, n]) => ({
    customerPhone: p,
    total: centimesToNumber(t),
    currency: 'MAD',
    items: lines(t, extra, n).map((l) => {
      const it: Json = { name: l.name, quantity: l.quantity, unitPrice: centimesToNumber(l.price) };
      if (l.reference !== undefined) it.reference = l.reference;
      if (l.categoryId !== undefined) it.categoryId = l.categoryId;
      return it;
    }),
  }));
}

export function validSessionBody(variant: 1 | 2): fc.Arbitrary<Json> {
  return fc.tuple(total, fc.boolean(), extraLines, name).map(([t, dec, extra, n]) => ({
    total: variant === 1 ? centimesToNumber(t) : decimalString(t, dec),
    currency: 'MAD',
    items: lines(t, extra, n).map((l, i) => ({ id: `SKU-${i}`, name: l.name, price: centimesToNumber(l.price), quantity: l.quantity })),
  }));
}

type Fault = (b: Json) => Json;
const clone = (b: Json): Json => structuredClone(b);

/** Sets the total to `c` centimes and keeps the items consistent with it. */
function withTotal(c: number, priceKey: string, stringTotal: boolean): Fault {
  return (b) => {
    const o = clone(b);
    o.total = stringTotal ? decimalString(c, true) : centimesToNumber(c);
    const items = o.items as Json[];
    const first = { ...items[0]!, quantity: 1 } as Json;
    first[priceKey] = centimesToNumber(c);
    o.items = [first];
    return o;
  };
}

function onItem(f: (it: Json) => void): Fault {
  return (b) => {
    const o = clone(b);
    f((o.items as Json[])[0]!);
    return o;
  };
}

/** One fault at the seed's boundaries; the expected answer is derived from the schema, not from the fault. */
export function fault(kind: 'partner' | 'session', variant: 1 | 2): fc.Arbitrary<{ label: string; apply: Fault }> {
  const price = kind === 'partner' ? 'unitPrice' : 'price';
  const str = kind === 'session' && variant === 2;
  const faults: [string, Fault][] = [
    [`total ${mad(LIMITS.minCentimes - 1)}`, withTotal(LIMITS.minCentimes - 1, price, str)],
    [`total ${mad(LIMITS.minCentimes)}`, withTotal(LIMITS.minCentimes, price, str)],
    [`total ${mad(LIMITS.maxCentimes)}`, withTotal(LIMITS.maxCentimes, price, str)],
    [`total ${mad(LIMITS.maxCentimes + 1)}`, withTotal(LIMITS.maxCentimes + 1, price, str)],
    [`name ${LIMITS.nameMax + 1} chars`, onItem((it) => (it.name = 'N'.repeat(LIMITS.nameMax + 1)))],
    [`name ${LIMITS.nameMax} chars`, onItem((it) => (it.name = 'N'.repeat(LIMITS.nameMax)))],
    ['quantity 0', onItem((it) => (it.quantity = 0))],
    ['quantity 1.5', onItem((it) => (it.quantity = 1.5))],
    [`${price} 0`, onItem((it) => (it[price] = 0))],
    [
      `${price} 0.01`,
      (b) => {
        const o = onItem((it) => ((it[price] = 0.01), (it.quantity = 1)))(b);
        const items = o.items as Json[];
        const c = sumLines(items.map((it) => ({ price: it[price], quantity: it.quantity })))!;
        o.total = str ? decimalString(c, true) : centimesToNumber(c);
        return o;
      },
    ],
    [`${price} 3 decimals`, onItem((it) => (it[price] = 10.005))],
    ['currency EUR', (b) => ({ ...clone(b), currency: 'EUR' })],
    ['currency mad', (b) => ({ ...clone(b), currency: 'mad' })],
    ['items empty', (b) => ({ ...clone(b), items: [] })],
    [
      'items missing',
      (b) => {
        const o = clone(b);
        delete o.items;
        return o;
      },
    ],
    [
      'total missing',
      (b) => {
        const o = clone(b);
        delete o.total;
        return o;
      },
    ],
    [
      'currency missing',
      (b) => {
        const o = clone(b);
        delete o.currency;
        return o;
      },
    ],
    [
      'total ≠ Σ items + 0.01',
      (b) => {
        const o = clone(b);
        const c = centimesOf(o.total)! + 1;
        o.total = str ? decimalString(c, true) : centimesToNumber(c);
        return o;
      },
    ],
    ['total as wrong type', (b) => ({ ...clone(b), total: str ? Number(b.total) : String(b.total) })],
    ['unknown field', (b) => ({ ...clone(b), status: 'APPROVED' })],
  ];
  if (kind === 'partner') {
    faults.push(
      ['phone with +', (b) => ({ ...clone(b), customerPhone: `+${b.customerPhone as string}` })],
      ['phone with letters', (b) => ({ ...clone(b), customerPhone: '2126ABC45678' })],
      [
        'phone missing',
        (b) => {
          const o = clone(b);
          delete o.customerPhone;
          return o;
        },
      ],
      ['reference 101 chars', onItem((it) => (it.reference = 'R'.repeat(101)))],
      ['reference 100 chars', onItem((it) => (it.reference = 'R'.repeat(100)))],
      ['vendorReference starting with -', (b) => ({ ...clone(b), vendorReference: '-bad' })],
      ['vendorReference with a space', (b) => ({ ...clone(b), vendorReference: 'bad ref' })],
      ['categoryId -1', onItem((it) => (it.categoryId = -1))],
    );
  } else {
    faults.push(
      ['item id missing', onItem((it) => delete it.id)],
      ['101 items', (b) => ({ ...clone(b), items: Array.from({ length: 101 }, () => (b.items as Json[])[0]) })],
    );
  }
  // The business rules (amount range, Σ items) weigh more: they are where implementations differ.
  const heavy = new Set([`total ${mad(LIMITS.minCentimes - 1)}`, `total ${mad(LIMITS.maxCentimes + 1)}`, 'total ≠ Σ items + 0.01']);
  return fc
    .oneof(...faults.map((f) => ({ weight: heavy.has(f[0]) ? 4 : 1, arbitrary: fc.constant(f) })))
    .map(([label, apply]) => ({ label, apply }));
}

/** A body: valid, or valid with one fault applied. */
export function partnerBody(): fc.Arbitrary<{ body: Json; label: string }> {
  return fc.oneof(
    { weight: 3, arbitrary: validPartnerBody().map((body) => ({ body, label: 'valid' })) },
    { weight: 2, arbitrary: fc.tuple(validPartnerBody(), fault('partner', 1)).map(([b, f]) => ({ body: f.apply(b), label: f.label })) },
  );
}

export function sessionBody(variant: 1 | 2): fc.Arbitrary<{ body: Json; label: string }> {
  return fc.oneof(
    { weight: 3, arbitrary: validSessionBody(variant).map((body) => ({ body, label: 'valid' })) },
    {
      weight: 2,
      arbitrary: fc.tuple(validSessionBody(variant), fault('session', variant)).map(([b, f]) => ({ body: f.apply(b), label: f.label })),
    },
  );
}
