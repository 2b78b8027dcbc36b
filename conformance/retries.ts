/**
 * The webhook retry schedule in the sandbox (`x-webhook-delivery.retry`, ADR-005), checked after the
 * tour: the merchant's endpoint is pointed for a moment at a receiver of the suite that answers 500,
 * one transaction is created and cancelled, and the deliveries list must show the attempts the
 * schedule allows in a few seconds (its delays ± jitter, divided by the sandbox compression), each
 * received with the same `webhook-id`, the next one due when the schedule says. The endpoint is put
 * back as it was. Black-box: the schedule is read from generated/.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { webhookDelivery } from '../generated/index.ts';
import { fixedBody } from './gen.ts';
import { amountRange } from '../generated/index.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

const RETRY = webhookDelivery.retry;
/** Attempts whose whole compressed schedule fits in a few seconds: waited for and checked. */
const BUDGET_MS = 3000;
/** Added to an upper bound: a loaded machine runs timers and requests late, never early. */
const LATE_SLACK_MS = 3000;
/** ISO timestamps have whole milliseconds, and timers may fire a millisecond early. */
const EARLY_SLACK_MS = 3;

/** Bounds (ms) of the wait before attempt `n + 1` after `n` failed attempts. */
export function retryWindow(n: number): [number, number] {
  const d = (RETRY.delaysSeconds[n] ?? NaN) * 1000;
  return [(d * (1 - RETRY.jitter)) / RETRY.sandboxCompression, (d * (1 + RETRY.jitter)) / RETRY.sandboxCompression];
}

/** How many attempts the compressed schedule makes within BUDGET_MS at the latest. */
export function attemptsWithin(budgetMs: number): number {
  let t = 0;
  let n = 0;
  while (n < RETRY.delaysSeconds.length && t + retryWindow(n)[1] <= budgetMs) t += retryWindow(n++)[1];
  return n;
}

const needed = ['sandboxGetWebhookEndpoint', 'sandboxSetWebhookEndpoint', 'sandboxListWebhookDeliveries', 'createPartnerTransaction'];

/**
 * Runs the check; a failing one throws the suite's ConformanceError. Returns the attempts checked
 * (0 when the variant lacks the sandbox endpoint operations).
 * @checks ADR-005
 */
