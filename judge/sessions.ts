/**
 * A1's two time rules and the checkout's session, per merchant, through the model: a session
 * token's lifetime (model/token.ts `tokenAnswers`, `tokenExpiry`) and its own transaction
 * (`judgeSessionIssued`, `judgeTokenUse`), the rate limit's fixed window (model/rate.ts) that the
 * key's own answers show (`judgeRateLimit`: RateLimit-* headers, a 429's wait), and the paid
 * session that makes a checkout transaction (`judgePaidSession`). Time is the merchant's server
 * clock as the judge knows it (clock.ts), widened by the clock tolerance.
 */
import {
  rateLimitOf,
  rateRefuses,
  tokenAnswers,
  tokenExpiry,
  transitionsOf,
  windowEnd,
  windowEndOf,
  windowPassed,
  within,
  type Interval,
} from '../model/index.ts';
import { during, earSlack, iso } from './clock.ts';
import { causesSeen, errorCode, everyCallSeen, finding, isRecord, variantOf, type FindingOf, type Judging, type Seen } from './context.ts';
import { addTransaction, kept, remember, unknownRateWindow, type MerchantMemory, type TokenMemory } from './memory.ts';
import { moved } from './moves.ts';
import { judgeCheckoutStatus, judgeLocalDates } from './reads.ts';
import { sameNames } from './names.ts';
import { newTransaction } from './records.ts';
import { smallHash } from './prints.ts';
import { PENDING, only } from './statuses.ts';

const TOKEN_REFUSED = 'INVALID_SESSION_TOKEN';

/** The memory of a session token, made at its A1 answer. */
export function tokenOf(j: Judging, token: string, merchant: string, issuedBy: number): TokenMemory {
  let t = j.memory.tokens.get(token);
  if (!t) remember(j.memory.tokens, token, (t = { merchant, issued: null, issuedBy, issuedSentAt: -Infinity }), j.memory.max);
  return t;
}

/**
 * A1: the key's rate-limit window (every request its key authenticates counts), then the token
 * issued (remembered for A2's judge): its expiresAt (Variant 1) must be the issue instant plus the
 * model's lifetime, as the suite's A1 check reads it.
 * @judges a1-rate-limit, a1-session-response
 */
export function judgeSessionIssued(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null) return;
  const now = during(j, m, s);
  // a fault rule answers the named calls with failures (a 429 among them) that count nothing (ADR-052)
  if (s.simulated || m.faultRuleOn) return;
  if (s.status !== 401 && errorCode(s.json) !== 'AUTH_THROTTLED') judgeRateLimit(s, j, m, now);
  if (s.status >= 300 || !isRecord(s.json)) return;
  const token = s.json.token ?? s.json.session_token;
  if (typeof token !== 'string') return;
  const t = tokenOf(j, token, m.id, s.seq);
  t.issued = now;
  t.issuedBy = s.seq;
  t.issuedSentAt = s.sentAt;
  const expiresAt = typeof s.json.expiresAt === 'string' ? Date.parse(s.json.expiresAt) : NaN;
  const end = tokenExpiry(now);
  const tol = j.settings.tolerance;
  if (!Number.isNaN(expiresAt) && !within(end, expiresAt, tol))
    j.out.push(
      finding({
        kind: 'token',
        at: s,
        jsonPath: '$.expiresAt',
        message: `A1's expiresAt ${String(s.json.expiresAt)} is not the token's issue plus its lifetime (between ${iso(end.from - tol)} and ${iso(end.to + tol)})`,
        expected: `${iso(end.from)} … ${iso(end.to)}`,
        actual: s.json.expiresAt,
      }),
    );
}

