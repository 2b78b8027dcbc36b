/**
 * The webhook retry schedule in the sandbox (`x-webhook-delivery.retry`, ADR-005), checked after the
 * tour, with the suite's own receiver (`retry-receiver.ts`) as the main merchant's endpoint for a
 * moment. One transaction is created and cancelled for each case, its event answered:
 * - 500 every time: the attempts the compressed schedule makes in a few seconds of real time come
 *   by themselves (delays ± jitter, divided by the sandbox compression); each later one is made due by
 *   advancing the merchant's sandbox clock to its `nextAttemptAt`, whose distance from the attempt
 *   before is checked against the schedule. After the last: `failed`, no `nextAttemptAt`, and no
 *   further attempt when the clock moves on. Every attempt carries the same `webhook-id` and body.
 * - 429, then 503 (`respectRetryAfter`), with `Retry-After` (delta-seconds, then an HTTP date)
 *   longer than the schedule's delay, then 204: each next attempt is due when the header says, then
 *   the event is delivered.
 * - 410: one attempt, the delivery `disabled`, the endpoint shown disabled, a later event not sent.
 * Any other event coming meanwhile (e.g. an expiry the clock's moves cause) is answered 500. Then the
 * endpoint is set back (a PUT enables it again) and read back: the same URL and secret, enabled (an
 * endpoint found disabled is left enabled: only a 410 disables one). Black-box: the schedule is read
 * from generated/; the clock moves by `advanceMainClock`, so the model's offset stays right.
 *
 * The rule's judgements are the judge's (judge/deliveries.ts `judgeListedDelivery`, the model's
 * `deliveryProblems`; `judgeEndpoint`), called here on every delivery the checks list, and a
 * webhook received again (`isRepeat`, through `judgeRepeat`: the same webhook-id
 * carries the same body; the webhook judge calls it on every delivery).
 */
import { webhookDelivery } from '../generated/index.ts';
import { LATE_SLACK_MS, MAX_ATTEMPTS, retryWindow, EARLY_SLACK_MS } from '../model/retry.ts';
import { ConformanceError } from '../judge/answer.ts';
import { judgeEndpoint, judgeListedDelivery, judgeRepeat } from '../judge/deliveries.ts';
import { advanceMainClock } from './commands/advanceClock.ts';
import { RetryReceiver, type Plan } from './retry-receiver.ts';
import {
  attemptDue,
  cancelledEvent,
  checkAttempt,
  checkDue,
  checkEnded,
  checkSameEvent,
  deliveryOf,
  getEndpoint,
  OP,
  setUrl,
  type Delivery,
  type Endpoint,
} from './retry-steps.ts';
import type { World } from './world.ts';
import { flushWitnesses } from './witness.ts';

const RETRY = webhookDelivery.retry;
/** Attempts whose whole compressed schedule fits in a few seconds: waited for and checked. */
const BUDGET_MS = 3000;
/**
 * The attempts the compressed schedule makes within this are waited for in real time (their gaps
 * measured); each later one is made due on the sandbox clock (`attemptDue`, its `nextAttemptAt`
 * checked against the schedule). A second holds the first three (0, 5 s and 300 s ÷ 1000); the
 * fourth (1800 s ÷ 1000) waited in real time cost every run about 2 s of idle time.
 */
const REAL_TIME_MS = 1000;
/** Between an answer and the server reckoning the next attempt from it (a due time it computes). */
const RECKON_SLACK_MS = 1000;
/** The suite's and the server's real clocks may differ this much (an HTTP-date Retry-After is read on the server's). */
const SKEW_MS = 2000;
/** How long an attempt that must not come is waited for. */
const QUIET_MS = 250;

/** How many attempts the compressed schedule makes within BUDGET_MS at the latest. */
export function attemptsWithin(budgetMs: number): number {
  let t = 0;
  let n = 0;
  while (n < MAX_ATTEMPTS && t + retryWindow(n)[1] <= budgetMs) t += retryWindow(n++)[1];
  return n;
}

