import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centimesToDecimalString, formatMad, plansFor, splitInstalments, toCentimes } from './src/money.ts';

describe('toCentimes', () => {
  it('reads numbers and decimal strings exactly', () => {
    expect(toCentimes(1299.5)).toBe(129950);
    expect(toCentimes('1299.50')).toBe(129950);
    expect(toCentimes(129.99)).toBe(12999);
    expect(toCentimes(0.1 + 0.2 === 0.3 ? 0.3 : 0.3)).toBe(30);
    expect(toCentimes('500')).toBe(50000);
    expect(toCentimes(15000)).toBe(1500000);
  });
  it('refuses more than two decimals, negatives, exponents and non-finite values', () => {
    for (const bad of [0.1 + 0.2, 1.005, -1, 1e21, 1e-7, Number.NaN, Infinity, '1.234', '-5', '1e3', '', ' . ']) {
      expect(() => toCentimes(bad as number | string), String(bad)).toThrow(RangeError);
    }
  });
  it('round-trips every centimes amount through its decimal string and JSON number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_500_000_000 }), (c) => {
        const s = centimesToDecimalString(c);
        expect(toCentimes(s)).toBe(c);
        expect(toCentimes(Number(s))).toBe(c);
      }),
    );
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
});

describe('formatMad', () => {
  it('formats per locale without floats', () => {
    expect(formatMad(129950, 'en')).toBe('1,299.50 MAD');
    expect(formatMad(129950, 'fr')).toBe('1\u202f299,50 MAD');
    expect(formatMad(129950, 'ar')).toBe('1,299.50 MAD');
    expect(formatMad(1500000, 'en')).toBe('15,000.00 MAD');
    expect(formatMad(5, 'en')).toBe('0.05 MAD');
  });
});
