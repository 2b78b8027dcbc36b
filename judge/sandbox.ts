/**
 * The sandbox's clock and reset (ADR-041) as the judge follows them: each clock answer tells the
 * merchant's offset (clock.ts); a reset puts the clock back to real time, forgets the key's rate
 * window, and with `deleteData` the merchant's transactions and tokens; the webhook endpoint may be
 * seeded afresh, so what a 410 disabled is not judged past it.
 */
import { clockOffsetMs, clockOffsetProblem } from '../model/index.ts';
import { clockAnswered, onServerClock } from './clock.ts';
import { causesSeen, finding, isRecord, type Judging, type Seen } from './context.ts';
import { enabled } from './deliveries.ts';
import { forgetMerchantData, unknownRateWindow } from './memory.ts';

/**
 * A sandbox clock answer (read, advance, reset): its offset is one offset (`offsetSeconds` the whole
 * seconds of `offsetMilliseconds`, the model's `clockOffsetProblem`, ADR-085), an advance's at least
 * the milliseconds it asked for (whatever else moved the clock meanwhile: offsets are never below
 * 0), and the merchant's offset from then on.
 * @judges ADR-085
 */
export function judgeClock(s: Seen, j: Judging): void {
  const m = s.merchant;
  const offsetMs = isRecord(s.json) ? clockOffsetMs(s.json) : undefined;
  if (m === null || s.status !== 200 || offsetMs === undefined || !isRecord(s.json)) return;
  const { offsetSeconds, offsetMilliseconds } = s.json;
  // a member missing or not a number is the answer judge's (schema) finding, not this one's
  const shown = typeof offsetSeconds === 'number' && typeof offsetMilliseconds === 'number';
  const problem = shown ? clockOffsetProblem({ offsetSeconds, offsetMilliseconds }, undefined) : null;
  if (problem)
    j.out.push(
      finding({
        kind: 'contradiction',
        at: s,
        jsonPath: problem.path,
        message: `offsetSeconds ${offsetSeconds as number} is not the whole seconds of offsetMilliseconds ${offsetMilliseconds as number} (ADR-085)`,
        expected: problem.expected,
        actual: problem.actual,
      }),
    );
  const asked = s.opId === 'sandboxAdvanceClock' ? advancedMs(s.requestJson) : undefined;
  if (asked !== undefined && offsetMs < asked)
    j.out.push(
      finding({
        kind: 'contradiction',
        at: s,
        jsonPath: typeof offsetMilliseconds === 'number' ? '$.offsetMilliseconds' : '$.offsetSeconds',
        message: `the clock advanced by ${asked} ms shows an offset of ${offsetMs} ms (ADR-085)`,
        expected: `at least ${asked}`,
        actual: offsetMs,
      }),
    );
  const before = m.clock.answers.at(-1);
  // the ear is the sole client: nothing but the calls it saw moved the clock since its last answer (ADR-087)
  const exact = asked !== undefined && typeof offsetMilliseconds === 'number' && before !== undefined && before.receivedAt <= s.sentAt;
  if (exact && causesSeen(s, j) && offsetMs !== before.offsetMs + asked)
    j.out.push(
      finding({
        kind: 'no-cause',
        at: s,
        jsonPath: '$.offsetMilliseconds',
        message: `the clock, at an offset of ${before.offsetMs} ms by its last answer, advanced by ${asked} ms shows an offset of ${offsetMs} ms; no other call of the merchant moved it meanwhile (ADR-085, ADR-087)`,
        expected: before.offsetMs + asked,
        actual: offsetMs,
      }),
    );
  // the first clock answer of a sole client's test key: the offset its A1 window was held without (sessions.ts)
  const w = m.rateWindow;
  if (w?.onEarClock && before === undefined && s.opId !== 'sandboxReset') {
    // the offset before this answer: the same for a read, less the advance for an advance, when no other call moved it
    const was = s.opId === 'sandboxGetClock' ? offsetMs : asked === undefined ? undefined : offsetMs - asked;
    if (was !== undefined && causesSeen(s, j)) {
      if (w.end) w.end = onServerClock(j.memory, w.end, was, j.settings.tolerance);
      w.onEarClock = false;
    } else m.rateWindow = null;
  }
  clockAnswered(m, s.sentAt, s.receivedAt, offsetMs, s.opId === 'sandboxReset');
}

/** The milliseconds an advance asked for (`seconds` or `milliseconds`, ADR-085); undefined when its body shows neither. */
function advancedMs(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.milliseconds === 'number') return body.milliseconds;
  return typeof body.seconds === 'number' ? body.seconds * 1000 : undefined;
}

/** A sandbox reset answered: the rate window starts afresh; deleted data is forgotten. */
export function judgeReset(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status !== 200) return;
  enabled(m, s);
  // the endpoint may be seeded afresh
  m.endpoint.shown = null;
  const deleted = isRecord(s.json) && isRecord(s.json.deleted) ? s.json.deleted.transactions : 0;
  if (typeof deleted === 'number' && deleted > 0) forgetMerchantData(j.memory, m);
  // the rate windows forgotten: the next counted A1 opens one, when no other call can come first (ADR-087)
  m.rateWindow = causesSeen(s, j) ? unknownRateWindow(0, false) : null;
}