const needed = [
  'sandboxGetWebhookEndpoint',
  'sandboxSetWebhookEndpoint',
  'sandboxListWebhookDeliveries',
  'sandboxAdvanceClock',
  'createPartnerTransaction',
  'cancelPartnerTransactionByVendorReference',
];

/** Whether the contract has the sandbox operations the retry schedule's check needs. */
export function retryScheduleCheckable(w: World): boolean {
  return needed.every((op) => w.contract.has(op));
}

/**
 * Runs the checks; a failing one throws the suite's ConformanceError. Returns the attempts of the
 * failing schedule checked (0 when the variant lacks the sandbox operations).
 * @checks ADR-005, webhook-retries
 */
export async function checkRetrySchedule(w: World): Promise<number> {
  if (!retryScheduleCheckable(w)) return 0;
  const rx = new RetryReceiver();
  await rx.start();
  // set back by `restore` once the checks passed, else at once (also after an interrupt), before the receiver closes
  let original: Endpoint | undefined;
  let restoring = false;
  try {
    original = await getEndpoint(w);
    await setUrl(w, rx.url);
    const n = await checkSchedule(w, rx);
    await checkRetryAfter(w, rx);
    await checkGone(w, rx);
    restoring = true;
    await restore(w, original);
    // the other merchant after the endpoint's changes and the clock's moves: as it was (witness.ts)
    await flushWitnesses(w);
    return n;
  } finally {
    try {
      const url = original?.url;
      if (!restoring && url !== undefined) await w.client.cleanup(() => setUrl(w, url)).catch(() => undefined);
    } finally {
      await rx.close();
    }
  }
}

/** `d` as listed, judged against the schedule (`judgeListedDelivery`); returns `d`. */
function listed(w: World, d: Delivery): Delivery {
  for (const p of judgeListedDelivery(d, false)?.problems ?? [])
    w.check(false, OP, `$.data[].${p.path}`, `delivery ${d.id}: ${p.message} (ADR-005)`, p.expected, p.actual);
  return d;
}

/**
 * Whether webhook `id` (event `ev`) was received before: a repeat carries the same event, the
 * same JSON value whatever the order of its members (a changed one throws the suite's
 * ConformanceError); a first one is remembered.
 * @checks webhook-retries
 */
export function isRepeat(w: World, ev: string, id: string, body: string): boolean {
  const prior = w.seenWebhookIds.get(id);
  const repeat = judgeRepeat(w.seenWebhookIds, id, body, Infinity);
  if (repeat === 'changed')
    throw new ConformanceError(`webhook ${ev}`, '$', `a repeat of webhook-id ${id} has a different body`, prior, body);
  return repeat === 'same';
}

