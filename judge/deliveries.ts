/**
 * The webhook retry schedule as the sandbox deliveries list shows it (ADR-005, `x-webhook-delivery`):
 * each listed delivery against the schedule (`judgeListedDelivery`, the model's `deliveryProblems`;
 * the suite's retry checks call it too), and the endpoint a 410 disables (`judgeEndpoint`, ADR-005,
 * ADR-042). The judge's reading (`judgeDeliveries`, `judgeEndpointAnswer`) knows of each attempt
 * only what the traffic showed of when it was made: after the exchange that made its transaction
 * through the ear, or after a list that did not show it yet; never by its instant alone (a sandbox
 * reset sets the clock back between two attempts). So the wait between two attempts is judged only
 * when both came after the latest reset the ear saw; a test key's deliveries are judged on their
 * schedule only when the ear sees every call of the merchant (`everyCallSeen`: another client may
 * redeliver one, or reset the clock, at any moment). A 410 disables the endpoint only when it came
 * after the latest enabling (a PUT or a redelivery answered), and a read showing it enabled after
 * that is judged only when no call the ear did not see can have enabled it.
 */
import {
  attemptOutcome,
  deliveryProblems,
  EARLY_SLACK_MS,
  LATE_SLACK_MS,
  type DeliveryProblem,
  type DeliveryView,
} from '../model/retry.ts';
import { canonicalText } from '../model/index.ts';
import { causesSeen, finding, isRecord, sandboxMayChangeUnseen, type Judging, type Seen } from './context.ts';
import { epoch, remember, type DeliveryMemory, type MerchantMemory } from './memory.ts';
import { iso } from './clock.ts';

const SET = 'sandboxSetWebhookEndpoint';
const GET = 'sandboxGetWebhookEndpoint';

/** A listed delivery (the sandbox deliveries list's JSON) read for the schedule: null when a member it needs is missing or malformed. */
function deliveryView(d: unknown): DeliveryView | null {
  if (!isRecord(d)) return null;
  const { state, nextAttemptAt, attempts } = d;
  if (!Array.isArray(attempts) || typeof state !== 'string') return null;
  const ms = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : NaN);
  const view: DeliveryView = {
    state,
    nextAttemptAt: nextAttemptAt === null ? null : ms(nextAttemptAt),
    attempts: attempts.filter(isRecord).map((a) => ({
      at: ms(a.at),
      status: typeof a.status === 'number' ? a.status : null,
      durationMs: typeof a.durationMs === 'number' ? a.durationMs : 0,
    })),
  };
  return Number.isNaN(view.nextAttemptAt) || view.attempts.some((a) => Number.isNaN(a.at)) ? null : view;
}

/**
 * One listed delivery against the schedule (the model's `deliveryProblems`, with its slack for
 * timers run late or early): the rules it breaks, and the delivery as read; null when it cannot be
 * read (not judged). A delivery `redelivered` (an attempt made at once) is judged by none of them;
 * `gapsFrom`: the first attempt whose wait to the next is judged (default: every wait).
 * @judges webhook-retries
 */
export function judgeListedDelivery(
  d: unknown,
  redelivered: boolean,
  gapsFrom = 0,
): { view: DeliveryView; problems: DeliveryProblem[] } | null {
  const view = deliveryView(d);
  if (view === null) return null;
  return { view, problems: deliveryProblems(view, { earlyMs: EARLY_SLACK_MS, lateMs: LATE_SLACK_MS, redelivered, gapsFrom }) };
}

/** What an answer showing the webhook endpoint contradicts: a read enabled after a 410 disabled it, a PUT of a URL answered disabled. */
export type EndpointVerdict = 'enabled-after-gone' | 'set-but-disabled' | null;

/**
 * The webhook endpoint as an answer shows it (`set`: a PUT of a URL answered it; otherwise a read),
 * against what is known: `disabledByGone`, a 410 attempt was made after the latest enabling (a PUT
 * or a redelivery). A 410 disables the endpoint until the next enabling (ADR-005); a PUT of a URL
 * enables it (ADR-042). The suite's retry checks and the judge.
 * @judges ADR-005, ADR-042
 */
export function judgeEndpoint(shown: { set: boolean; enabled: boolean }, disabledByGone: boolean): EndpointVerdict {
  if (shown.set) return shown.enabled ? null : 'set-but-disabled';
  return shown.enabled && disabledByGone ? 'enabled-after-gone' : null;
}

/**
 * Whether webhook `id` came before (`seen`: webhook-id → canonical body, bounded by `max`): a repeat
 * carries the same event, the same JSON value whatever the order of its members. The suite's
 * webhook judge and this one.
 * @judges webhook-retries
 */
export function judgeRepeat(seen: Map<string, string>, id: string, body: string, max: number): 'first' | 'same' | 'changed' {
  const prior = seen.get(id);
  if (prior === undefined) {
    remember(seen, id, canonicalText(body), max);
    return 'first';
  }
  return prior === canonicalText(body) ? 'same' : 'changed';
}

