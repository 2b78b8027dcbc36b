/**
 * A replayed answer judged against its recorded one (`paylater judge --replay`), by meaning: the
 * status, the error code, and the JSON with the replay's substitutions made, where instants and
 * values the server made (identifier-like strings no request sent) are not compared and member
 * order never counts.
 */
import { jsonOf } from '../lib/json.ts';
import { parseLocalDateTime } from '../model/local-date.ts';
import { instant } from './clock.ts';
import { errorCode } from './context.ts';
import type { EarFinding, Exchange } from './exchange.ts';

/**
 * A value of a fixed vocabulary (a status, a currency, an error code, an event's name, an outcome):
 * compared, never server-made. One case throughout (`PENDING`, `transaction.approved`): a random
 * token of mixed-case letters that happens to hold no digit is not a word (it was, a few times in a
 * hundred tokens, and its replay was then compared to the recorded one).
 */
export const WORD = /^(?:[A-Z][A-Z_]*|[a-z][a-z_]*(?:\.[a-z_]+)*)$/;
/** An instant: ISO 8601 (as HAR times are read), or ADR-007's `DD/MM/YY HH:MM:SS`. */
export const isInstant = (s: string): boolean => instant(s) !== undefined || parseLocalDateTime(s) !== null;
/** Members holding a wait in seconds until an instant (Error.yaml's `retry_after`): an instant in another unit, not compared. */
const WAITS = new Set(['retry_after']);

/** The first place the new answer differs from the recorded one (substitutions made) by meaning, or undefined. */
export function difference(
  recorded: unknown,
  now: unknown,
  sent: ReadonlySet<string>,
  at = '$',
): { at: string; recorded: unknown; now: unknown } | undefined {
  if (typeof recorded === 'string' && typeof now === 'string') {
    // an instant, or a string no request sent that is not a word of a vocabulary: the server made it
    const made = (s: string) => isInstant(s) || (!WORD.test(s) && !sent.has(s));
    return recorded === now || (made(recorded) && made(now)) ? undefined : { at, recorded, now };
  }
  if (Array.isArray(recorded) && Array.isArray(now)) {
    if (recorded.length !== now.length) return { at: `${at}.length`, recorded: recorded.length, now: now.length };
    for (const [i, x] of recorded.entries()) {
      const d = difference(x, now[i], sent, `${at}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (recorded && now && typeof recorded === 'object' && typeof now === 'object' && !Array.isArray(recorded) && !Array.isArray(now)) {
    const [r, n] = [recorded as Record<string, unknown>, now as Record<string, unknown>];
    for (const k of new Set([...Object.keys(r), ...Object.keys(n)])) {
      if (!(k in r) || !(k in n)) return { at: `${at}.${k}`, recorded: r[k], now: n[k] };
      if (WAITS.has(k) && typeof r[k] === 'number' && typeof n[k] === 'number') continue;
      const d = difference(r[k], n[k], sent, `${at}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return recorded === now ? undefined : { at, recorded, now };
}

/**
 * Exchange `now`, the replay of recorded exchange `x`, judged against it: another status or error
 * code, else the first difference by meaning between `expected` (the recorded answer's JSON, the
 * replay's substitutions made) and the new answer. A request sent with a filler body (the recording
 * did not keep it) is not compared.
 */
export function judgeReplayed(x: Exchange, now: Exchange, expected: unknown, sent: ReadonlySet<string>): EarFinding[] {
  if (x.requestTruncated) return [];
  const [was, is] = [jsonOf(x.responseText), jsonOf(now.responseText)];
  const at = { operation: x.opId ?? `${x.method} ${new URL(x.url).pathname}`, exchanges: [x.seq, now.seq] };
  if (x.status !== now.status || errorCode(was) !== errorCode(is))
    return [
      {
        kind: 'replay',
        jsonPath: '$',
        message: `replayed as exchange ${now.seq}, answered ${now.status}${errorCode(is) ? ` ${errorCode(is)}` : ''}; exchange ${x.seq} was answered ${x.status}${errorCode(was) ? ` ${errorCode(was)}` : ''}`,
        expected: x.status,
        actual: now.status,
        ...at,
      },
    ];
  const d = x.responseTruncated ? undefined : difference(expected, is, sent);
  return d
    ? [
        {
          kind: 'replay',
          jsonPath: d.at,
          message: `replayed as exchange ${now.seq}, its answer differs at ${d.at} from exchange ${x.seq}'s (handed-out values substituted, instants and server-made values not compared)`,
          expected: d.recorded,
          actual: d.now,
          ...at,
        },
      ]
    : [];
}