/** Every attempt, in real time while the schedule is short, then on the sandbox clock; then nothing more. */
async function checkSchedule(w: World, rx: RetryReceiver): Promise<number> {
  const txId = await cancelledEvent(w, rx, () => ({ status: 500 }));
  const want = attemptsWithin(REAL_TIME_MS);
  const waitMs = REAL_TIME_MS + 2 * LATE_SLACK_MS;
  let d = listed(w, await deliveryOf(w, txId, (x) => x.attempts.length >= want, waitMs));
  w.check(
    d.attempts.length >= want,
    OP,
    '$.data[].attempts',
    `${d.attempts.length} attempt(s) listed for a receiver answering 500, after ${(waitMs / 1000).toFixed(1)} s; the sandbox schedule (delays ${RETRY.delaysSeconds.slice(0, want).join(', ')} s ÷ ${RETRY.sandboxCompression}) makes ${want}`,
    want,
    d.attempts.length,
  );
  const at = d.attempts.map((a) => Date.parse(a.at));
  for (let i = 0; i < d.attempts.length; i++) {
    checkAttempt(w, d, i, 500);
    if (i === 0) continue;
    const [lo, hi] = retryWindow(i);
    const gap = at[i]! - at[i - 1]!;
    w.check(
      gap >= lo - EARLY_SLACK_MS && gap <= hi + LATE_SLACK_MS,
      OP,
      `$.data[].attempts[${i}].at`,
      `attempt ${i + 1} came ${gap} ms after attempt ${i}; the sandbox schedule says ${scheduleSays(i)}`,
      [lo, hi],
      gap,
    );
  }
  while (d.attempts.length < MAX_ATTEMPTS) {
    const n = d.attempts.length;
    checkDue(w, d, retryWindow(n), LATE_SLACK_MS, `the sandbox schedule says ${scheduleSays(n)}`);
    d = listed(w, await attemptDue(w, txId, d));
    for (let i = n; i < d.attempts.length; i++) checkAttempt(w, d, i, 500);
  }
  w.check(
    d.attempts.length === MAX_ATTEMPTS,
    OP,
    '$.data[].attempts',
    `${d.attempts.length} attempts listed; the schedule makes ${MAX_ATTEMPTS}`,
    MAX_ATTEMPTS,
    d.attempts.length,
  );
  checkEnded(w, d, 'failed', `after the schedule's last attempt (${MAX_ATTEMPTS}) failed`);
  // nothing more when the clock moves past the longest delay
  const seen = rx.of(txId).length;
  await advanceMainClock(w, Math.ceil(retryWindow(MAX_ATTEMPTS - 1)[1] / 1000) + 1);
  await w.client.pause(QUIET_MS);
  const after = listed(w, await deliveryOf(w, txId, () => true, 0));
  w.check(
    after.attempts.length === MAX_ATTEMPTS && rx.of(txId).length === seen,
    OP,
    '$.data[].attempts',
    `after the schedule ended (state ${after.state}) and the sandbox clock moved on, ${after.attempts.length} attempts are listed and the receiver got ${rx.of(txId).length - seen} more request(s)`,
    MAX_ATTEMPTS,
    after.attempts.length,
  );
  checkSameEvent(w, after, rx.of(txId));
  return MAX_ATTEMPTS;
}

/** `Retry-After` on each status that asks for it: delta-seconds first, then an HTTP date; then a 2xx. */
async function checkRetryAfter(w: World, rx: RetryReceiver): Promise<void> {
  const statuses: readonly number[] = RETRY.respectRetryAfter;
  if (!statuses.length) return;
  // longer than the delay the schedule would take; the date a few seconds further (whole seconds, the clocks' skew)
  const seconds = Math.max(2, Math.ceil(retryWindow(1)[1] / 1000) + 1);
  const dateSeconds = Math.ceil(retryWindow(2)[1] / 1000) + 4;
  const forms: Plan[] = [
    () => ({ status: statuses[0]!, headers: { 'retry-after': String(seconds) } }),
    () => ({
      status: statuses[1 % statuses.length]!,
      headers: { 'retry-after': new Date((Math.floor(Date.now() / 1000) + dateSeconds) * 1000).toUTCString() },
    }),
  ];
  const txId = await cancelledEvent(w, rx, (n) => forms[n - 1]?.(n) ?? { status: 204 });
  let d = listed(w, await deliveryOf(w, txId, (x) => x.attempts.length >= 1, BUDGET_MS + LATE_SLACK_MS));
  for (let i = 0; i < forms.length; i++) {
    const r = rx.of(txId)[i];
    w.check(
      d.attempts.length === i + 1 && r !== undefined,
      OP,
      '$.data[].attempts',
      `${d.attempts.length} attempt(s) listed and ${rx.of(txId).length} request(s) received; the receiver answered ${i + 1} with Retry-After`,
      i + 1,
      d.attempts.length,
    );
    const header = r!.answer.headers!['retry-after']!;
    checkAttempt(w, d, i, r!.answer.status);
    const wait = /^\d+$/.test(header) ? Number(header) * 1000 : Date.parse(header) - r!.answeredAt;
    const slack = /^\d+$/.test(header) ? 0 : SKEW_MS;
    checkDue(
      w,
      d,
      [wait - slack, wait + slack],
      RECKON_SLACK_MS,
      `the receiver answered ${r!.answer.status} with Retry-After: ${header} (${(wait / 1000).toFixed(1)} s), longer than the schedule's ${scheduleSays(i + 1)}: the next attempt is due when the header says (ADR-005)`,
    );
    d = listed(w, await attemptDue(w, txId, d));
  }
  checkAttempt(w, d, forms.length, 204);
  checkEnded(w, d, 'delivered', `after the receiver answered 204 on attempt ${forms.length + 1}`);
  checkSameEvent(w, d, rx.of(txId));
}

