/**
 * A recorded history judged (`paylater judge FILE.har`): the exchanges a recording holds and the
 * webhook deliveries, in the order they ended, by the one judge, the events' window swept as the
 * recording's time passes. Plain data in (a HAR read into exchanges), findings out: no file, no clock.
 */
import { jsonOf } from '../lib/json.ts';
import { defaultWebhookWindowMs, sweepEveryMs } from './events.ts';
import { isSafeMethod, type Delivery, type EarFinding, type Exchange, type JudgeOptions } from './exchange.ts';
import { createJudge, type Judge } from './index.ts';
import { isMasked } from './mask.ts';
import { routeOf } from './route.ts';
import { asyncApiValidators } from './webhooks.ts';

/** The operation an exchange is (either variant's), or undefined. */
export const operationOf = (x: Exchange): string | undefined => {
  const p = new URL(x.url).pathname;
  return (routeOf(1, x.method, p) ?? routeOf(2, x.method, p))?.opId;
};

/** The hosts the recording sent operations to: the API's (a page, a CDN, another API is not judged). */
export const apiOrigins = (list: Exchange[]): Set<string> =>
  new Set(list.filter((x) => operationOf(x) !== undefined).map((x) => new URL(x.url).origin));

export interface Judged<X extends Exchange = Exchange> {
  findings: EarFinding[];
  judge: Judge;
  /** The exchanges handed to the judge (the API hosts'), and how many of other hosts were counted only. */
  exchanges: X[];
  otherHosts: number;
}

/** The value at a finding's JSON path (`$.a.b[0]`) of a body, or undefined. */
function at(text: string | undefined, jsonPath: string): unknown {
  let v = jsonOf(text);
  for (const step of jsonPath.match(/[^.[\]$]+/g) ?? []) v = (v as Record<string, unknown> | undefined)?.[step];
  return v;
}

/**
 * A finding about a value the recording masked (a schema's pattern for a secret): what the recording
 * hid is not judged. A `no-cause` finding compares two values (a secret read back against the one
 * answered before): one digest per value, the masks compare as the values do.
 */
const aboutMasked = (f: EarFinding, x: Exchange): boolean =>
  f.kind !== 'no-cause' && [at(x.responseText, f.jsonPath), at(x.body, f.jsonPath)].some(isMasked);

/**
 * Each exchange's `othersOpen` (where the recording did not say): whether another, not of a safe
 * method, began before its answer ended and had not ended by then (one ending at the same instant
 * counts as open).
 */
export function markOthersOpen(list: Exchange[]): void {
  // the exchanges that may change something, by end; from each on, the two earliest starts among them (and whose the first is)
  const unsafe = list.filter((x) => !isSafeMethod(x.method)).sort((a, b) => a.receivedAt - b.receivedAt);
  const first = new Array<{ at: number; x: Exchange | null }>(unsafe.length + 1);
  const second = new Array<number>(unsafe.length + 1);
  first[unsafe.length] = { at: Infinity, x: null };
  second[unsafe.length] = Infinity;
  for (let i = unsafe.length - 1; i >= 0; i--) {
    const y = unsafe[i]!;
    const next = first[i + 1]!;
    if (y.sentAt < next.at) {
      first[i] = { at: y.sentAt, x: y };
      second[i] = next.at;
    } else {
      first[i] = next;
      second[i] = Math.min(second[i + 1]!, y.sentAt);
    }
  }
  for (const x of list) {
    if (x.othersOpen !== undefined) continue;
    // the first of them ending no earlier than x
    let lo = 0;
    let hi = unsafe.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (unsafe[mid]!.receivedAt < x.receivedAt) lo = mid + 1;
      else hi = mid;
    }
    const earliest = first[lo]!.x === x ? second[lo]! : first[lo]!.at;
    x.othersOpen = earliest < x.receivedAt;
  }
}

/** The judge's options for a recording: how long after a transition its event may come (its webhook side's other settings read from the recording). */
export interface RecordedOptions extends Omit<JudgeOptions, 'timeOrigin' | 'webhooks'> {
  webhookWindowMs?: number;
}

/**
 * A recording judged as `paylater judge` judges it: the API hosts' exchanges and the webhook
 * deliveries, in the order they ended (as the proxy judges them), the events' window swept as the
 * recording's time passes (as often as the proxy sweeps it) and at its end. Deliveries are judged
 * (their payloads by the AsyncAPI document; not their signatures: the proxy's HAR masks them, and
 * the secret is not the recording's), and events expected of transitions, only when the recording
 * holds some: their URL's port is where an endpoint answered pointing sends its events to the ear,
 * as the proxy's webhook port is.
 */
export async function judgeRecorded<X extends Exchange>(
  har: {
    exchanges: X[];
    deliveries?: (Delivery & { url: string })[];
    /** Requests the recording holds no answer to: what they did is not known (`Judge.unjudged`). */
    unanswered?: { method: string; url: string; headers: Record<string, string> }[];
  },
  o: RecordedOptions = {},
): Promise<Judged<X>> {
  const deliveries = har.deliveries ?? [];
  const port = deliveries.length ? Number(new URL(deliveries[0]!.url).port) || undefined : undefined;
  const { webhookWindowMs: windowMs = defaultWebhookWindowMs(), ...options } = o;
  const webhooks = deliveries.length ? { windowMs, port, validators: asyncApiValidators() } : undefined;
  const judge = createJudge({ ...options, timeOrigin: 0, webhooks });
  for (const call of har.unanswered ?? []) judge.unjudged(call);
  const origins = apiOrigins(har.exchanges);
  const mine = har.exchanges.filter((x) => origins.has(new URL(x.url).origin));
  markOthersOpen(mine);
  const timeline: { at: number; seq: number; x?: Exchange; d?: Delivery }[] = [
    ...mine.map((x) => ({ at: x.receivedAt, seq: x.seq, x })),
    ...deliveries.map((d) => ({ at: d.receivedAt, seq: d.seq, d })),
  ].sort((a, b) => a.at - b.at || a.seq - b.seq);
  const findings: EarFinding[] = [];
  const every = sweepEveryMs(windowMs);
  let swept = timeline[0]?.at ?? 0;
  for (const { at, x, d } of timeline) {
    if (deliveries.length && at - swept >= every) findings.push(...judge.sweep((swept = at)));
    if (d) findings.push(...judge.delivery(d));
    else
      try {
        findings.push(...judge.exchange(x!).filter((f) => !aboutMasked(f, x!)));
      } catch (e) {
        // as the proxy words an exchange its judge could not judge
        findings.push({
          kind: 'upstream',
          operation: x!.opId ?? `${x!.method} ${new URL(x!.url).pathname}`,
          jsonPath: '$',
          message: `this exchange could not be judged: ${(e as Error).message}`,
          exchanges: [x!.seq],
        });
      }
  }
  if (timeline.length) findings.push(...judge.sweep(timeline.at(-1)!.at));
  return { findings, judge, exchanges: mine, otherHosts: har.exchanges.length - mine.length };
}