/** One counted A1 answer against the key's window: full and answered, or refused in a window that had room. */
function judgeRateLimit(s: Seen, j: Judging, m: MerchantMemory, serverNow: Interval): void {
  const rule = rateLimitOf(s.opId, variantOf(s));
  if (!rule) return;
  // A test key's sandbox offset not known yet leaves the server's clock unbounded above. A sole
  // client's judge (ADR-087) saw every call that moves it (each answers a clock, which bounds it),
  // so until then the offset is constant: the window's waits are judged between instants of the ear.
  const sole = causesSeen(s, j);
  const onEarClock = serverNow.to === Infinity && sole;
  const now = onEarClock ? { from: s.sentAt, to: s.receivedAt } : serverNow;
  let w = m.rateWindow ?? unknownRateWindow(null, onEarClock);
  if (w.onEarClock !== onEarClock) w = unknownRateWindow(null, onEarClock);
  // the window's end and this request both read off the ear's clock: its skew cancels out (earSlack)
  let tol = w.end ? earSlack(j.memory, w.endSince, s.receivedAt, j.settings.tolerance) : j.settings.tolerance;
  // a request certainly after the window's end is the first of a new one, whose count the judge sees
  // from 0 when it sees every call of the key (another client's would count too)
  if (w.end && windowPassed(now, w.end, tol) === 'yes') {
    w = unknownRateWindow(everyCallSeen(j, m) ? 0 : null, onEarClock);
    tol = j.settings.tolerance;
  }
  // the request opens the window: a count from 0 the judge saw whole (a sole client's, ADR-087), so
  // the window ends exactly its length after this request (ADR-006), not only where the waits say
  const exact = w.used === 0 && w.end === null && sole ? windowEnd(now, rule.windowSeconds) : null;
  const inWindow = w.end !== null && windowPassed(now, w.end, tol) === 'no';
  const push = (f: Omit<FindingOf, 'at' | 'kind'>) => j.out.push(finding({ kind: 'rate-limit', at: s, ...f }));
  if (s.status !== 429 && !Number.isNaN(w.fullAt) && s.sentAt >= w.fullAt && inWindow)
    push({
      jsonPath: '$',
      message: `${s.opId} answered ${s.status} in a window exchange ${w.fullExchange} showed full (${rule.limit} requests per ${rule.windowSeconds} s), which ends at the earliest ${iso(w.end!.from - tol)}`,
      expected: 429,
      actual: s.status,
    });
  if (s.status === 429 && w.used !== null && !rateRefuses(w.used, rule.limit))
    push({
      jsonPath: '$',
      message: `${s.opId} answered 429 after ${w.used} counted requests of a window that began after the previous one ended (limit ${rule.limit})`,
      expected: `429 only after ${rule.limit} requests`,
      actual: w.used,
    });
  if (w.used !== null) w.used++;
  const h = s.ex.responseHeaders;
  const wait = Number(h['ratelimit-reset'] ?? h['retry-after']);
  if (Number.isFinite(wait) && wait >= 0) {
    const end = windowEndOf(now, wait);
    // a fixed window: every answer within it names the same end (its wait counted to it, not from the request)
    if (inWindow && w.end && (end.from > w.end.to + tol || end.to < w.end.from - tol))
      push({
        jsonPath: '$',
        message: `${s.opId} answered a wait of ${wait} s, a window ending between ${iso(end.from)} and ${iso(end.to)}; the earlier answers of this window put its end between ${iso(w.end.from)} and ${iso(w.end.to)} (a fixed window's wait counts to its end)`,
        expected: `${iso(w.end.from)} … ${iso(w.end.to)}`,
        actual: wait,
      });
    // an end certainly after the one known: a new window began (the request may have come within the
    // slack of the old end, so it was not certainly past it): what the old window showed is forgotten
    if (!inWindow && w.end && end.from > w.end.to + tol) w = unknownRateWindow(null, onEarClock);
    const narrowed = inWindow && w.end ? { from: Math.max(w.end.from, end.from), to: Math.min(w.end.to, end.to) } : null;
    if (narrowed && narrowed.from <= narrowed.to) w.end = narrowed;
    else {
      w.end = end;
      w.endSince = s.sentAt;
    }
    if (exact && (end.from > exact.to + tol || end.to < exact.from - tol))
      push({
        jsonPath: '$',
        message: `${s.opId} answered a wait of ${wait} s to the request that opened its window (the first counted since the previous window ended or the sandbox was reset, ADR-087); a window of ${rule.windowSeconds} s from it ends between ${iso(exact.from)} and ${iso(exact.to)}`,
        expected: rule.windowSeconds,
        actual: wait,
      });
  }
  if (exact) {
    w.end = exact;
    w.endSince = s.sentAt;
  }
  if ((s.status === 429 || h['ratelimit-remaining'] === '0') && Number.isNaN(w.fullAt)) {
    w.fullAt = s.receivedAt;
    w.fullExchange = s.seq;
  }
  m.rateWindow = w;
}

/**
 * A2 with a session token: for a transaction another session paid; against its lifetime by the
 * model's `tokenAnswers` (the suite's A2 expectation), its refusal judged only once a read of its
 * own transaction accepted it (so that nothing else refuses it); its record (reads.ts).
 * @judges token-own-transaction
 */
