/**
 * Webhook deliveries (`judgeDelivery`): each verified (Standard Webhooks, the SDK's verifier, at the
 * instant it came), its payload validated against AsyncAPI, a repeat under one webhook-id carrying
 * the same body, then matched to the transitions the exchanges showed: an event expected from each
 * transition that emits one, a received event held until its transition shows (or a later answer
 * rules it out), a transition whose event did not come within the window (`sweepEvents`). Its
 * payload against what the answers showed: the merchant's names, the creation instant, the phone,
 * an expiry's instant at the end of the payment window (ADR-010).
 */
import { stateMachine, webhookDelivery } from '../generated/index.ts';
import { at, expiryInstantAllowed, expiryOf } from '../model/index.ts';
import { verifyWebhook, WebhookVerificationError } from '../sdk/webhooks/verify.ts';
import { iso } from './clock.ts';
import { around, finding, isRecord, sandboxMayChangeUnseen, type FindingOf, type Judging, type Json, type Seen } from './context.ts';
import type { Delivery } from './exchange.ts';
import type { TransactionMemory } from './memory.ts';
import { judgeRepeat } from './deliveries.ts';
import { sameNames } from './names.ts';
import { smallHash } from './prints.ts';
import { both, only, reach, type StatusSet } from './statuses.ts';

const emitting = (event: string) => stateMachine.transitions.filter((x) => x.emits === event);

/** Most events kept per transaction (expected or waiting). */
const EVENTS_PER_TRANSACTION = 6;

/** A transition emitting `event` was seen at `seenAt`: its event is expected (when the merchant's events reach the ear). */
export function expectEvent(j: Judging, tx: TransactionMemory, event: string, transition: string, seenAt: number): void {
  const m = j.memory.merchants.get(tx.merchant);
  // while the merchant's endpoint is answered pointing elsewhere, its events go there
  if (j.settings.webhookWindowMs === undefined || m?.endpoint.elsewhere) return;
  tx.events ??= [];
  const got = tx.events.find((e) => e.received && e.transition === undefined && e.name === event);
  if (got) {
    got.transition = transition;
    j.memory.seen.events.add(event);
    return;
  }
  tx.events.push({ name: event, transition, at: seenAt, received: false });
}

/**
 * Of `statuses` (those an answer sent at `sentAt` may show), the ones the events of `tx` received
 * before it leave: an event came, so the transaction had reached its transition's status.
 */
export function afterEvents(tx: TransactionMemory, sentAt: number, statuses: StatusSet): StatusSet {
  let out = statuses;
  for (const e of tx.events ?? []) {
    const to = e.received && e.at < sentAt ? emitting(e.name)[0]?.to : undefined;
    const left = to === undefined ? out : both(out, reach(only(to)));
    if (left.length) out = left;
  }
  return out;
}

/** Events received earlier whose transition the status `now` (shown by `s`) rules out: events with no transition. */
export function ruledOut(s: Seen, j: Judging, tx: TransactionMemory, id: string, now: StatusSet): void {
  if (!tx.events) return;
  for (const e of tx.events.filter((x) => x.received && x.transition === undefined)) {
    const t = emitting(e.name)[0]!;
    if (reach(only(t.to)).includes(now[0]!) || e.at >= s.sentAt) continue;
    j.out.push(
      finding({
        kind: 'webhook-no-transition',
        at: s,
        txId: id,
        earlier: around(tx),
        jsonPath: '$',
        message: `event ${e.name} (webhook-id ${e.webhookId ?? '?'}) came for transaction ${id}, but a later answer shows ${now[0]}: no ${t.id} happened`,
        expected: t.to,
        actual: now[0],
      }),
    );
    tx.events.splice(tx.events.indexOf(e), 1);
  }
}

