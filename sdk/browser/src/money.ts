/**
 * Money for the payment button and the hosted page: MAD amounts as integer centimes
 * (ADR-021), never binary floats. Instalment plans split the total exactly; the remainder
 * (the centimes that do not divide evenly) goes on the first instalment.
 */

/** The instalment counts the service offers. */
export const PLANS = [2, 3, 4] as const;
export type PlanCount = (typeof PLANS)[number];

/**
 * A MAD amount (a JSON number or a decimal string, at most two decimals) as integer centimes.
 * Throws on anything else (negative, more decimals, exponent forms, non-finite).
 */
export function toCentimes(amount: number | string): number {
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? String(amount) : '') : amount.trim();
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new RangeError(`not a MAD amount with at most two decimals: ${String(amount)}`);
  const whole = Number(m[1]);
  const frac = Number((m[2] ?? '').padEnd(2, '0'));
  return whole * 100 + frac;
}

/** Splits `totalCentimes` into `count` instalments; the remainder goes on the first. */
export function splitInstalments(totalCentimes: number, count: number): number[] {
  if (!Number.isSafeInteger(totalCentimes) || totalCentimes < 0) throw new RangeError('total must be whole centimes');
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
  const base = Math.floor(totalCentimes / count);
  const remainder = totalCentimes - base * count;
  const out = new Array<number>(count).fill(base);
  out[0] = base + remainder;
  return out;
}

export interface Plan {
  count: number;
  instalments: number[];
}

/** The 2x, 3x and 4x plans of a total. */
export function plansFor(totalCentimes: number): Plan[] {
  return PLANS.map((count) => ({ count, instalments: splitInstalments(totalCentimes, count) }));
}

/** `1299.50` form: whole part, '.', two digits; no float arithmetic. */
export function centimesToDecimalString(centimes: number): string {
  const whole = Math.floor(centimes / 100);
  const frac = centimes - whole * 100;
  return `${whole}.${String(frac).padStart(2, '0')}`;
}

/**
 * Human form of an amount for a locale: `1,299.50 MAD` (en), `1 299,50 MAD` (fr, narrow
 * no-break space), `1,299.50 MAD` (ar, Western digits as Moroccan shops print them).
 */
export function formatMad(centimes: number, locale: string): string {
  const [whole, frac] = centimesToDecimalString(centimes).split('.') as [string, string];
  const sep = locale === 'fr' ? '\u202f' : ',';
  const dec = locale === 'fr' ? ',' : '.';
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  return `${grouped}${dec}${frac} MAD`;
}