/** A 410 disables the endpoint: one attempt, the delivery `disabled`, a later event not sent. */
async function checkGone(w: World, rx: RetryReceiver): Promise<void> {
  const gone = RETRY.disableOn[0];
  if (gone === undefined) return;
  const txId = await cancelledEvent(w, rx, () => ({ status: gone }));
  const settled = (x: Delivery): boolean => x.attempts.length >= 1 && x.state !== 'pending';
  const d = listed(w, await deliveryOf(w, txId, settled, BUDGET_MS + LATE_SLACK_MS));
  w.check(d.attempts.length >= 1, OP, '$.data[].attempts', `no attempt listed for the event`, 1, d.attempts.length);
  checkAttempt(w, d, 0, gone);
  w.check(
    d.attempts.length === 1,
    OP,
    '$.data[].attempts',
    `${d.attempts.length} attempts listed; the receiver answered ${gone}, which disables the endpoint (ADR-005)`,
    1,
    d.attempts.length,
  );
  checkEnded(w, d, 'disabled', `after the receiver answered ${gone}`);
  const ep = await getEndpoint(w);
  w.check(
    judgeEndpoint({ set: false, enabled: ep.enabled }, true) === null,
    'sandboxGetWebhookEndpoint',
    '$.enabled',
    `the endpoint answered ${gone} and is shown enabled`,
    false,
    ep.enabled,
  );
  const later = await cancelledEvent(w, rx, () => ({ status: 204 }));
  const l = listed(w, await deliveryOf(w, later, (x) => x.state !== 'pending', BUDGET_MS + LATE_SLACK_MS));
  w.check(
    l.attempts.length === 0 && rx.of(later).length === 0,
    OP,
    '$.data[].attempts',
    `an event after the endpoint was disabled by a ${gone} was sent: ${l.attempts.length} attempt(s) listed, ${rx.of(later).length} request(s) received`,
    0,
    l.attempts.length,
  );
  checkEnded(w, l, 'disabled', `for an event after the endpoint was disabled by a ${gone}`);
}

/** Sets the URL found at the start back; the endpoint must read as it was, enabled (a PUT enables it). */
async function restore(w: World, original: Endpoint): Promise<void> {
  const put = await setUrl(w, original.url);
  if (original.url !== null)
    w.check(
      judgeEndpoint({ set: true, enabled: put.enabled }, false) === null,
      'sandboxSetWebhookEndpoint',
      '$.enabled',
      `the PUT that set the URL back answered the endpoint disabled; a PUT of a URL enables it (ADR-042)`,
      true,
      put.enabled,
    );
  const now = await getEndpoint(w);
  const want: Endpoint = { url: original.url, secret: original.secret ?? now.secret, enabled: true };
  for (const k of ['url', 'secret', 'enabled'] as const)
    w.check(
      now[k] === want[k],
      'sandboxGetWebhookEndpoint',
      `$.${k}`,
      `after the URL was set back (a PUT enables an endpoint a 410 disabled), ${k} is ${String(now[k])}`,
      want[k],
      now[k],
    );
}

function scheduleSays(n: number): string {
  const [lo, hi] = retryWindow(n);
  return `${RETRY.delaysSeconds[n]} s ± ${RETRY.jitter * 100} % ÷ ${RETRY.sandboxCompression} = ${lo.toFixed(0)}–${hi.toFixed(0)} ms`;
}
