/**
 * Money in MAD as integer centimes (ADR-021). Amounts arrive as JSON numbers (read through
 * their shortest decimal string, never by multiplying a binary float) or, for Variant 2's
 * session `total`, as decimal strings. Sums and comparisons happen on integers only.
 */
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

/** Centimes of an amount sent either way. */
export function centimesOf(v: unknown): number | null {
  if (typeof v === 'number') return centimesFromNumber(v);
  if (typeof v === 'string') return centimesFromDecimalString(v);
  return null;
}

/** True for a finite number with at most two decimal places: the `mad` format. */
export function isMad(v: unknown): boolean {
  return typeof v === 'number' && centimesFromNumber(v) !== null;
}

/** The JSON number of an amount in centimes (integer ÷ 100 is the double nearest the decimal). */
export function centimesToNumber(c: number): number {
  return c / 100;
}

/** `129950` → `"1299.50"`. */
export function formatCentimes(c: number): string {
  const sign = c < 0 ? '-' : '';
  const a = Math.abs(c);
  return `${sign}${Math.trunc(a / 100)}.${String(a % 100).padStart(2, '0')}`;
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
