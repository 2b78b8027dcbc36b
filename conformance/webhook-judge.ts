/**
 * Judging received webhooks against the model: each delivery is signed and valid (checked by the
 * receiver), not a changed repeat, and matches one event the model expects from a transition it
 * saw; an expected event that never arrives is a finding.
 */
import { ConformanceError } from '../judge/answer.ts';
import { transitionById, EXPIRY, INITIAL } from '../model/index.ts';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, SIGNATURE_PROBLEM, type Delivery } from './webhooks.ts';
import { JudgeFindingError } from './http.ts';
import { centimesOf } from '../lib/money.ts';
import { sameJson } from '../model/index.ts';
import { isRepeat } from './retries.ts';
import type { Tx, World } from './world.ts';
import { checkExpiryInstant, windowPassed } from './commands/advanceClock.ts';
import { checkEventInstant } from './instants.ts';
import { checkCheckoutEventValues, type Report } from './repeated.ts';

/** The shortest quiet wait after a run (ms), however fast the server's deliveries were. */
const MIN_GRACE_MS = 10;
/** How many of the latest deliveries' latencies the quiet wait is reckoned from. */
export const DELIVERY_SAMPLE = 200;

/**
 * How long a run's end waits for deliveries nobody expects (an event sent twice, or without its
 * transition): `graceMs`, or, once deliveries were seen, twice the 90th percentile of the latest
 * deliveries' latencies (at least MIN_GRACE_MS) when that is shorter. A server's unsolicited events
 * travel the path its real ones do; one that comes later still is judged at the next run's end,
 * against the model, and reported there (naming the earlier run that created its transaction):
 * never missed, found a run later. A percentile, not the slowest: one slow delivery (a server
 * process's first, its code not yet compiled; a pause) held every later wait at `graceMs`, about
 * 5 s of a command-line run's 33 waits.
 */
export function graceFor(w: World, graceMs: number): number {
  const sorted = [...w.deliveryLatencies].sort((a, b) => a - b);
  if (sorted.length === 0) return graceMs;
  const p90 = sorted[Math.ceil(0.9 * sorted.length) - 1]!;
  return Math.min(graceMs, Math.max(MIN_GRACE_MS, 2 * p90));
}

/** The event x-state-machine emits on expiry: seeing it resolves an expiry the model left open. */
const EXPIRY_EVENT = transitionById('expire').emits;

/**
 * Waits for the events this run expects, then judges every new delivery.
 * @checks webhook-events, ADR-003, ADR-004
 */
export async function webhookCheckpoint(w: World, graceMs: number, timeoutMs = DEFAULT_WEBHOOK_TIMEOUT_MS): Promise<void> {
  const r = w.receiver;
  if (!r) return;
  const deadline = performance.now() + timeoutMs;
  const matched = new Set<number>();
  const pending = (): number => w.state.expected.filter((_, i) => !matched.has(i)).length;
  let quietUntil = performance.now() + graceFor(w, graceMs);
  for (;;) {
    while (w.judged < r.deliveries.length) judge(w, r.deliveries[w.judged++]!, matched);
    const now = performance.now();
    if (pending() === 0 && now >= quietUntil) break;
    if (now >= deadline) break;
    await r.waitForDelivery(Math.min(50, Math.max(1, (pending() ? deadline : quietUntil) - now)));
    if (pending() === 0 && quietUntil < performance.now()) quietUntil = performance.now();
  }
  // what the judge found in the deliveries (the rules it holds alone: an event against its transaction's whole history)
  const found = w.deliveryFindings.splice(0);
  if (found.length) throw new JudgeFindingError(found[0]!);
  const missing = w.state.expected.find((_, i) => !matched.has(i));
  // every expected event was matched: forget them so the next run starts clean
  w.state.expected.splice(0, w.state.expected.length);
  if (missing)
    throw new ConformanceError(
      `webhook ${missing.event}`,
      '$',
      `transition ${missing.transition} of transaction ${missing.txId} emitted no ${missing.event} (x-state-machine emits it)`,
      missing.event,
      'no delivery',
    );
}

/**
 * One delivery against the model: ignored (an abandoned run's, the other merchant's, or older than
 * the suite), a repeat, or one expected event. The receiver may serve both merchants (one URL for
 * both keys): a delivery about the other merchant's transaction, or one that does not verify with
 * this merchant's secret and names no transaction of this merchant, is the other merchant's.
 */