/** A webhook delivery the ear received: verified, validated, matched to the transitions seen. */
export function judgeDelivery(d: Delivery, receivedAt: number, j: Judging): void {
  const { memory, settings } = j;
  memory.seen.deliveries++;
  let event: { event?: unknown; data?: unknown } | undefined;
  try {
    event = d.truncated ? undefined : (JSON.parse(d.body) as typeof event);
  } catch {
    event = undefined;
  }
  const name = typeof event?.event === 'string' ? event.event : '?';
  const at0 = { seq: d.seq, opId: `webhook ${name}` };
  const push = (f: Omit<FindingOf, 'at'>): void => {
    j.out.push(finding({ at: at0, ...f }));
  };
  if (d.truncated) return push({ kind: 'webhook-payload', jsonPath: '$', message: 'a webhook body too large to copy' });
  const problems: string[] = [];
  // signed by one of the secrets the judge was given or an endpoint's answer showed (a rotation included)
  if (settings.webhookSecret !== undefined) {
    let failed: WebhookVerificationError | undefined;
    for (const secret of [...new Set([settings.webhookSecret, ...memory.webhookSecrets])].reverse())
      try {
        verifyWebhook(d.body, d.headers, secret, { now: () => new Date(receivedAt) });
        failed = undefined;
        break;
      } catch (e) {
        if (!(e instanceof WebhookVerificationError)) throw e;
        failed ??= e;
      }
    // another client of a test key may have rotated its secret, unseen, with no overlap (ADR-042): of
    // a live key's (none can), or of its sole client's, a bad signature is the server's; of a
    // merchant the judge cannot place, only when it sees every call
    const about = isRecord(event?.data) && typeof event.data.id === 'string' ? memory.transactions.get(event.data.id) : undefined;
    const m = about && memory.merchants.get(about.merchant);
    const rotatedUnseen = failed?.code === 'bad_signature' && sandboxMayChangeUnseen(j, m ?? null);
    if (failed && failed.code !== 'malformed_payload' && !rotatedUnseen) problems.push(`signature: ${failed.code}: ${failed.message}`);
  }
  if (event === undefined) problems.push('body is not JSON');
  else if (settings.payloadValidators) {
    const v = settings.payloadValidators.get(name);
    if (!v) problems.push(`event ${JSON.stringify(event.event)} is not an AsyncAPI message`);
    else if (!v(event)) {
      const e = v.errors![0]!;
      problems.push(`payload $${e.instancePath.replace(/\//g, '.')}: ${e.message} (AsyncAPI)`);
    }
  }
  if (problems.length) return push({ kind: 'webhook-payload', jsonPath: '$', message: problems.join('; ') });
  const data = isRecord(event?.data) ? event.data : undefined;
  const id = data?.id;
  if (typeof id !== 'string' || name === '?') return;
  const webhookId = d.headers['webhook-id'] ?? '';
  const tx = memory.transactions.get(id);
  const repeat = judgeRepeat(memory.webhookBodies, `${tx?.merchant ?? ''} ${webhookId}`, d.body, memory.max);
  if (repeat === 'changed')
    push({
      kind: 'webhook-payload',
      txId: id,
      jsonPath: '$',
      message: `a repeat of webhook-id ${webhookId} has a different body (a retry carries the same event)`,
    });
  const want = emitting(name)[0]?.to;
  if (tx && want && data?.status !== want)
    push({
      kind: 'webhook-payload',
      txId: id,
      jsonPath: '$.data.status',
      message: `event ${name} for ${id} has status ${String(data?.status)}; its transition leads to ${want}`,
    });
  if (!tx) {
    memory.seen.unknownTransactionEvents++;
    return;
  }
  // the delivery's own number last: the exchanges about the transaction first
  const before = j.out.length;
  matchEvent(j, tx, id, name, webhookId, receivedAt, d.seq);
  if (data) judgePayload(j, tx, id, name, data, receivedAt, d.seq);
  for (const f of j.out.slice(before)) f.exchanges = [...f.exchanges.filter((x) => x !== d.seq), d.seq];
}

/** The pseudo-exchange of a webhook event (no HTTP exchange of the API shows it). */
const eventAt = (name: string, seq: number) => ({ seq, opId: `webhook ${name}` });

/**
 * A verified event about transaction `id`: matched to the transition seen that emits it, held until
 * a transition shows (or rules it out), or a finding when the transaction's state excludes it.
 */
function matchEvent(j: Judging, tx: TransactionMemory, id: string, name: string, webhookId: string, receivedAt: number, seq: number): void {
  const m = j.memory.merchants.get(tx.merchant);
  if (m) {
    m.endpoint.eventsReachEar = true;
    // its events reach the ear whatever its endpoint was answered as (a relay in between)
    m.endpoint.elsewhere = false;
  }
  tx.events ??= [];
  if (tx.events.some((e) => e.received && e.webhookId === webhookId)) return; // a retry of one delivery
  const waiting = tx.events.find((e) => !e.received && e.name === name);
  if (waiting) {
    waiting.received = true;
    waiting.webhookId = webhookId;
    j.memory.seen.events.add(name);
    return;
  }
  const second = tx.events.some((e) => e.received && e.name === name);
  const t = emitting(name);
  const hold = (transition?: string) => {
    tx.events!.push({ name, transition, at: receivedAt, received: true, webhookId });
    if (tx.events!.length > EVENTS_PER_TRANSACTION) tx.events!.shift();
  };
  if (!second) {
    const may = reach(tx.possibleStatuses);
    // its transition may still come (a customer's confirmation the ear has not seen yet): held
    if (t.some((x) => x.from!.some((f) => may.includes(f)) && !tx.possibleStatuses.includes(x.to))) return hold();
    // the transaction may have passed through the transition's status (seen before events were expected): its event
    if (t.some((x) => reach(only(x.to)).some((st) => tx.possibleStatuses.includes(st)))) {
      hold(t[0]!.id);
      j.memory.seen.events.add(name);
      return;
    }
  }
  j.out.push(
    finding({
      kind: 'webhook-no-transition',
      at: eventAt(name, seq),
      txId: id,
      earlier: around(tx),
      jsonPath: '$',
      message: second
        ? `a second ${name} for transaction ${id} under a new webhook-id ${webhookId}: x-state-machine emits one per transition`
        : `event ${name} (webhook-id ${webhookId}) for transaction ${id}, which is ${tx.possibleStatuses.join(' or ')}: no transition seen or possible emits it`,
      expected: 'no event',
      actual: name,
    }),
  );
}

