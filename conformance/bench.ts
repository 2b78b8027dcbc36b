/**
 * Figures for `npm run bench`: the suite's throughput relative to a plain loop sending the same
 * HTTP requests without checks (target >= 0.7). Black-box: takes base URLs and keys.
 *
 * Fairness: the suite runs against server A; every request and its response are recorded. The
 * same requests are then sent one after another to server B, which must be in the same initial
 * state as A was (fresh, same merchants), so B does the same work: ids, tokens, session and
 * payment-intent ids that B hands out are substituted as they come back (every string value of A's
 * responses is mapped to the value at the same JSON path in B's response, and later URLs, headers
 * and bodies are rewritten with that map). The loop checks nothing; after the timing, the statuses
 * B answered are compared with A's to show the replay did the same work. By default each replayed
 * request is sent right after the suite's (B one request behind A) and its time is taken out of the
 * suite's wall time, so machine noise falls on both sides alike; `mode: 'sequential'` replays after.
 * The suite's pauses (time it sleeps on purpose: a rate window left to age, the throttle's pacing, a poll's interval;
 * `SuiteResult.pausedMs`) are taken out too: the loop replays the requests, not the waits between
 * them, and the figure is what the checks cost.
 */
import { stateMachine } from '../generated/contract.ts';
import type { Exchange } from './http.ts';
import { runSuite } from './run.ts';
import { undiciTransport } from './transport.ts';
import { Contract } from '../judge/contract.ts';

export interface Target {
  baseUrl: string;
  apiKey: string;
  otherApiKey: string;
}

export interface ThroughputOptions {
  variant?: 1 | 2;
  profile?: 'core' | 'sandbox';
  runs?: number;
  seed?: number;
  maxCommands?: number;
  /**
   * 'interleaved' (default): each request is replayed against B right after the suite got A's
   * answer, and the replay's time is taken out of the suite's wall time — both sides see the same
   * machine noise (a shared 2-core box is noisy). 'sequential': the whole replay after the suite.
   */
  mode?: 'interleaved' | 'sequential';
}

export interface ThroughputResult {
  suiteRequests: number;
  suiteCommands: number;
  /** The suite's wall time, the loop's steps and its pauses taken out. */
  suiteMs: number;
  /** The suite's pauses, taken out of suiteMs. */
  suitePausedMs: number;
  /** Of suiteMs: time waiting for the server (request sent → response read), summed. */
  suiteHttpMs: number;
  loopMs: number;
  /** One-time load of the contract (bundled document + ajv compilation), before the timing. */
  contractLoadMs: number;
  suiteRequestsPerSecond: number;
  loopRequestsPerSecond: number;
  commandsPerSecond: number;
  /** (requests/s of the suite) ÷ (requests/s of the plain loop over the same requests). */
  ratio: number;
  /** Replayed requests whose status equals the one the suite got (the replay did the same work). */
  sameStatus: number;
  findings: number;
}

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  status: number;
  response: string;
}

/** The strings a server hands out: ids, tokens (no timestamps, amounts or prose). */
const TOKEN = /[A-Za-z0-9_-]{6,}/g;
const WHOLE_TOKEN = /^[A-Za-z0-9_-]{6,}$/;

/** Maps every token-like string leaf of `a` to the leaf at the same JSON path of `b`. */
export function mapStrings(a: unknown, b: unknown, map: Map<string, string>): void {
  if (typeof a === 'string') {
    if (typeof b === 'string' && a !== b && WHOLE_TOKEN.test(a) && !map.has(a)) map.set(a, b);
    return;
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return;
    for (let i = 0; i < a.length && i < b.length; i++) mapStrings(a[i], b[i], map);
    return;
  }
  const bo = b as Record<string, unknown>;
  for (const [k, v] of Object.entries(a as Record<string, unknown>)) if (k in bo) mapStrings(v, bo[k], map);
}

function parse(text: string): unknown {
  if (!text.length || (text[0] !== '{' && text[0] !== '[')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function measureConformanceThroughput(suite: Target, replay: Target, opts: ThroughputOptions = {}): Promise<ThroughputResult> {
  const variant = opts.variant ?? 1;
  const profile = opts.profile ?? 'core';
  // The contract is loaded once per process (the CLI does it at start); not a per-command cost.
  const c0 = performance.now();
  Contract.for(variant).warm();
  const contractLoadMs = performance.now() - c0;

  // B's ids and tokens, substituted into later requests as they come back.
  const map = new Map<string, string>([
    [suite.apiKey, replay.apiKey],
    [suite.otherApiKey, replay.otherApiKey],
  ]);
  const sub = (s: string): string => s.replace(TOKEN, (t) => map.get(t) ?? t);
  const base = suite.baseUrl.replace(/\/$/, '');
  const replayBase = replay.baseUrl.replace(/\/$/, '');
  /** The plain loop's step: the same request to B, no checks; its response only feeds the id map. */
  const replayOne = async (q: Recorded): Promise<number> => {
    const url = replayBase + sub(q.url.slice(base.length));
    const headers: Record<string, string> = {};
    for (const k in q.headers) headers[k] = sub(q.headers[k]!);
    // the suite's own transport: the loop differs from the suite by its checks alone
    const res = await undiciTransport(url, { method: q.method, headers, body: q.body === undefined ? undefined : sub(q.body) });
    const text = await res.text();
    if (res.status < 300) mapStrings(parse(q.response), parse(text), map);
    return res.status;
  };

  const recorded: Recorded[] = [];
  const statuses: number[] = [];
  let suiteHttpMs = 0;
  let loopMs = 0;
  const interleaved = (opts.mode ?? 'interleaved') === 'interleaved';
  const onExchange = async (ex: Exchange): Promise<void> => {
    suiteHttpMs += ex.receivedAt - ex.sentAt;
    const q: Recorded = {
      url: ex.url,
      method: ex.method,
      headers: ex.headers,
      body: ex.body,
      status: ex.status,
      response: ex.responseText,
    };
    recorded.push(q);
    if (!interleaved) return;
    const t = performance.now();
    statuses.push(await replayOne(q));
    loopMs += performance.now() - t;
  };
  const t0 = performance.now();
  const r = await runSuite({
    baseUrl: suite.baseUrl,
    apiKey: suite.apiKey,
    otherApiKey: suite.otherApiKey,
    variant,
    profile,
    runs: opts.runs ?? 20,
    seed: opts.seed ?? 1,
    maxCommands: opts.maxCommands ?? 25,
    paymentWindowSeconds: stateMachine.paymentWindow.defaultSeconds,
    onExchange,
  });
  // interleaved: the loop's steps ran inside the suite's wall time; take them out, and the suite's pauses
  const suiteMs = performance.now() - t0 - loopMs - r.pausedMs;
  if (!interleaved) {
    const t1 = performance.now();
    for (const q of recorded) statuses.push(await replayOne(q));
    loopMs = performance.now() - t1;
  }
  const sameStatus = statuses.filter((s, i) => s === recorded[i]!.status).length;
  const n = recorded.length;
  return {
    suiteRequests: n,
    suiteCommands: r.commands,
    suiteMs,
    suitePausedMs: r.pausedMs,
    suiteHttpMs,
    loopMs,
    contractLoadMs,
    suiteRequestsPerSecond: n / (suiteMs / 1000),
    loopRequestsPerSecond: n / (loopMs / 1000),
    commandsPerSecond: r.commands / (suiteMs / 1000),
    ratio: n / suiteMs / (n / loopMs),
    sameStatus,
    findings: r.findings.length,
  };
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
