/**
 * A1's two time rules judged on live traffic, per merchant, through the model: a session token's
 * lifetime (model/token.ts `tokenAnswers`, `tokenExpiry`) and the token's own transaction, and the
 * rate limit's fixed window (model/rate.ts) that the key's own answers show (their RateLimit-*
 * headers, a 429's wait). Time is the merchant's server clock as the proxy knows it
 * (state-store.ts `serverTime`: its sandbox clock offsets), widened by the clock tolerance.
 * What it keeps is bounded like the transactions: at most `max` tokens, one window per key.
 */
import { rateLimitOf, rateRefuses, tokenAnswers, tokenExpiry, windowEndOf, windowPassed, within, type Interval } from '../model/index.ts';
import { finding, type FindingOf, type Observation, type StateFinding } from './finding.ts';
import { ReadTracker } from './state-reads.ts';
import { iso, isRecord } from './state-store.ts';

/** What the proxy knows of a session token: its merchant, when it was issued, the transaction its session paid, whether a read accepted it. */
interface TokenState {
  m: string;
  issued: Interval;
  seq: number;
  tx?: string;
  accepted?: boolean;
}

/** A key's current rate-limit window as its answers showed it. */
interface RateWindow {
  /** When the window ends (the server's clock), from the latest answer's wait; null while unknown. */
  end: Interval | null;
  /** Counted requests seen in the window, or null when it began before the proxy knew (its start not seen). */
  used: number | null;
  /** When (wall ms) the answer showing the window full (429, or RateLimit-Remaining 0) ended, and its exchange; NaN: not full. */
  fullAt: number;
  fullSeq: number;
}

const A1 = 'createSession';
const A2 = 'getTransactionStatusBySessionToken';
const PAY = 'sandboxPaySession';
const TOKEN_REFUSED = 'INVALID_SESSION_TOKEN';
const errorOf = (j: unknown): Record<string, unknown> | undefined => (isRecord(j) && isRecord(j.error) ? j.error : undefined);

export class SessionTracker extends ReadTracker {
  private readonly tokens = new Map<string, TokenState>();
  /** Checkout transaction id → the token of the session that paid it. */
  private readonly payers = new Map<string, string>();
  private readonly rates = new Map<string, RateWindow>();
  /** Merchants with a sandbox fault rule set: their calls may be answered failures that ran nothing. */
  private readonly faulted = new Set<string>();

  private keep<V>(map: Map<string, V>, k: string, v: V): void {
    map.set(k, v);
    if (map.size > this.max) map.delete(map.keys().next().value as string);
  }

  /** The findings of a session exchange (A1, A2, a paid session); undefined when `ob` is none of them. */
  protected session(ob: Observation, m: string | null): StateFinding[] | undefined {
    if (ob.opId === A1 && m !== null) return this.issued(ob, m);
    if (ob.opId === A2) return this.verified(ob);
    if ((ob.opId === 'sandboxSetFaultRule' || ob.opId === 'sandboxGetFaultRule') && m !== null && ob.status === 200) {
      // a fault rule answers the named calls with failures (a 429 among them) that count nothing (ADR-052)
      const rule = isRecord(ob.json) && isRecord(ob.json.rule) ? ob.json.rule : null;
      if (rule && rule.remaining !== 0) this.faulted.add(m);
      else this.faulted.delete(m);
    }
    // a sandbox reset may start the key's rate window afresh
    if (ob.opId === 'sandboxReset' && m !== null && ob.status === 200) this.rates.delete(m);
    if (ob.opId === PAY && m !== null && ob.status === 200 && isRecord(ob.json) && isRecord(ob.requestJson)) {
      const token = ob.requestJson.session_token;
      const id = ob.json.transaction_id;
      if (typeof token === 'string' && typeof id === 'string') {
        const t = this.tokens.get(token);
        if (t) t.tx = id;
        this.keep(this.payers, id, token);
      }
    }
    return undefined;
  }

  /** A merchant's sandbox data reset: its tokens and its rate window are not known any more. */
  override forgetMerchant(m: string): void {
    super.forgetMerchant(m);
    for (const [k, t] of this.tokens) if (t.m === m) this.tokens.delete(k);
    this.rates.delete(m);
  }

  /**
   * A1: the key's rate-limit window (every request its key authenticates counts), then the token
   * issued (remembered for A2's judge): its expiresAt (Variant 1) must be the issue instant plus the
   * model's lifetime, as the suite's A1 check reads it.
   * @judges a1-rate-limit, a1-session-response
   */
  private issued(ob: Observation, m: string): StateFinding[] {
    const out: StateFinding[] = [];
    const now = this.serverTime(m, ob.sentAt, ob.receivedAt);
    if (ob.simulated || this.faulted.has(m)) return out;
    if (ob.status !== 401 && errorOf(ob.json)?.code !== 'AUTH_THROTTLED') this.rate(ob, m, now, out);
    if (ob.status >= 300 || !isRecord(ob.json)) return out;
    const token = ob.json.token ?? ob.json.session_token;
    if (typeof token !== 'string') return out;
    this.keep(this.tokens, token, { m, issued: now, seq: ob.seq });
    const expiresAt = typeof ob.json.expiresAt === 'string' ? Date.parse(ob.json.expiresAt) : NaN;
    const end = tokenExpiry(now);
    if (!Number.isNaN(expiresAt) && !within(end, expiresAt, this.tol))
      out.push(
        finding({
          kind: 'token',
          ob,
          jsonPath: '$.expiresAt',
          message: `A1's expiresAt ${String(ob.json.expiresAt)} is not the token's issue plus its lifetime (between ${iso(end.from - this.tol)} and ${iso(end.to + this.tol)})`,
          expected: `${iso(end.from)} … ${iso(end.to)}`,
          actual: ob.json.expiresAt,
        }),
      );
    return out;
  }

