/**
 * A recording replayed against another server, a regression run built from traffic (as GoReplay
 * and Keploy do it): the recorded requests that are operations are sent again, one at a time in the
 * order they started, with what the new server hands out put in place of what the recorded one did,
 * and each new answer is judged, and compared with its recorded one by meaning (judge/replayed.ts).
 *
 * Substitution: every value a recorded answer handed out (an identifier-like string that no request
 * had sent before: a transaction id, a session token, a payment intent id, a cursor) is paired with
 * the value the new answer holds at the same JSON path, and later URLs, headers and bodies carry the
 * new one. A vendorReference a request sends is redrawn (its tail, its length kept), as the suite's
 * curl scripts do, so a replay against the server that was recorded does not meet its own 409s. A
 * masked key (`MASKED_…`) is the key of the merchants file whose mask it is; the recorded origin
 * becomes the new base URL.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import type { EarFinding as Finding, Exchange } from '../judge/index.ts';
import { judgeReplayed, isInstant, WORD } from '../judge/replayed.ts';
import { toFreshen } from '../judge/report.ts';
import { jsonOf } from '../lib/json.ts';
import { HOP_BY_HOP } from '../proxy/http1.ts';
import { HarError, type HarExchange } from './har.ts';
import { isCredentialHeader, mask } from '../judge/mask.ts';

/** A string a server may hand out to be sent back: an id, a token, a cursor (8 characters or more, no space). */
const HANDED_OUT = /^[A-Za-z0-9][A-Za-z0-9._~:+/=-]{7,}$/;
/** Not sent again: what HTTP makes per connection, and Accept-Encoding (an answer as plain text). */
const notSent = (k: string): boolean =>
  HOP_BY_HOP.has(k) ||
  k === 'transfer-encoding' ||
  k === 'trailer' ||
  k === 'host' ||
  k === 'content-length' ||
  k === 'expect' ||
  k === 'accept-encoding';

/** The keys of a `paylater serve --merchants` file, by their mask. */
export function readMerchantKeys(file: string): Map<string, string> {
  let list: unknown;
  try {
    list = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new HarError(`${file}: not a merchants file (${(e as Error).message})`);
  }
  if (!Array.isArray(list) || list.some((m) => typeof (m as { apiKey?: unknown })?.apiKey !== 'string'))
    throw new HarError(`${file}: not a merchants file (a JSON array of merchants, each with its "apiKey")`);
  return new Map((list as { apiKey: string }[]).map((m) => [mask(m.apiKey), m.apiKey]));
}

/** Old value → new, applied to the longest old values first (a shorter one may be part of a longer). */
class Substitutions {
  readonly map = new Map<string, string>();
  private order: string[] = [];
  set(from: string, to: string): void {
    if (from === to || this.map.has(from)) return;
    this.map.set(from, to);
    this.order = [];
  }
  apply(s: string, encode = false): string {
    if (!this.order.length) this.order = [...this.map.keys()].sort((a, b) => b.length - a.length);
    let out = s;
    for (const from of this.order) {
      if (out.includes(from)) out = out.split(from).join(this.map.get(from));
      else if (encode && out.includes(encodeURIComponent(from)))
        out = out.split(encodeURIComponent(from)).join(encodeURIComponent(this.map.get(from)!));
    }
    return out;
  }
  json(v: unknown): unknown {
    if (typeof v === 'string') return this.apply(v);
    if (Array.isArray(v)) return v.map((x) => this.json(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.json(x)]));
    return v;
  }
}

/** Every string a request sent (path segments, query values, header values, body strings): what is not handed out. */
function sentValues(x: Exchange, into: Set<string>): void {
  const url = new URL(x.url);
  for (const seg of url.pathname.split('/')) into.add(decodeURIComponent(seg));
  for (const v of url.searchParams.values()) into.add(v);
  for (const v of Object.values(x.headers)) into.add(v);
  const walk = (v: unknown): void => {
    if (typeof v === 'string') into.add(v);
    else if (v && typeof v === 'object') for (const y of Object.values(v)) walk(y);
  };
  walk(jsonOf(x.body));
}

/** Pairs each value the recorded answer handed out with the new answer's at the same path. */
function learn(recorded: unknown, now: unknown, sent: Set<string>, subs: Substitutions): void {
  if (typeof recorded === 'string') {
    if (typeof now === 'string' && HANDED_OUT.test(recorded) && !WORD.test(recorded) && !isInstant(recorded) && !sent.has(recorded))
      subs.set(recorded, now);
  } else if (Array.isArray(recorded) && Array.isArray(now)) recorded.forEach((x, i) => learn(x, now[i], sent, subs));
  else if (recorded && typeof recorded === 'object' && now && typeof now === 'object')
    for (const [k, x] of Object.entries(recorded)) learn(x, (now as Record<string, unknown>)[k], sent, subs);
}

