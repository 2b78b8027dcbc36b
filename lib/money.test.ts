import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  centimesFromDecimalString,
  centimesFromNumber,
  centimesOf,
  centimesToNumber,
  formatCentimes,
  formatMad,
  isMad,
  plansFor,
  splitInstalments,
  sumLines,
  toCentimes,
} from './money.ts';

/** Every amount the API can carry: up to 15,000 MAD and well beyond, in whole centimes. */
const anyCentimes = fc.integer({ min: -10_000_000_00, max: 10_000_000_00 });

describe('reading amounts (centimesFromNumber, centimesFromDecimalString, centimesOf)', () => {
  it('reads numbers through their decimal string, never by float multiplication', () => {
    expect(centimesFromNumber(1299.5)).toBe(129950);
    expect(centimesFromNumber(0.29)).toBe(29); // 0.29 * 100 = 28.999999999999996
    expect(centimesFromNumber(1.005)).toBeNull();
    expect(centimesFromNumber(1e21)).toBeNull();
    expect(centimesFromNumber(Number.NaN)).toBeNull();
    expect(centimesFromDecimalString('1299.50')).toBe(129950);
    expect(centimesFromDecimalString('01.5')).toBeNull();
    expect(formatCentimes(129950)).toBe('1299.50');
    expect(sumLines([{ price: 500.1, quantity: 3 }])).toBe(150030);
  });
  it('round-trips every two-decimal amount (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000_00 }), (c) => {
        expect(centimesFromNumber(c / 100)).toBe(c);
        expect(centimesFromDecimalString(formatCentimes(c))).toBe(c);
      }),
    );
  });
  it('parse ∘ format is the identity on signed amounts, as string and as JSON number (property)', () => {
    fc.assert(
      fc.property(anyCentimes, (c) => {
        expect(centimesOf(formatCentimes(c))).toBe(c);
        expect(centimesOf(centimesToNumber(c))).toBe(c);
        expect(isMad(centimesToNumber(c))).toBe(true);
      }),
    );
  });
  it('never reads a float sum as a wrong amount: exact or refused (property)', () => {
    expect(centimesFromNumber(0.1 + 0.2)).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500_000 }), fc.integer({ min: 0, max: 1_500_000 }), (a, b) => {
        const read = centimesFromNumber(centimesToNumber(a) + centimesToNumber(b));
        expect(read === null || read === a + b).toBe(true);
      }),
    );
  });
  it('refuses what is not an amount', () => {
    for (const bad of [Infinity, -Infinity, 1e-7, 10.005]) expect(centimesFromNumber(bad), String(bad)).toBeNull();
    for (const bad of ['', '1.', '.5', '1.234', '1e3', '+1', ' 1', '1,5', '-01']) expect(centimesFromDecimalString(bad), bad).toBeNull();
    for (const bad of [null, undefined, true, {}, [1]]) expect(centimesOf(bad)).toBeNull();
    expect(centimesFromDecimalString('-12.5')).toBe(-1250);
    expect(centimesFromNumber(-0)).toBe(0);
    expect(isMad('12.50')).toBe(false);
  });
  it('isMad (the `mad` format) answers as centimesFromNumber on every double: two-decimal amounts, their neighbours, any double', () => {
    const byString = (v: number) => centimesFromNumber(v) !== null;
    const near = fc.tuple(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.integer({ min: -2, max: 2 })).map(([c, step]) => {
      let v = c / 100;
      // a few doubles either side of the amount
      for (let i = 0; i < Math.abs(step); i++) v = step > 0 ? nextUp(v) : -nextUp(-v);
      return v;
    });
    fc.assert(
      fc.property(fc.oneof(near, fc.double(), fc.double({ min: -1e13, max: 1e13 })), (v) => isMad(v) === byString(v)),
      { numRuns: 20_000 },
    );
    for (const v of [0, -0, 0.29, 1.005, 1e12 - 0.01, 1e12, 1e12 + 0.01, 999_999_999_999.99, 1e-7, 2 ** 53, NaN, -Infinity])
      expect(isMad(v), String(v)).toBe(byString(v));
  });
});

/** The next double above `v` (finite). */
function nextUp(v: number): number {
  if (v === 0) return Number.MIN_VALUE;
  const b = new Float64Array([v]);
  const bits = new BigInt64Array(b.buffer);
  bits[0] = bits[0]! + (v > 0 ? 1n : -1n);
  return b[0]!;
}

