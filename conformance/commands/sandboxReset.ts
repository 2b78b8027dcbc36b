/**
 * ADR-041 (sandbox): the reset, judged by what it changed and what it must not have changed.
 * - `SandboxReset` (the tour's last command): with A1 rate-limited and the clock advanced, the reset
 *   answers offset 0, `now` the real time, nothing deleted; the clock then reads offset 0 and A1
 *   answers again; the merchant's records and its webhook endpoint are as they were. The other
 *   merchant's sandbox is its own: its clock (moved a second first, so a reset of it shows) and
 *   every state the witnesses read (`witness.ts`), and its A1 window, which keeps its count
 *   (`RateLimit-Remaining` goes on from where it was). It moves the merchant's time back, so the
 *   model follows.
 * - `SandboxDataReset` (the tour's last, once the events it expects were delivered and judged, so
 *   none is deleted on its way): with `deleteData`,
 *   `deleted` counts exactly the transactions, SMS and webhook deliveries the merchant's lists held
 *   just before (read to their end), and at least the sessions its key created; then those lists
 *   are empty and a former transaction reads as missing, the webhook endpoint is kept, and the
 *   other merchant's lists hold what they held. The model forgets the merchant's records.
 */
import { changedMembers, resetCountProblems, type HeldCounts } from '../../model/index.ts';
import type { Exchange } from '../http.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import type { Who } from '../model-state.ts';
import { webhookCheckpoint } from '../webhook-judge.ts';
import { flushWitnesses, inContext } from '../witness.ts';
import { advanceClockMs, advanceMainClock } from './advanceClock.ts';
import { rateLimit, sendSession, spendWindow } from './createSession.ts';
import { readAllPages } from './smsOutbox.ts';

type Json = Record<string, unknown>;
const RESET = 'sandboxReset';
const ENDPOINT = 'sandboxGetWebhookEndpoint';
const LISTS = ['sandboxListTransactions', 'sandboxListSms', 'sandboxListWebhookDeliveries'] as const;
/** The quiet wait after the expected deliveries before the data is deleted (ms): the run's default grace. */
const GRACE_MS = 150;

/** The reset's answer: offset 0, `now` the merchant's time (real time again, the model's clock already moved back), `deleted` as `held` says. */
function judgeReset(w: Real, reset: Exchange, held: HeldCounts | null): void {
  const rec = (reset.json ?? {}) as Json;
  w.check(
    rec.offsetSeconds === 0,
    RESET,
    '$.offsetSeconds',
    `the reset answered offset ${String(rec.offsetSeconds)}`,
    0,
    rec.offsetSeconds,
  );
  w.checkInstant(reset, '$.now', rec.now, 'the real time of the reset');
  for (const p of resetCountProblems(rec.deleted, held))
    w.check(
      false,
      RESET,
      `$.deleted.${p.member}`,
      held
        ? `the reset with deleteData answered deleted.${p.member} ${String(p.actual)}; the merchant's lists held ${p.expected} just before (ADR-041)`
        : `the reset without deleteData answered deleted.${p.member} ${String(p.actual)}: it deletes nothing (ADR-041)`,
      p.expected,
      p.actual,
    );
}

/** The model after a reset of the main merchant's clock: real time again, its A1 window empty. */
function clockBack(w: Real): void {
  w.state.advanced.main = -(w.state.clockBase ?? 0);
  w.state.rate.main = { usedLo: 0, usedHi: 0, endLo: -Infinity, endHi: Infinity };
}

async function readEndpoint(w: Real): Promise<unknown> {
  if (!w.contract.has(ENDPOINT)) return undefined;
  const ex = await w.client.call(ENDPOINT, { headers: w.auth(ENDPOINT, w.cfg.apiKey) });
  w.expectOutcome(ex, [w.success(ENDPOINT)]);
  return ex.json;
}

/** The main merchant's webhook endpoint as it was before the reset (ADR-041: the settings are kept). */
async function endpointKept(w: Real, before: unknown, how: string): Promise<void> {
  if (before === undefined) return;
  const after = await readEndpoint(w);
  // a previous secret's window is on the merchant's clock, which the reset moves: it may open or close again
  const changed = changedMembers(before, after, ['previousSecret', 'previousSecretExpiresAt']);
  w.check(
    changed.length === 0,
    ENDPOINT,
    `$.${changed[0] ?? ''}`,
    `after the reset ${how}, the merchant's webhook endpoint changed (${changed.join(', ')}): its settings are kept (ADR-041)`,
    before,
    after,
  );
}