export interface ReplayOptions {
  baseUrl: string;
  /** Masked keys' real keys (readMerchantKeys). */
  keys: Map<string, string>;
  keepPace: boolean;
  timeoutMs: number;
  /** Numbers the new exchanges from here on (after the recorded ones). */
  firstSeq: number;
  /** Judges each new exchange (the one judge, a memory of its own: the new server's traffic). */
  judge: (ex: Exchange) => Finding[];
}

export interface ReplayResult {
  exchanges: Exchange[];
  findings: Finding[];
  /**
   * Of the recorded exchanges sent again (`exchanges`), those whose request body the recording did
   * not keep, sent with that many bytes of filler (as the suite's curl scripts do) and not compared;
   * and those not sent (a body of unknown size).
   */
  filler: number;
  notReplayed: number;
  substitutions: number;
}

/**
 * Replays `recorded` (the operations, in the order they started). Refuses (HarError) a masked
 * credential the recorded server accepted that is neither the mask of a key in `keys` nor handed
 * out by an earlier answer, and a server that does not answer the first request.
 */
export async function replay(recorded: HarExchange[], o: ReplayOptions, file: string): Promise<ReplayResult> {
  const subs = new Substitutions();
  for (const [m, key] of o.keys) subs.set(m, key);
  const base = new URL(o.baseUrl);
  const handedOut = new Set<string>();
  for (const x of recorded) {
    for (const [k, v] of Object.entries(x.headers))
      // a credential the recorded server refused (401: a probe's made-up key or token) is sent as it is
      if (isCredentialHeader(k) && v.startsWith('MASKED_') && !o.keys.has(v) && !handedOut.has(v) && x.status !== 401)
        throw new HarError(
          `${file}: exchange ${x.seq} sends ${k}: ${v}, a masked key no earlier answer handed out: give the merchants file (--merchants FILE) whose key it masks`,
        );
    for (const m of x.responseText.matchAll(/MASKED_[0-9a-f]{8}/g)) handedOut.add(m[0]);
  }
  const result: ReplayResult = { exchanges: [], findings: [], filler: 0, notReplayed: 0, substitutions: 0 };
  const sent = new Set<string>();
  const start = performance.now();
  for (const x of recorded) {
    if (x.requestTruncated && x.requestBytes === undefined) {
      result.notReplayed++;
      continue;
    }
    if (o.keepPace) await sleep(Math.max(0, x.sentAt - recorded[0]!.sentAt - (performance.now() - start)));
    const was = new URL(x.url);
    subs.set(was.origin, base.origin);
    for (const [, v] of toFreshen(x.body))
      subs.set(v, v.length > 12 ? v.slice(0, -12) + randomBytes(6).toString('hex') : randomBytes(8).toString('hex').slice(0, v.length));
    sentValues(x, sent);
    const url = `${base.origin}${base.pathname.replace(/\/$/, '')}${subs.apply(was.pathname + was.search, true)}`;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(x.headers)) if (!notSent(k)) headers[k] = subs.apply(v);
    const body = x.requestTruncated ? 'x'.repeat(x.requestBytes!) : x.body === undefined ? undefined : subs.apply(x.body);
    const seq = o.firstSeq + result.exchanges.length;
    // what the replay sends is not handed out either: an answer echoing it is compared
    sentValues({ ...x, url, headers, body }, sent);
    const sentAt = performance.timeOrigin + performance.now();
    let answer: { status: number; headers: Record<string, string>; text: string };
    try {
      const r = await request(url, { method: x.method, headers, body, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
      const h: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
      answer = { status: r.statusCode, headers: h, text: await r.body.text() };
    } catch (e) {
      if (!result.exchanges.length) throw new HarError(`${o.baseUrl}: no answer to the first request replayed (${(e as Error).message})`);
      result.findings.push({
        kind: 'upstream',
        operation: x.opId ?? `${x.method} ${was.pathname}`,
        jsonPath: '$',
        message: `no answer to the replay of exchange ${x.seq}: ${(e as Error).message}`,
        exchanges: [x.seq],
      });
      continue;
    }
    const now: Exchange = {
      seq,
      method: x.method,
      url,
      headers,
      body,
      requestTruncated: x.requestTruncated,
      status: answer.status,
      responseHeaders: answer.headers,
      responseText: answer.text,
      sentAt,
      receivedAt: performance.timeOrigin + performance.now(),
      // one request at a time: none other is open beside it
      othersOpen: false,
    };
    result.exchanges.push(now);
    if (x.requestTruncated) result.filler++;
    result.findings.push(...o.judge(now));
    const [was_, is] = [jsonOf(x.responseText), jsonOf(answer.text)];
    if (!x.responseTruncated) learn(was_, is, sent, subs);
    result.findings.push(...judgeReplayed(x, now, subs.json(was_), sent));
  }
  result.substitutions = subs.map.size - o.keys.size;
  return result;
}
