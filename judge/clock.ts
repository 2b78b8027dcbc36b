/**
 * Time as the traffic shows it, and nothing else: a merchant's sandbox clock as its answers
 * (`sandboxGetClock`, `sandboxAdvanceClock`, `sandboxReset`) showed its offset, the server's real
 * clock as its `Date` headers bound it, and when each exchange happened on the ear's clock.
 *
 * The server's clock during an exchange is the ear's interval shifted by every offset the merchant's
 * clock can have had meanwhile. A live key's offset is 0. A test key's is anything from 0 up (a
 * sandbox clock may have been advanced before the judge started, or by another client of the key
 * at any moment, and a reset puts it back to 0), so its upper bounds are not judged; only when the
 * ear sees every move of the clock (`everyCallSeen`: its keys' sole client, ADR-087) are they the
 * offsets its answers showed, from the first on. A reset sets the clock back: an instant stamped
 * before it may be later than the clock now, so what may have happened before the judge started,
 * or before a reset, is bounded by nothing.
 */
import type { Interval } from '../model/index.ts';
import { sandboxMayChangeUnseen, type Judging, type Seen } from './context.ts';
import type { JudgeMemory, MerchantMemory } from './memory.ts';

/** Clock answers kept per merchant. */
const CLOCK_ANSWERS = 8;

/**
 * The offsets (ms) the merchant's clock can have had during [from, to] (ear ms). Its answers tell the
 * offset at the moment they were read, and of the moments after only when every call of the
 * merchant passes through the ear (`everyCallSeen`).
 */
function offsets(j: Judging, m: MerchantMemory, from: number, to: number): [number, number] {
  if (sandboxMayChangeUnseen(j, m)) return [0, Infinity];
  let before: [number, number] = m.testKey ? [0, Infinity] : [0, 0];
  let lo = Infinity;
  let hi = -Infinity;
  for (const a of m.clock.answers) {
    const off = a.offsetMs;
    if (a.receivedAt <= from) before = [off, off];
    else if (a.sentAt <= to) {
      lo = Math.min(lo, off);
      hi = Math.max(hi, off);
    }
  }
  return [Math.min(lo, before[0]), Math.max(hi, before[1])];
}

/** The server's real clock less the ear's, when the Date headers show it certainly differs by more than `tolerance`; else 0. */
function skew(memory: JudgeMemory, tolerance: number): Interval {
  const s = memory.dateSkew;
  return isShifted(s, tolerance) ? s : { from: 0, to: 0 };
}

/** The server's clock of the caller's merchant while the exchange lasted (the model's slack not added). */
export function during(j: Judging, m: MerchantMemory, s: Pick<Seen, 'sentAt' | 'receivedAt'>): Interval {
  const [lo, hi] = offsets(j, m, s.sentAt, s.receivedAt);
  const k = skew(j.memory, j.settings.tolerance);
  return { from: s.sentAt + lo + k.from, to: s.receivedAt + hi + k.to };
}

/** An interval of the ear's clock on a server clock `offsetMs` ahead of the server's real one. */
export function onServerClock(memory: JudgeMemory, ear: Interval, offsetMs: number, tolerance: number): Interval {
  const k = skew(memory, tolerance);
  return { from: ear.from + offsetMs + k.from, to: ear.to + offsetMs + k.to };
}

/**
 * The latest the merchant's server clock can have read at any moment of [since, to] (ear ms): what
 * a change made in that time can have been stamped with. Unbounded when `since` is before what the
 * judge knows of a test key's clock (the judge started, or its clock answers were forgotten, after),
 * and for a test key whose every call the judge may not assume it sees.
 */
export function latestDuring(j: Judging, m: MerchantMemory, since: number, to: number): number {
  const [, hi] = offsets(j, m, since, to);
  return to + hi + skew(j.memory, j.settings.tolerance).to;
}

/**
 * The earliest the merchant's server clock can have read at any moment of [since, to] (ear ms): what
 * a change made in that time can have been stamped with, when a reset may have put the clock back.
 */
export function earliestDuring(j: Judging, m: MerchantMemory, since: number, to: number): number {
  const [lo] = offsets(j, m, since, to);
  return since + lo + skew(j.memory, j.settings.tolerance).from;
}

/**
 * Whether a reset may have put merchant `m`'s clock back after an instant `after` (ear ms, epoch;
 * null: an instant the judge did not see, such as a transaction's making before it started): a live
 * key's never is; a test key's may have been by any call the ear did not see.
 */