export async function checkRetrySchedule(w: World): Promise<number> {
  if (!needed.every((op) => w.contract.has(op))) return 0;
  const key = w.cfg.apiKey;
  const received: { at: number; id: string | undefined }[] = [];
  const failing = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ at: performance.now(), id: req.headers['webhook-id'] as string | undefined });
      res.writeHead(500, { 'content-type': 'text/plain' }).end('failing on purpose');
    });
  });
  await new Promise<void>((r) => failing.listen(0, '127.0.0.1', () => r()));
  const port = (failing.address() as { port: number }).port;
  const ep = await w.client.call('sandboxGetWebhookEndpoint', { headers: w.auth('sandboxGetWebhookEndpoint', key) });
  w.expectOutcome(ep, [w.success(ep.opId)]);
  const original = (ep.json as { url: string | null }).url;
  const setUrl = async (url: string | null): Promise<void> => {
    const ex = await w.client.call('sandboxSetWebhookEndpoint', { headers: w.auth('sandboxSetWebhookEndpoint', key), body: { url } });
    w.expectOutcome(ex, [w.success(ex.opId)]);
  };
  try {
    await setUrl(`http://127.0.0.1:${port}/fails`);
    const ref = `rt-${randomUUID().slice(0, 18)}`;
    const created = await w.client.call('createPartnerTransaction', {
      headers: w.auth('createPartnerTransaction', key),
      body: { ...fixedBody(w.contract, 'createPartnerTransaction', amountRange.minimum + 100), vendorReference: ref },
    });
    w.expectOutcome(created, [w.success(created.opId)]);
    const txId = (created.json as { id: string }).id;
    const cancel = await w.client.call('cancelPartnerTransactionByVendorReference', {
      pathParams: { vendorReference: ref },
      headers: w.auth('cancelPartnerTransactionByVendorReference', key),
    });
    w.expectOutcome(cancel, [w.success(cancel.opId)]);

    const want = attemptsWithin(BUDGET_MS);
    const waitMs = BUDGET_MS + 2 * LATE_SLACK_MS;
    const deadline = performance.now() + waitMs;
    let delivery: Json | undefined;
    for (;;) {
      const list = await w.client.call('sandboxListWebhookDeliveries', { headers: w.auth('sandboxListWebhookDeliveries', key) });
      w.expectOutcome(list, [w.success(list.opId)]);
      delivery = ((list.json as { data: Json[] }).data ?? []).find((d) => d.transactionId === txId);
      if ((delivery && (delivery.attempts as Json[]).length >= want) || performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const op = 'sandboxListWebhookDeliveries';
    w.check(delivery !== undefined, op, '$.data', `no delivery listed for the cancel of transaction ${txId}`);
    const attempts = delivery!.attempts as Json[];
    w.check(
      attempts.length >= want,
      op,
      '$.data[].attempts',
      `${attempts.length} attempt(s) listed for a receiver answering 500, after ${(waitMs / 1000).toFixed(1)} s; the sandbox schedule (delays ${RETRY.delaysSeconds.slice(0, want).join(', ')} s ÷ ${RETRY.sandboxCompression}) makes ${want}`,
      want,
      attempts.length,
    );
    const at = attempts.map((a) => Date.parse(String(a.at)));
    for (let i = 1; i < want; i++) {
      const [lo, hi] = retryWindow(i);
      const gap = at[i]! - at[i - 1]!;
      w.check(
        gap >= lo - EARLY_SLACK_MS && gap <= hi + LATE_SLACK_MS,
        op,
        `$.data[].attempts[${i}].at`,
        `attempt ${i + 1} came ${gap} ms after attempt ${i}; the sandbox schedule says ${RETRY.delaysSeconds[i]} s ± ${RETRY.jitter * 100} % ÷ ${RETRY.sandboxCompression} = ${lo.toFixed(0)}–${hi.toFixed(0)} ms`,
        [lo, hi],
        gap,
      );
      w.check(
        attempts[i]!.attempt === i + 1,
        op,
        `$.data[].attempts[${i}].attempt`,
        `attempt number ${String(attempts[i]!.attempt)}`,
        i + 1,
      );
      w.check(
        attempts[i]!.status === 500,
        op,
        `$.data[].attempts[${i}].status`,
        `status ${String(attempts[i]!.status)}, the receiver answered 500`,
      );
    }
    if (attempts.length < RETRY.delaysSeconds.length && delivery!.state === 'pending') {
      const [lo, hi] = retryWindow(attempts.length);
      const last = attempts[attempts.length - 1]!;
      const next = Date.parse(String(delivery!.nextAttemptAt)) - Date.parse(String(last.at));
      w.check(
        next >= lo - EARLY_SLACK_MS && next <= hi + Number(last.durationMs) + LATE_SLACK_MS,
        op,
        '$.data[].nextAttemptAt',
        `the next attempt is due ${next} ms after attempt ${attempts.length}; the sandbox schedule says ${lo.toFixed(0)}–${hi.toFixed(0)} ms`,
        [lo, hi],
        next,
      );
    } else
      w.check(delivery!.state === 'pending', op, '$.data[].state', `state ${String(delivery!.state)} while the schedule has attempts left`);
    const seen = received.filter((r) => r.id === delivery!.id).length;
    w.check(
      seen >= want,
      op,
      '$.data[].id',
      `the receiver got ${seen} request(s) with webhook-id ${String(delivery!.id)}; every attempt carries the delivery's id (${attempts.length} listed)`,
      attempts.length,
      seen,
    );
    return want;
  } finally {
    await setUrl(original).catch(() => undefined);
    failing.closeAllConnections();
    await new Promise<void>((r) => failing.close(() => r()));
  }
}