export function judgeTokenUse(s: Seen, j: Judging): void {
  const token = s.token;
  const t = token === undefined ? undefined : j.memory.tokens.get(token);
  const id = s.params.transaction_id ?? '';
  const m = t && j.memory.merchants.get(t.merchant);
  if (!t || !m || token === undefined) return;
  const push = (f: Omit<FindingOf, 'at' | 'kind' | 'txId'>) => j.out.push(finding({ kind: 'token', at: s, txId: id, ...f }));
  const lifetime =
    t.issued === null
      ? { accepted: true, refused: true }
      : tokenAnswers(t.issued, during(j, m, s), earSlack(j.memory, t.issuedSentAt, s.receivedAt, j.settings.tolerance));
  const payer = j.memory.payers.get(id);
  if (s.status === 200) {
    if (!lifetime.accepted)
      push({
        jsonPath: '$',
        message: `A2 accepted a session token past its lifetime (issued by exchange ${t.issuedBy} at the latest ${iso(t.issued!.to)})`,
        expected: TOKEN_REFUSED,
        actual: 200,
      });
    if (payer !== undefined && payer !== token)
      push({
        jsonPath: '$',
        message: `A2 answered transaction ${id} to the token of another session than the one that paid it`,
        expected: TOKEN_REFUSED,
        actual: 200,
      });
    else if (payer === token) t.acceptedOnce = true;
    if (isRecord(s.json)) {
      sameNames(s, j, m, s.json, id);
      judgeCheckoutStatus(s, j, id, s.json.status);
      judgeLocalDates(s, j, id, s.json);
    }
  } else if (s.status === 401 && errorCode(s.json) === TOKEN_REFUSED && !lifetime.refused && t.acceptedOnce && payer === token)
    push({
      jsonPath: '$.error.code',
      message: `A2 refused a session token before its lifetime ended (issued by exchange ${t.issuedBy}, at the earliest ${iso(t.issued!.from)}); a read accepted it before`,
      expected: 200,
      actual: TOKEN_REFUSED,
    });
}

/**
 * The sandbox's payment of a session: the checkout transaction it makes (its creation within the
 * exchange, on the merchant's clock when known; the shopper's phone as the payment named it), its
 * token's transaction, and the status the payment moved it to.
 */
export function judgePaidSession(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status !== 200 || !isRecord(s.json) || typeof s.json.transaction_id !== 'string') return;
  const id = s.json.transaction_id;
  const { memory } = j;
  const token = isRecord(s.requestJson) ? s.requestJson.session_token : undefined;
  if (typeof token === 'string') {
    const t = memory.tokens.get(token);
    if (t) t.paidTransaction = id;
    remember(memory.payers, id, token, memory.max);
  }
  if (!memory.transactions.has(id)) {
    const tx = newTransaction(memory, m, s, {
      ref: null,
      statuses: only(PENDING),
      kind: 'checkout',
      createdAt: null,
      updatedAt: null,
      fp: 0,
    });
    tx.madeAt = kept(memory, s.sentAt, true);
    tx.madeWithinMs = kept(memory, s.receivedAt, false) - tx.madeAt;
    const phone = isRecord(s.requestJson) ? s.requestJson.customerPhone : undefined;
    if (typeof phone === 'string') tx.customerPhoneHash = smallHash(phone);
    // a failed payment leaves the transaction to be paid again (ADR-019): this one made it only when
    // no earlier payment of its session can have gone unseen (its A1 seen, every call seen since);
    // else it was made between its A1 and now (a live key's clock is never set back), or when unknown
    const made = during(j, m, s);
    const issued = typeof token === 'string' ? (memory.tokens.get(token)?.issued ?? null) : null;
    const from = issued === null ? NaN : everyCallSeen(j, m) ? made.from : m.testKey ? NaN : Math.min(issued.from, made.from);
    if (Number.isFinite(from) && Number.isFinite(made.to)) {
      tx.createdAt = from;
      tx.createdWithinMs = made.to - from;
    }
    addTransaction(memory, id, tx);
    memory.seen.transitions.add('checkout-pay');
  }
  const tx = memory.transactions.get(id)!;
  const reported = typeof s.json.status === 'string' ? s.json.status : undefined;
  for (const t of transitionsOf(s.opId)) if (t.from && reported && t.to === reported) moved(s, j, tx, id, only(t.to), t);
}