/** An event's payload against what the answers showed (the merchant's names, createdAt, customerPhone, an expiry's instant). */
function judgePayload(j: Judging, tx: TransactionMemory, id: string, name: string, data: Json, receivedAt: number, seq: number): void {
  const s = { seq, opId: `webhook ${name}`, sentAt: receivedAt, receivedAt };
  const m = j.memory.merchants.get(tx.merchant);
  if (m) sameNames(s, j, m, data, id);
  const push = (jsonPath: string, message: string, expected: unknown, actual: unknown) =>
    j.out.push(finding({ kind: 'webhook-payload', at: s, txId: id, earlier: around(tx), jsonPath, message, expected, actual }));
  const created = typeof data.createdAt === 'string' ? Date.parse(data.createdAt) : NaN;
  // the creation's instant as a record answered it (a partner transaction's B1, a checkout transaction's listed record)
  const answered = tx.createdAt !== null && tx.createdWithinMs === 0 ? tx.createdAt : null;
  if (answered !== null && !Number.isNaN(created) && created !== answered)
    push(
      '$.data.createdAt',
      `${name} for ${id} says createdAt ${String(data.createdAt)}; the answers showed ${iso(answered)}`,
      iso(answered),
      data.createdAt,
    );
  // the phone first shown (B1's answer, the paying request, A2, an earlier event) is the one every event repeats
  if (tx.customerPhoneHash === 0 && typeof data.customerPhone === 'string') tx.customerPhoneHash = smallHash(data.customerPhone);
  else if (typeof data.customerPhone === 'string' && smallHash(data.customerPhone) !== tx.customerPhoneHash)
    push(
      '$.data.customerPhone',
      `${name} for ${id} says customerPhone ${data.customerPhone}; an earlier answer, request or event showed another`,
      "the transaction's customerPhone",
      data.customerPhone,
    );
  const expired = typeof data.expiredAt === 'string' ? Date.parse(data.expiredAt) : NaN;
  if (answered !== null && !Number.isNaN(expired)) {
    const windowSeconds = j.settings.paymentWindowMs / 1000;
    if (!expiryInstantAllowed(at(answered), windowSeconds, expired, j.settings.tolerance))
      push(
        '$.data.expiredAt',
        `${name} for ${id} says expiredAt ${String(data.expiredAt)}; its payment window ended at ${iso(expiryOf(at(answered), windowSeconds).from)} (ADR-010)`,
        iso(expiryOf(at(answered), windowSeconds).from),
        data.expiredAt,
      );
  }
}

/** Transitions whose event did not come within the window, as of `now` (epoch ms). */
export function sweepEvents(j: Judging, now: number): void {
  const w = j.settings.webhookWindowMs;
  if (w === undefined) return;
  for (const [id, tx] of j.memory.transactions) {
    if (!tx.events) continue;
    const m = j.memory.merchants.get(tx.merchant);
    if (!m?.endpoint.eventsReachEar) continue;
    // a test key's endpoint may also have been pointed elsewhere, or disabled, by a call the ear did not see
    if (m.endpoint.elsewhere || sandboxMayChangeUnseen(j, m)) {
      tx.events = tx.events.filter((e) => e.received);
      if (!tx.events.length) delete tx.events;
      continue;
    }
    for (const e of [...tx.events]) {
      if (e.received || e.at + w > now) continue;
      j.out.push(
        finding({
          kind: 'webhook-missing',
          at: eventAt(e.name, tx.lastExchange),
          txId: id,
          earlier: around(tx),
          jsonPath: '$',
          message: `transition ${e.transition} of transaction ${id} emitted no ${e.name} within ${w} ms`,
          expected: e.name,
          actual: 'no delivery',
        }),
      );
      tx.events.splice(tx.events.indexOf(e), 1);
    }
    if (!tx.events.length) delete tx.events;
  }
}

/** How often transitions whose event is overdue are looked for (ms), given the events' window: live, and through a recording's time. */
export const sweepEveryMs = (windowMs: number): number => Math.max(100, Math.min(windowMs / 2, 1000));

/**
 * The delivery window of an event (ms), from x-webhook-delivery: the first attempt's delay and
 * timeout, then the first retry's delay (an event whose first attempt the receiver refused still
 * comes in time).
 */
export function defaultWebhookWindowMs(): number {
  const r = webhookDelivery.retry;
  return ((r.delaysSeconds[0] ?? 0) + r.timeoutSeconds + (r.delaysSeconds[1] ?? 0)) * 1000;
}
