/**
 * Time, injectable. `Clock` is the deployment's base clock (epoch milliseconds). Each
 * sandbox merchant sees the base time plus its own forward-only offset (ADR-020), and its
 * time never goes back even if the base clock does (monotonic per merchant).
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 10, 20, 14, 5, 9)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    if (ms < 0) throw new Error('ManualClock only moves forward');
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

/**
 * Per-merchant time: base + offset, never below the last value returned for that merchant.
 * @rule ADR-020
 */
export class MerchantTime {
  private readonly last = new Map<string, number>();
  constructor(
    private readonly base: Clock,
    private readonly offsetMs: (merchantId: string) => number,
  ) {}
  now(merchantId: string): number {
    const t = this.base.now() + this.offsetMs(merchantId);
    const prev = this.last.get(merchantId) ?? -Infinity;
    const v = t > prev ? t : prev;
    this.last.set(merchantId, v);
    return v;
  }
  /** Lets the merchant's time go back (to base + offset): the sandbox reset (ADR-041). */
  forget(merchantId: string): void {
    this.last.delete(merchantId);
  }
}

/** ISO 8601 UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * `DD/MM/YY HH:MM:SS` in UTC (ADR-007).
 * @rule ADR-007
 */
export function localDateTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCFullYear() % 100)} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** `30m`, `90s`, `1h`, `2h30m` or plain seconds `1800` → seconds; null when malformed or not positive. */
export function parseDuration(text: string): number | null {
  if (/^[0-9]+$/.test(text)) {
    const n = Number(text);
    return n > 0 && Number.isSafeInteger(n) ? n : null;
  }
  const m = /^(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/.exec(text);
  if (!m || text === '') return null;
  const s = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return s > 0 && Number.isSafeInteger(s) ? s : null;
}