/** What the judge knows of when delivery `d`'s attempts were made, updated by this list (`s`). */
function attemptsKnown(j: Judging, m: MerchantMemory, id: string, d: Record<string, unknown>, listed: number, s: Seen): DeliveryMemory {
  const key = `${m.id} ${id}`;
  let mem = j.memory.deliveries.get(key);
  if (!mem) {
    // an event of a transaction made through the ear was made after that: so was every attempt
    const tx = typeof d.transactionId === 'string' ? j.memory.transactions.get(d.transactionId) : undefined;
    const after = tx && tx.merchant === m.id && tx.madeAt !== null ? epoch(j.memory, tx.madeAt) : -Infinity;
    mem = {
      attemptsListed: listed,
      listedSentAt: s.sentAt,
      attemptAfter: new Array<number>(listed).fill(after),
      redelivered: false,
      listedSeq: s.seq,
    };
    remember(j.memory.deliveries, key, mem, j.memory.max);
    return mem;
  }
  // attempts the previous list did not show were made after the server read it
  const after = Math.max(mem.listedSentAt, mem.attemptAfter.at(-1) ?? -Infinity);
  for (let i = mem.attemptAfter.length; i < listed; i++) mem.attemptAfter.push(after);
  mem.attemptsListed = listed;
  mem.listedSentAt = s.sentAt;
  return mem;
}

/**
 * The deliveries list: each delivery against the schedule (its waits only between attempts known to
 * have come after the latest reset; a test key's only when the ear sees its every call); a 410
 * attempt known to have come after the latest enabling disables the merchant's endpoint.
 */
export function judgeDeliveries(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status < 200 || s.status >= 300) return;
  const data = isRecord(s.json) && Array.isArray(s.json.data) ? s.json.data : [];
  for (const [i, d] of data.entries()) {
    if (!isRecord(d)) continue;
    const id = String(d.id);
    const listed = Array.isArray(d.attempts) ? d.attempts.length : 0;
    const mem = attemptsKnown(j, m, id, d, listed, s);
    const gapsFrom = mem.attemptAfter.findIndex((after) => after > m.clock.setBackAt);
    // a test key's delivery may have been redelivered, or its clock reset, by a call the ear did not see
    const judged = judgeListedDelivery(d, mem.redelivered || sandboxMayChangeUnseen(j, m), gapsFrom < 0 ? listed : gapsFrom);
    if (judged === null) continue;
    for (const p of judged.problems)
      j.out.push(
        finding({
          kind: 'webhook-retries',
          at: s,
          txId: typeof d.transactionId === 'string' ? d.transactionId : undefined,
          jsonPath: `$.data[${i}].${p.path}`,
          message: `delivery ${id}: ${p.message} (ADR-005)`,
          expected: p.expected,
          actual: p.actual,
        }),
      );
    const last = judged.view.attempts.length - 1;
    if (
      last >= 0 &&
      attemptOutcome(judged.view.attempts[last]!.status) === 'disabled' &&
      (mem.attemptAfter[last] ?? -Infinity) > m.endpoint.enabledAt
    )
      m.endpoint.disabledBy = { exchange: s.seq, at: s.receivedAt };
  }
}

/** A redelivery answered: the delivery is not judged on its schedule any more, and the endpoint is enabled again. */
export function judgeRedelivery(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status < 200 || s.status >= 300) return;
  const id = s.params.deliveryId;
  if (id !== undefined) {
    const key = `${m.id} ${id}`;
    const mem = j.memory.deliveries.get(key);
    if (mem) mem.redelivered = true;
    else {
      const txId = isRecord(s.json) && typeof s.json.transactionId === 'string' ? s.json.transactionId : undefined;
      const tx = txId === undefined ? undefined : j.memory.transactions.get(txId);
      const listedBy = tx && tx.merchant !== m.id ? tx.lastExchange : listedByOther(j, m.id, id);
      if (listedBy !== undefined)
        j.out.push(
          finding({
            kind: 'other-merchant',
            at: s,
            earlier: [listedBy],
            jsonPath: '$',
            message: `${s.opId} answered ${s.status} for delivery ${id}, another merchant's (exchange ${listedBy} showed ${tx && tx.merchant !== m.id ? `its transaction ${txId}` : "it in that merchant's deliveries list"}); a merchant redelivers its own deliveries only (the contract answers 404 DELIVERY_NOT_FOUND)`,
            expected: 404,
            actual: s.status,
          }),
        );
      remember(
        j.memory.deliveries,
        key,
        { attemptsListed: 0, listedSentAt: s.sentAt, attemptAfter: [], redelivered: true, listedSeq: null },
        j.memory.max,
      );
    }
  }
  enabled(m, s);
}

/** The exchange of another merchant's list that showed delivery `id` (a delivery id is the server's, one per delivery), or undefined. */
function listedByOther(j: Judging, merchant: string, id: string): number | undefined {
  for (const other of j.memory.merchants.keys()) {
    const seq = other === merchant ? null : j.memory.deliveries.get(`${other} ${id}`)?.listedSeq;
    if (seq != null) return seq;
  }
  return undefined;
}