/** @checks ADR-041 */
export class SandboxReset implements Cmd {
  constructor(readonly session: Json) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(RESET);
  }
  async run(m: Model, w: Real): Promise<void> {
    const limit = rateLimit(w.state).limit;
    const limited = await spendWindow(m, w, this.session, true);
    w.check(limited, 'createSession', '$', `no 429 after ${limit + 2} requests in one window`, 429);
    // the clock moved a minute, the window still spent (at most to its earliest end less a second)
    const end = w.state.rate.main.endLo - w.state.advanced.main * 1000 - performance.now();
    const secs = Math.min(60, Number.isFinite(end) ? Math.floor(end / 1000) - 1 : 60);
    if (secs >= 1) await advanceMainClock(w, secs);
    // the other merchant: its clock a second ahead and one A1 request in its window, read back after the reset
    await advanceClockMs(w, 'other', 1000);
    await sendSession(m, w, this.session, 'other', false);
    await flushWitnesses(w);
    const endpoint = await readEndpoint(w);
    const kept = [...w.state.txs.values()]
      .filter((t) => t.who === 'main' && t.kind === 'partner' && !w.state.abandonedRuns.has(t.runId))
      .at(-1);

    const reset = await w.client.call(RESET, { headers: w.auth(RESET, w.cfg.apiKey), body: {} });
    w.expectOutcome(reset, [w.success(RESET)]);
    clockBack(w);
    judgeReset(w, reset, null);
    const offsetOf = (j: unknown) => (j as { offsetSeconds?: unknown } | undefined)?.offsetSeconds;
    const clock = await w.client.call('sandboxGetClock', { headers: w.auth('sandboxGetClock', w.cfg.apiKey) });
    w.expectOutcome(clock, [w.success('sandboxGetClock')]);
    w.check(
      offsetOf(clock.json) === 0,
      'sandboxGetClock',
      '$.offsetSeconds',
      `after the reset the clock reads offset ${String(offsetOf(clock.json))} (ADR-041)`,
      0,
      offsetOf(clock.json),
    );
    const after = await sendSession(m, w, this.session);
    w.check(
      after === 'created',
      'createSession',
      '$',
      `A1 after the reset was ${after}, the reset forgets the rate-limit window (ADR-041)`,
      'created',
      after,
    );
    // what it must not have changed: the merchant's records and endpoint; the other merchant's A1 window
    if (kept) {
      const op = 'getPartnerTransaction';
      const read = await w.client.call(op, { pathParams: { transactionId: kept.id }, headers: w.auth(op, w.cfg.apiKey) });
      w.check(
        read.status !== 404,
        op,
        '$',
        `after the reset without deleteData, transaction ${kept.id} reads as missing: it deletes nothing (ADR-041)`,
        200,
        read.status,
      );
    }
    await endpointKept(w, endpoint, 'without deleteData');
    await inContext("after the main merchant's reset, the other merchant's A1 window (ADR-041: the caller's windows only)", () =>
      sendSession(m, w, this.session, 'other', false),
    );
  }
  toString(): string {
    return 'sandboxReset(after a full A1 window and a clock advance; the other merchant a second ahead)';
  }
}

/** A merchant's three lists read to their end (pages of the largest `limit`): their items' ids. */
async function listed(w: Real, who: Who): Promise<Record<(typeof LISTS)[number], string[]>> {
  const out = {} as Record<(typeof LISTS)[number], string[]>;
  for (const op of LISTS) {
    const max = (w.contract.parameters(op).find((p) => p.name === 'limit')?.schema as { maximum?: number } | undefined)?.maximum;
    const { items } = await readAllPages(w, op, max ? { limit: String(max) } : {}, w.key(who));
    out[op] = items.map((i) => String(i.id));
  }
  return out;
}

/** @checks ADR-041 */
export class SandboxDataReset implements Cmd {
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(RESET) && LISTS.every((op) => m.state.contract.has(op));
  }
  async run(_m: Model, w: Real): Promise<void> {
    // the deliveries the run expects so far are received and judged first: the reset deletes the outbox
    await webhookCheckpoint(w, GRACE_MS);
    const before = await listed(w, 'main');
    const others = await listed(w, 'other');
    const endpoint = await readEndpoint(w);
    const former = [...w.state.txs.values()].find((t) => t.who === 'main' && t.kind === 'partner');
    const held: HeldCounts = {
      transactions: before.sandboxListTransactions.length,
      sms: before.sandboxListSms.length,
      deliveries: before.sandboxListWebhookDeliveries.length,
      sessionsAtLeast: w.state.sessionsCreated.main,
    };
    const reset = await w.client.call(RESET, { headers: w.auth(RESET, w.cfg.apiKey), body: { deleteData: true } });
    w.expectOutcome(reset, [w.success(RESET)]);
    clockBack(w);
    // the model: the merchant's records are gone
    for (const t of [...w.state.txs.values()]) if (t.who === 'main') w.state.txs.delete(t.id);
    w.state.usedVendorRefs.main.clear();
    judgeReset(w, reset, held);
    // its lists are empty, a former transaction is missing, its endpoint is kept
    for (const op of LISTS) {
      const page = await w.client.call(op, { headers: w.auth(op, w.cfg.apiKey), query: { limit: '1' } });
      w.expectOutcome(page, [w.success(op)]);
      const data = ((page.json as Json | undefined)?.data as Json[] | undefined) ?? [];
      w.check(
        data.length === 0,
        op,
        '$.data',
        `after the reset with deleteData the merchant's ${w.contract.op(op).path} still lists ${String(data[0]?.id)}`,
        [],
        data.map((d) => d.id),
      );
    }
    if (former) {
      const op = 'getPartnerTransaction';
      const read = await w.client.call(op, { pathParams: { transactionId: former.id }, headers: w.auth(op, w.cfg.apiKey) });
      w.expectOutcome(read, [refusal('TRANSACTION_NOT_FOUND')]);
    }
    await endpointKept(w, endpoint, 'with deleteData');
    // the other merchant's records are its own
    const now = await listed(w, 'other');
    for (const op of LISTS) {
      const gone = others[op].filter((id) => !now[op].includes(id));
      w.check(
        gone.length === 0,
        op,
        '$.data',
        `after the main merchant's reset with deleteData, the other merchant's ${w.contract.op(op).path} no longer lists ${gone.join(', ')} (ADR-041: the caller's data only)`,
        others[op].length,
        now[op].length,
      );
    }
  }
  toString(): string {
    return 'sandboxDataReset(deleteData: the counts against the lists read just before; the other merchant untouched)';
  }
}