function judge(w: World, d: Delivery, matched: Set<number>): void {
  const ev = d.payload?.event ?? '?';
  const txId = d.payload?.data?.id ?? '';
  const tx = w.state.txs.get(txId);
  if (tx && (w.state.abandonedRuns.has(tx.runId) || tx.who === 'other')) {
    w.ignoredEvents++;
    return;
  }
  if (!tx && d.problems.some((p) => p.startsWith(SIGNATURE_PROBLEM))) {
    w.ignoredEvents++;
    return;
  }
  if (d.problems.length) throw new ConformanceError(`webhook ${ev}`, '$', d.problems[0]!, 'a valid signed delivery', d.webhookId);
  const id = d.webhookId!;
  // a repeat (webhook-retries: the same webhook may arrive more than once) carries the same event
  if (isRepeat(w, ev, id, d.body)) return;
  if (!tx) {
    if ((d.payload?.data?.createdAt ?? '') < w.suiteStartIso) {
      w.ignoredEvents++;
      return;
    }
    throw new ConformanceError(
      `webhook ${ev}`,
      '$.data.id',
      `event for transaction ${txId}, which this run never saw make a transition`,
      'no event',
      ev,
    );
  }
  if (ev === EXPIRY_EVENT && tx.status === INITIAL && windowPassed(w.state, tx, performance.now()) !== 'no') w.observe(tx, EXPIRY.to);
  const i = w.state.expected.findIndex((x, j) => !matched.has(j) && x.txId === txId && x.event === ev);
  if (i < 0)
    throw new ConformanceError(
      `webhook ${ev}`,
      '$',
      `${ev} for transaction ${txId} (status ${tx.status}${tx.runId !== w.state.runId ? `, created by an earlier run, #${tx.runId}` : ''}) without its transition, or a second event for one transition with a new webhook-id ${id}`,
      'no event',
      ev,
    );
  matched.add(i);
  w.deliveryLatencies.push(d.receivedAt - w.state.expected[i]!.at);
  if (w.deliveryLatencies.length > DELIVERY_SAMPLE) w.deliveryLatencies.shift();
  checkPayload(w, ev, d, tx, transitionById(w.state.expected[i]!.transition).to);
}

/** Payload field → the field of the transaction as read through the API (B1/B2) it must equal. */
const PAYLOAD_FIELDS: Record<string, string> = {
  vendorReference: 'vendorReference',
  orderReference: 'orderReference',
  currency: 'currency',
  customerPhone: 'customerPhone',
  merchantName: 'merchantName',
  storeName: 'storeName',
  createdAt: 'createdAt',
};

/** The event's data against the transaction as the API showed it: amount in MAD, ids, references, names, phone, dates, status. */
function checkPayload(w: World, ev: string, d: Delivery, tx: Tx, status: string): void {
  const data = (d.payload?.data ?? {}) as Record<string, unknown>;
  const fail = (path: string, msg: string, expected: unknown, actual: unknown): never => {
    throw new ConformanceError(`webhook ${ev}`, path, `webhook-id ${d.webhookId} for transaction ${tx.id}: ${msg}`, expected, actual);
  };
  if (data.status !== status)
    fail('$.data.status', `status ${String(data.status)}, the transition leads to ${status}`, status, data.status);
  const amount = tx.kind === 'partner' ? tx.created.totalAmount : tx.session?.total;
  if (amount !== undefined && centimesOf(data.amount) !== centimesOf(amount))
    fail('$.data.amount', `amount ${String(data.amount)}, the transaction's amount is ${JSON.stringify(amount)} MAD`, amount, data.amount);
  // names learned once are the same in every event, of both kinds of transaction
  for (const f of ['merchantName', 'storeName'] as const) {
    const known = w.state.names[tx.who][f];
    if (f in data && known !== undefined && data[f] !== known)
      fail(`$.data.${f}`, `${f} ${JSON.stringify(data[f])}, the merchant's ${f} is ${JSON.stringify(known)} in the API`, known, data[f]);
  }
  if (ev === EXPIRY_EVENT) checkExpiryInstant(w, tx, `webhook ${ev}`, '$.data.expiredAt', data.expiredAt);
  const report: Report = (ok, path, msg, expected, actual) => {
    if (!ok) fail(path, msg, expected, actual);
  };
  // the approval's instant is the move's that approved it, in both kinds of transaction
  if (status === 'APPROVED') checkEventInstant(w, report, tx, 'APPROVED', '$.data.approvedAt', data.approvedAt);
  if (tx.kind !== 'partner') return checkCheckoutEventValues(report, tx, data);
  for (const [f, recField] of Object.entries(PAYLOAD_FIELDS)) {
    if (!sameJson(data[f], tx.created[recField]))
      fail(
        `$.data.${f}`,
        `${f} ${JSON.stringify(data[f])}, the API read ${JSON.stringify(tx.created[recField])}`,
        tx.created[recField],
        data[f],
      );
  }
}