/**
 * The endpoint's URL and secret as its answers show them (GET, PUT, a rotation), judged with its
 * sole client's ear (ADR-087): a read showing others than the latest answer did, no call of the
 * merchant having changed them since, shows an effect no call explains.
 */
export function judgeEndpointKept(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status !== 200 || !isRecord(s.json)) return;
  const now = { url: s.json.url ?? null, secret: s.json.secret ?? null };
  const was = m.endpoint.shown;
  const changed = was === null ? [] : (['url', 'secret'] as const).filter((k) => now[k] !== was[k]);
  if (s.opId === GET && was !== null && changed.length && was.receivedAt <= s.sentAt && causesSeen(s, j))
    j.out.push(
      finding({
        kind: 'no-cause',
        at: s,
        earlier: [was.seq],
        jsonPath: `$.${changed[0]!}`,
        message: `the webhook endpoint reads another ${changed.join(' and ')} than exchange ${was.seq} answered; no call of the merchant changed it since (ADR-087)`,
        expected: was[changed[0]!],
        actual: now[changed[0]!],
      }),
    );
  m.endpoint.shown = { ...now, seq: s.seq, receivedAt: s.receivedAt };
}

/** An enabling (a PUT of the endpoint, a redelivery, a reset that may seed it afresh) answered. */
export function enabled(m: MerchantMemory, s: Pick<Seen, 'receivedAt'>): void {
  m.endpoint.enabledAt = s.receivedAt;
  m.endpoint.disabledBy = null;
}

/**
 * The endpoint as GET and PUT answer it: judged by `judgeEndpoint` (a 410 known to have come after
 * the latest enabling, listed before the read began, and no enabling the ear did not see: a read
 * judged with its sole client's ear, ADR-087); and where the merchant's events go: the first
 * URL answered is taken as the one reaching the ear (directly, or through a relay), another URL, or
 * a disabled endpoint, sends them elsewhere.
 */
export function judgeEndpointAnswer(s: Seen, j: Judging): void {
  const m = s.merchant;
  const json = s.json;
  if (m === null || s.status !== 200 || !isRecord(json)) return;
  learnSecrets(s, j);
  const set = s.opId === SET && typeof json.url === 'string';
  if (s.opId === SET) enabled(m, s);
  const url = typeof json.url === 'string' ? json.url : null;
  if (m.endpoint.firstUrl === null && url !== null) m.endpoint.firstUrl = url;
  let port: number | undefined;
  try {
    port = url === null ? undefined : Number(new URL(url).port);
  } catch {
    port = undefined;
  }
  m.endpoint.elsewhere = !(json.enabled === true && url !== null && (url === m.endpoint.firstUrl || port === j.settings.webhookPort));
  if (typeof json.enabled !== 'boolean' || (!set && s.opId !== GET)) return;
  const off = m.endpoint.disabledBy;
  // a read's: another client of the key may have enabled it again (a PUT, a redelivery, a reset) unseen
  const verdict = judgeEndpoint({ set, enabled: json.enabled }, off !== null && s.sentAt >= off.at && causesSeen(s, j));
  if (verdict === 'enabled-after-gone')
    j.out.push(
      finding({
        kind: 'webhook-retries',
        at: s,
        earlier: [off!.exchange],
        jsonPath: '$.enabled',
        message: `the webhook endpoint reads enabled; exchange ${off!.exchange} listed a 410 attempt, which disables it, made after the last PUT or redelivery (ADR-005)`,
        expected: false,
        actual: true,
      }),
    );
  else if (verdict === 'set-but-disabled')
    j.out.push(
      finding({
        kind: 'webhook-retries',
        at: s,
        jsonPath: '$.enabled',
        message: `${SET} set the URL and answered the endpoint disabled; setting a URL enables an endpoint a 410 disabled (ADR-042, at ${iso(s.receivedAt)})`,
        expected: true,
        actual: false,
      }),
    );
}

/** Secrets the webhook endpoints' answers kept at once (a merchant's current and previous, a few merchants). */
const WEBHOOK_SECRETS = 8;

/**
 * An endpoint's answer (read, set, a secret rotated) shows the secrets that sign its deliveries from
 * now on: the judge verifies a delivery with any secret it was given or saw (ADR-042: a rotation
 * signs with both for a while), so a rotation on a correct server is never a bad signature.
 */
export function learnSecrets(s: Seen, j: Judging): void {
  if (s.status !== 200 || !isRecord(s.json)) return;
  const list = j.memory.webhookSecrets;
  for (const k of ['previousSecret', 'secret'] as const) {
    const v = s.json[k];
    if (typeof v !== 'string' || !v) continue;
    const at = list.indexOf(v);
    if (at >= 0) list.splice(at, 1);
    list.push(v);
  }
  if (list.length > WEBHOOK_SECRETS) list.splice(0, list.length - WEBHOOK_SECRETS);
}