  /** One counted A1 answer against the key's window: full and answered, or refused in a window that had room. */
  private rate(ob: Observation, m: string, now: Interval, out: StateFinding[]): void {
    const rule = rateLimitOf(ob.opId, ob.variant);
    if (!rule) return;
    let w = this.rates.get(m) ?? { end: null, used: null, fullAt: NaN, fullSeq: 0 };
    // a request certainly after the window's end is the first of a new one, whose count the proxy sees from 0
    if (w.end && windowPassed(now, w.end, this.tol) === 'yes') w = { end: null, used: 0, fullAt: NaN, fullSeq: 0 };
    const inWindow = w.end !== null && windowPassed(now, w.end, this.tol) === 'no';
    const push = (f: Omit<FindingOf, 'ob' | 'kind'>) => out.push(finding({ kind: 'rate-limit', ob, ...f }));
    if (ob.status !== 429 && !Number.isNaN(w.fullAt) && ob.sentAt >= w.fullAt && inWindow)
      push({
        jsonPath: '$',
        message: `${ob.opId} answered ${ob.status} in a window exchange ${w.fullSeq} showed full (${rule.limit} requests per ${rule.windowSeconds} s), which ends at the earliest ${iso(w.end!.from - this.tol)}`,
        expected: 429,
        actual: ob.status,
      });
    if (ob.status === 429 && w.used !== null && !rateRefuses(w.used, rule.limit))
      push({
        jsonPath: '$',
        message: `${ob.opId} answered 429 after ${w.used} counted requests of a window that began after the previous one ended (limit ${rule.limit})`,
        expected: `429 only after ${rule.limit} requests`,
        actual: w.used,
      });
    if (w.used !== null) w.used++;
    const h = ob.responseHeaders ?? {};
    const wait = Number(h['ratelimit-reset'] ?? h['retry-after']);
    if (Number.isFinite(wait) && wait >= 0) {
      const end = windowEndOf(now, wait);
      // a fixed window: every answer within it names the same end (its wait counted to it, not from the request)
      if (inWindow && w.end && (end.from > w.end.to + this.tol || end.to < w.end.from - this.tol))
        push({
          jsonPath: '$',
          message: `${ob.opId} answered a wait of ${wait} s, a window ending between ${iso(end.from)} and ${iso(end.to)}; the earlier answers of this window put its end between ${iso(w.end.from)} and ${iso(w.end.to)} (a fixed window's wait counts to its end)`,
          expected: `${iso(w.end.from)} … ${iso(w.end.to)}`,
          actual: wait,
        });
      w.end = inWindow && w.end ? { from: Math.max(w.end.from, end.from), to: Math.min(w.end.to, end.to) } : end;
      if (w.end.from > w.end.to) w.end = end;
    }
    if ((ob.status === 429 || h['ratelimit-remaining'] === '0') && Number.isNaN(w.fullAt)) {
      w.fullAt = ob.receivedAt;
      w.fullSeq = ob.seq;
    }
    this.rates.set(m, w);
  }

  /**
   * A2 with a session token: for a transaction another session paid; against its lifetime by the
   * model's `tokenAnswers` (the suite's A2 expectation), its refusal judged only once a read of its
   * own transaction accepted it (so that nothing else refuses it).
   * @judges token-own-transaction
   */
  private verified(ob: Observation): StateFinding[] {
    const token = ob.token;
    const t = token === undefined ? undefined : this.tokens.get(token);
    const id = ob.params.transaction_id ?? '';
    if (!t || token === undefined) return [];
    const out: StateFinding[] = [];
    const push = (f: Omit<FindingOf, 'ob' | 'kind'>) => out.push(finding({ kind: 'token', ob, txId: id, ...f }));
    const lifetime = tokenAnswers(t.issued, this.serverTime(t.m, ob.sentAt, ob.receivedAt), this.tol);
    const payer = this.payers.get(id);
    if (ob.status === 200) {
      if (!lifetime.accepted)
        push({
          jsonPath: '$',
          message: `A2 accepted a session token past its lifetime (issued by exchange ${t.seq} at the latest ${iso(t.issued.to)})`,
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
      else if (payer === token) t.accepted = true;
      if (isRecord(ob.json)) {
        this.sameNames(ob, t.m, ob.json, out, id);
        this.checkoutStatus(ob, id, ob.json.status, out);
        this.localDates(ob, id, ob.json, out);
      }
    } else if (ob.status === 401 && errorOf(ob.json)?.code === TOKEN_REFUSED && !lifetime.refused && t.accepted && payer === token)
      push({
        jsonPath: '$.error.code',
        message: `A2 refused a session token before its lifetime ended (issued by exchange ${t.seq}, at the earliest ${iso(t.issued.from)}); a read accepted it before`,
        expected: 200,
        actual: TOKEN_REFUSED,
      });
    return out;
  }
}
