/**
 * The judge every ear of recorded traffic calls (`paylater judge FILE.har`, its replay): one
 * exchange in, its findings out, with the memory of every exchange before it. Built on the proxy's
 * engine (judge.ts ExchangeJudge, the state tracker, the variant book), wired as proxy/server.ts
 * wires them, behind the interface of the one judge (`createJudge` of judge/exchange.ts): swapping
 * this file for a re-export of `createJudge` is the whole change when that lands.
 */
import type { Exchange as SuiteExchange } from '../conformance/http.ts';
import type { Variant } from '../generated/index.ts';
import { jsonOf } from './har.ts';
import { ExchangeJudge } from './judge.ts';
import { digest } from './mask.ts';
import { authHeaderOf } from './route.ts';
import { Recorder, type ProxyCoverage, type ProxyFinding } from './report.ts';
import { StateTracker } from './state.ts';
import { VariantBook } from './variant.ts';

/** One exchange as an ear hands it over (the suite's, numbered, its operation and parsed answer optional): headers lower-case, times in ms on the ear's clock. */
export interface Exchange extends Omit<SuiteExchange, 'opId' | 'json'> {
  seq: number;
  opId?: string;
  json?: unknown;
  requestTruncated?: boolean;
  responseTruncated?: boolean;
}

/** A webhook delivery as an ear hands it over (numbered among the exchanges, for the findings that name it). */
export interface Delivery {
  seq: number;
  receivedAt: number;
  headers: Record<string, string>;
  body: string;
  truncated?: boolean;
}

export type Finding = ProxyFinding;

export interface JudgeOptions {
  variant?: Variant;
  /** Added to sentAt/receivedAt to get epoch ms (a HAR's times are epoch ms: 0). */
  timeOrigin?: number;
  maxTransactions?: number;
  paymentWindowSeconds?: number;
  clockToleranceMs?: number;
}

/** What the ears of recorded traffic use of the judge (no webhook deliveries: a HAR holds none). */
export interface TrafficJudge {
  exchange(ex: Exchange): Finding[];
  sweep(now: number): Finding[];
  coverage(): ProxyCoverage;
}

/** A credential a recording masked (`MASKED_…`, mask.ts): a test key or a live one, which the judge cannot tell. */
const MASKED = /^MASKED_[0-9a-f]{8}$/;

export function createTrafficJudge(o: JudgeOptions = {}): TrafficJudge {
  const book = new VariantBook(o.variant, o.maxTransactions);
  const state = new StateTracker({
    maxTransactions: o.maxTransactions,
    paymentWindowSeconds: o.paymentWindowSeconds,
    clockToleranceMs: o.clockToleranceMs,
  });
  // counts what the traffic covers (operations, statuses, codes), as the proxy's recorder does; keeps no exchange
  const counter = new Recorder({ upstream: '', variants: book, state, keep: 1, secrets: [] });
  let found: Finding[] = [];
  const sink = { judged: (_ex: SuiteExchange, fs: Finding[]) => void found.push(...fs) } as unknown as Recorder;
  const judge = new ExchangeJudge(book, state, sink, digest);
  // the engine reads times on the proxy's clock (performance.now(): ms after performance.timeOrigin)
  const origin = o.timeOrigin ?? performance.timeOrigin;
  const shift = origin - performance.timeOrigin;
  return {
    exchange(x) {
      found = [];
      const url = new URL(x.url);
      const routed = judge.route(x.method, url.pathname, x.headers);
      // a masked key may be a test key whose sandbox clock was advanced before the recording: its clock is not assumed
      const auth = routed && authHeaderOf(routed.variants[0]!, routed.route.opId);
      if (routed && auth && routed.merchant !== null && MASKED.test(x.headers[auth] ?? '')) routed.testKey = true;
      const ex: SuiteExchange = {
        opId: routed?.route.opId ?? `${x.method} ${url.pathname}`,
        method: x.method,
        url: x.url,
        headers: x.headers,
        body: x.body,
        status: x.status,
        responseHeaders: x.responseHeaders,
        responseText: x.responseText,
        json: x.json ?? (x.responseTruncated ? undefined : jsonOf(x.responseText)),
        sentAt: x.sentAt + shift,
        receivedAt: x.receivedAt + shift,
      };
      counter.record(x.seq, ex, routed !== undefined);
      if (!routed) {
        if (!x.responseTruncated) judge.unrouted(ex, x.seq, url.pathname);
        return found;
      }
      const requestJson = x.requestTruncated ? undefined : jsonOf(x.body);
      try {
        judge.judge(
          {
            ex,
            seq: x.seq,
            method: x.method,
            pathname: url.pathname,
            search: url.search.slice(1),
            requestHeaders: x.headers,
            truncated: x.responseTruncated === true,
            requestUnreadable: x.requestTruncated === true || (x.body !== undefined && requestJson === undefined),
            notes: [],
          },
          routed,
          requestJson,
        );
      } catch (e) {
        found.push({
          kind: 'upstream',
          operation: ex.opId,
          jsonPath: '$',
          message: `this exchange could not be judged: ${(e as Error).message}`,
          exchanges: [x.seq],
        });
      }
      return found;
    },
    sweep: (now) => state.sweep(now + origin),
    coverage: () => counter.coverage(),
  };
}
