/**
 * Money in MAD as integer centimes (ADR-021): the one money module of the package. The
 * reference server, the browser SDK, the hosted checkout page and the conformance suite read,
 * add, split and print amounts here. Amounts arrive as JSON numbers (read through their
 * shortest decimal string, never by multiplying a binary float) or as decimal strings
 * (Variant 2's session `total`); arithmetic happens on integers only. No imports: the browser
 * bundles include this file.
 */

/** Optional sign, whole part without leading zeros, at most two decimals. */
const DECIMAL = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]{1,2}))?$/;

function fromDecimal(text: string): number | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const whole = Number(m[2]);
  const frac = Number((m[3] ?? '').padEnd(2, '0'));
  const value = whole * 100 + frac;
  if (!Number.isSafeInteger(value)) return null;
  return m[1] === '-' ? -value : value;
}

/** Centimes of a JSON number with at most two decimals, or null (NaN, infinities, exponent forms, 3+ decimals). */
export function centimesFromNumber(n: number): number | null {
  if (typeof n !== 'number' || !Number.isFinite(n)) return null;
  if (Object.is(n, -0)) return 0;
  return fromDecimal(String(n));
}

/** Centimes of a decimal string such as `"1299.50"` (Variant 2), or null. */
export function centimesFromDecimalString(s: string): number | null {
  if (typeof s !== 'string') return null;
  return fromDecimal(s);
}

/** Centimes of an amount sent either way (number or decimal string), or null. */
export function centimesOf(v: unknown): number | null {
  if (typeof v === 'number') return centimesFromNumber(v);
  if (typeof v === 'string') return centimesFromDecimalString(v);
  return null;
}

/**
 * True for a finite number with at most two decimal places: the predicate of the `mad`
 * format (ADR-021), which the contract router's validator applies (`validatorStages`).
 */
export function isMad(v: unknown): boolean {
  if (typeof v !== 'number') return false;
  // Below 10^12 the numeric test is exact and spares the response checks a String and a regex:
  // there 100·v is within 0.02 of its centimes, and a double that is the nearest one to a
  // two-decimal amount prints as that amount (a shortest round-trip string).
  if (Math.abs(v) < 1e12) {
    const c = Math.round(v * 100);
    return c / 100 === v;
  }
  return centimesFromNumber(v) !== null;
}

/**
 * Centimes of a non-negative amount, for the browser code that renders a server answer.
 * Throws a RangeError on anything `centimesOf` refuses and on negative amounts.
 */
export function toCentimes(amount: number | string): number {
  const c = centimesOf(amount);
  if (c === null || c < 0) throw new RangeError(`not a MAD amount with at most two decimals: ${String(amount)}`);
  return c;
}

/** The JSON number of an amount in centimes (integer ÷ 100 is the double nearest the decimal). */
export function centimesToNumber(c: number): number {
  return c / 100;
}

/** `129950` → `"1299.50"`: whole part, '.', two digits. */
export function formatCentimes(c: number): string {
  const sign = c < 0 ? '-' : '';
  const a = Math.abs(c);
  return `${sign}${Math.trunc(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

/**
 * Display form of a non-negative amount for a locale: `1,299.50 MAD` (en), `1 299,50 MAD` (fr,
 * narrow no-break space), `1,299.50 MAD` (ar, Western digits as Moroccan shops print them).
 */
export function formatMad(centimes: number, locale: string): string {
  const [whole, frac] = formatCentimes(centimes).split('.') as [string, string];
  const sep = locale === 'fr' ? '\u202f' : ',';
  const dec = locale === 'fr' ? ',' : '.';
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
  return `${grouped}${dec}${frac} MAD`;
}

/** Σ price × quantity over lines, in centimes; null when a price is not a valid amount. */
export function sumLines(lines: ReadonlyArray<{ price: unknown; quantity: unknown }>): number | null {
  let total = 0;
  for (const line of lines) {
    const p = centimesOf(line.price);
    const q = line.quantity;
    if (p === null || typeof q !== 'number' || !Number.isSafeInteger(q)) return null;
    total += p * q;
    if (!Number.isSafeInteger(total)) return null;
  }
  return total;
}

/** The instalment counts the service offers. */
export const PLANS = [2, 3, 4] as const;

/**
 * Splits `totalCentimes` into `count` instalments of whole centimes; the remainder (the
 * centimes that do not divide evenly) goes on the first.
 */
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