export function setBackSince(j: Judging, m: MerchantMemory, after: number | null): boolean {
  if (!m.testKey) return false;
  return after === null || sandboxMayChangeUnseen(j, m) || m.clock.setBackAt > after;
}

/** A clock answer of merchant `m` (its offset in ms) during [sentAt, receivedAt]; `reset`: a sandbox reset answered. */
export function clockAnswered(m: MerchantMemory, sentAt: number, receivedAt: number, offsetMs: number, reset: boolean): void {
  const list = m.clock.answers;
  const last = list.at(-1);
  // a reset puts the clock back to real time; an offset lower than the one before can only mean one
  if (reset || (last !== undefined && offsetMs < last.offsetMs)) m.clock.setBackAt = Math.max(m.clock.setBackAt, receivedAt);
  list.push({ sentAt, receivedAt, offsetMs });
  if (list.length > CLOCK_ANSWERS) list.splice(0, list.length - CLOCK_ANSWERS);
}

/** The last Date header parsed: a server's Date changes once a second, answers come by the thousand. */
let lastDate = { text: '', ms: NaN };
function parsedDate(text: string): number {
  if (text !== lastDate.text) lastDate = { text, ms: Date.parse(text) };
  return lastDate.ms;
}

/** A `Date` header answered during [sentAt, receivedAt]: the server's real clock read a second of it then (RFC 9110 §6.6.1). */
export function dateAnswered(memory: JudgeMemory, date: string | undefined, sentAt: number, receivedAt: number, tolerance: number): void {
  const d = date === undefined ? NaN : parsedDate(date);
  if (Number.isNaN(d)) return;
  const now: Interval = { from: d - receivedAt, to: d + 1000 - sentAt };
  const s = memory.dateSkew;
  const wasShifted = isShifted(s, tolerance);
  const both = { from: Math.max(s.from, now.from), to: Math.min(s.to, now.to) };
  // headers that disagree (the server's clock stepped): the latest one holds
  memory.dateSkew = both.from <= both.to ? both : now;
  if (isShifted(memory.dateSkew, tolerance) !== wasShifted || both.from > both.to) memory.skewBasisSince = receivedAt;
}

/** The Date headers show the server's clock certainly more than `tolerance` from the ear's: the server's instants are shifted by it. */
const isShifted = (s: Interval, tolerance: number): boolean => s.from > tolerance || s.to < -tolerance;

/**
 * The most NTP slews a clock (ntpd and chrony: 500 ppm): how far two clocks' difference may drift
 * per ms of real time.
 */
const DRIFT_PER_MS = 0.0005;

/**
 * The slack between two instants of a merchant's server clock both read off the ear's (`earlier`,
 * `later`: ear ms, epoch), such as a token's issue and its use, or two answers of one rate window:
 * the server's clock less the ear's is the same in both, so it cancels out of their difference, save
 * its drift over the real time between them and a millisecond of rounding; never more than
 * `tolerance`, and `tolerance` when the Date headers changed what the judge takes that difference
 * for (shifted or not) in between.
 */
export function earSlack(memory: JudgeMemory, earlier: number, later: number, tolerance: number): number {
  if (memory.skewBasisSince >= earlier) return tolerance;
  return Math.min(tolerance, 1 + DRIFT_PER_MS * Math.max(0, later - earlier));
}

/** A time for a message: ISO 8601, or what an unbounded end means. */
export const iso = (ms: number): string =>
  Number.isFinite(ms) ? new Date(ms).toISOString() : ms > 0 ? 'unknown (a sandbox clock not answered yet)' : 'unknown';

/** ISO 8601 as HAR writers write it: `Z` or an offset, any number of fraction digits (µs kept). */
const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/;

/** An ISO 8601 instant in epoch ms (its fraction whole: µs kept), or undefined when it is not one. */
export function instant(s: unknown): number | undefined {
  const m = typeof s === 'string' ? ISO.exec(s) : null;
  if (!m) return undefined;
  const zone = m[3]!.length === 5 ? `${m[3]!.slice(0, 3)}:${m[3]!.slice(3)}` : m[3]!;
  const whole = Date.parse(m[1]! + zone);
  return Number.isNaN(whole) ? undefined : whole + Number(`0.${m[2] ?? '0'}`) * 1000;
}

/** An epoch-ms time as ISO 8601 with microseconds (a HAR read back keeps the order of exchanges a millisecond apart). */
export function isoMicro(ms: number): string {
  const us = Math.round(ms * 1000);
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, -1)}${String(((us % 1000) + 1000) % 1000).padStart(3, '0')}Z`;
}