describe('toCentimes (browser code: throws on a bad server answer)', () => {
  it('reads numbers and decimal strings exactly', () => {
    expect(toCentimes(1299.5)).toBe(129950);
    expect(toCentimes('1299.50')).toBe(129950);
    expect(toCentimes(129.99)).toBe(12999);
    expect(toCentimes(0.3)).toBe(30);
    expect(toCentimes('500')).toBe(50000);
    expect(toCentimes(15000)).toBe(1500000);
  });
  it('refuses more than two decimals, negatives, exponents and non-finite values', () => {
    for (const bad of [0.1 + 0.2, 1.005, -1, 1e21, 1e-7, Number.NaN, Infinity, '1.234', '-5', '1e3', '', ' . ']) {
      expect(() => toCentimes(bad), String(bad)).toThrow(RangeError);
    }
  });
  it('round-trips every centimes amount through its decimal string and JSON number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500_000_000 }), (c) => {
        const s = formatCentimes(c);
        expect(toCentimes(s)).toBe(c);
        expect(toCentimes(Number(s))).toBe(c);
      }),
    );
  });
});

describe('sumLines', () => {
  it('is the integer Σ price × quantity of prices sent as numbers or strings (property)', () => {
    const line = fc.record({
      c: fc.integer({ min: 0, max: 1_500_000 }),
      quantity: fc.integer({ min: 1, max: 99 }),
      asString: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        const sent = lines.map((l) => ({ price: l.asString ? formatCentimes(l.c) : centimesToNumber(l.c), quantity: l.quantity }));
        expect(sumLines(sent)).toBe(lines.reduce((s, l) => s + l.c * l.quantity, 0));
      }),
    );
  });
  it('is null when a price or a quantity is not valid', () => {
    expect(sumLines([])).toBe(0);
    expect(sumLines([{ price: 1.005, quantity: 1 }])).toBeNull();
    expect(sumLines([{ price: 10, quantity: 1.5 }])).toBeNull();
    expect(sumLines([{ price: 10, quantity: '2' }])).toBeNull();
    expect(sumLines([{ price: 90_000_000_000_000, quantity: 2 }])).toBeNull();
  });
});

describe('formatCentimes', () => {
  it('prints two decimals and the sign', () => {
    expect(formatCentimes(0)).toBe('0.00');
    expect(formatCentimes(5)).toBe('0.05');
    expect(formatCentimes(-1250)).toBe('-12.50');
    expect(formatCentimes(1500000)).toBe('15000.00');
  });
});

describe('splitInstalments', () => {
  it('puts the remainder on the first instalment', () => {
    expect(splitInstalments(129950, 3)).toEqual([43318, 43316, 43316]);
    expect(splitInstalments(129950, 4)).toEqual([32489, 32487, 32487, 32487]);
    expect(splitInstalments(129950, 2)).toEqual([64975, 64975]);
    expect(splitInstalments(50001, 4)).toEqual([12501, 12500, 12500, 12500]);
  });
  it('sums exactly, the first is the largest by less than n centimes, the others are equal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500_000 }), fc.constantFrom(2, 3, 4), (total, n) => {
        const parts = splitInstalments(total, n);
        expect(parts).toHaveLength(n);
        expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
        const [first, ...rest] = parts as [number, ...number[]];
        for (const p of rest) {
          expect(p).toBe(rest[0]);
          expect(Number.isInteger(p)).toBe(true);
        }
        expect(first - rest[0]!).toBeGreaterThanOrEqual(0);
        expect(first - rest[0]!).toBeLessThan(n);
      }),
    );
  });
  it('refuses fractional centimes and bad counts', () => {
    expect(() => splitInstalments(10.5, 2)).toThrow(RangeError);
    expect(() => splitInstalments(100, 0)).toThrow(RangeError);
  });
  it('plansFor gives 2x, 3x, 4x', () => {
    expect(plansFor(100000).map((p) => p.count)).toEqual([2, 3, 4]);
    expect(plansFor(100000)[1]!.instalments).toEqual([33334, 33333, 33333]);
  });
  it('every plan of any total sums to it in whole centimes (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500_000_000 }), (total) => {
        for (const plan of plansFor(total)) {
          expect(plan.instalments.every(Number.isSafeInteger)).toBe(true);
          expect(plan.instalments.reduce((a, b) => a + b, 0)).toBe(total);
        }
      }),
    );
  });
});

describe('formatMad', () => {
  it('formats per locale without floats', () => {
    expect(formatMad(129950, 'en')).toBe('1,299.50 MAD');
    expect(formatMad(129950, 'fr')).toBe('1\u202f299,50 MAD');
    expect(formatMad(129950, 'ar')).toBe('1,299.50 MAD');
    expect(formatMad(1500000, 'en')).toBe('15,000.00 MAD');
    expect(formatMad(5, 'en')).toBe('0.05 MAD');
  });
  it('shows the same digits as formatCentimes in every locale (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500_000_000 }), (c) => {
        expect(formatMad(c, 'en').replace(/,/g, '')).toBe(`${formatCentimes(c)} MAD`);
        expect(formatMad(c, 'ar')).toBe(formatMad(c, 'en'));
        expect(
          formatMad(c, 'fr')
            .replace(/\u202f/g, '')
            .replace(',', '.'),
        ).toBe(`${formatCentimes(c)} MAD`);
      }),
    );
  });
});
