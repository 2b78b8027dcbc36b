/**
 * What the proxy saw and found: coverage in the suite's form, findings each with the exchanges that
 * show it (masked) as a runnable curl script (the suite's own `curlScript`), the live JSON report,
 * the JSON / JUnit (the suite's `writeJunit`) / HAR files. Nothing here holds a key in clear on
 * its way out: every exchange is masked (mask.ts) before it leaves.
 */
import { writeFileSync } from 'node:fs';
import { stateMachine, variants, type Variant } from '../generated/index.ts';
import { NOT_DRIVABLE, type Coverage } from '../conformance/coverage.ts';
import type { Exchange } from '../conformance/http.ts';
import { curlScript, writeJunit, type Finding } from '../conformance/report.ts';
import { Contract } from '../conformance/spec.ts';
import { isCredentialHeader, mask, maskHeaders, maskText } from './mask.ts';
import { harOf, isoMicro, jsonOf } from './har.ts';
import { answerJson, slim } from './ring.ts';
import type { StateFinding, StateTracker } from './state.ts';
import { VARIANTS, type VariantBook } from './variant.ts';

export interface ProxyFinding {
  kind: string;
  operation: string;
  jsonPath: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
  txId?: string;
  exchanges: number[];
}

/** A finding as reported: its exchanges masked, and as a curl script. */
export interface ReportedFinding extends Omit<ProxyFinding, 'exchanges'> {
  n: number;
  at: string;
  exchanges: MaskedExchange[];
  /** Exchanges the finding names that the ring no longer held. */
  exchangesDropped: number[];
  curl: string;
}

/**
 * An exchange as a report shows it: the suite's Exchange (conformance/http.ts), masked, with its
 * number, its operation under the report's name, and its times as a date and a duration; not its
 * parsed JSON (the text is there).
 */
export interface MaskedExchange extends Pick<
  Exchange,
  'method' | 'url' | 'headers' | 'body' | 'status' | 'responseHeaders' | 'responseText'
> {
  n: number;
  operation: Exchange['opId'];
  startedAt: string;
  ms: number;
}

/** The proxy's coverage: the suite's form (transitions, codes) with the operations, statuses and events seen. */
export interface ProxyCoverage extends Coverage {
  operations: { exercised: string[]; missing: string[] };
  statuses: string[];
  events: { exercised: string[]; missing: string[]; received: number; unknownTransaction: number };
  unrouted: number;
}

/** Most findings kept in full (the count goes on). */
export const MAX_FINDINGS = 1000;

export class Recorder {
  readonly upstream: string;
  private seq = 0;
  private readonly ring = new Map<number, Exchange>();
  readonly findings: ReportedFinding[] = [];
  findingCount = 0;
  requests = 0;
  judgedCount = 0;
  readonly startedAt = new Date();
  private readonly ops = new Map<string, number>();
  private readonly statuses = new Set<string>();
  private readonly codes = new Set<string>();
  private unrouted = 0;
  webhooksReceived = 0;
  /** Requests whose client closed the connection before the answer ended (not judged, not a finding). */
  clientAborts = 0;

  constructor(
    private readonly o: {
      upstream: string;
      variants: VariantBook;
      state: StateTracker;
      keep: number;
      /** The most characters of each body kept (default RING_BODY_CHARS). */
      keepBodyChars?: number;
      log?: (line: string) => void;
      secrets: string[];
      /** Where webhook deliveries are forwarded (their URL in the HAR). */
      hookUrl?: string;
    },
  ) {
    this.upstream = o.upstream;
  }

  nextSeq(): number {
    this.requests++;
    return ++this.seq;
  }

  /** Keeps an exchange (the last `keep`) and counts what it covers. */
  record(seq: number, ex: Exchange, routed: boolean): void {
    this.ring.set(seq, slim(ex, this.o.keepBodyChars));
    if (this.ring.size > this.o.keep) this.ring.delete(this.ring.keys().next().value as number);
    if (!routed) {
      this.unrouted++;
      return;
    }
    this.ops.set(ex.opId, (this.ops.get(ex.opId) ?? 0) + 1);
    this.statuses.add(`${ex.opId} ${ex.status}`);
    if (ex.status >= 400) {
      const c = (ex.json as { error?: { code?: unknown } } | undefined)?.error?.code;
      if (typeof c === 'string') this.codes.add(`${ex.opId} ${ex.status} ${c}`);
    }
  }

  judged(_ex: Exchange, findings: (ProxyFinding | StateFinding)[]): void {
    this.judgedCount++;
    for (const f of findings) this.add(f);
  }

  /** The upstream could not be reached, or its answer broke off: the client got a 502 or a cut connection. */
  failure(seq: number, method: string, url: string, why: string): void {
    this.add({ kind: 'upstream', operation: `${method} ${url.split('?')[0]}`, jsonPath: '$', message: why, exchanges: [seq] });
  }

  /** A delivery received on the webhook port, kept as an exchange (its answer the receiver's: `delivered`), judged by `judgeDelivery`; its number. */
  webhook(body: string, headers: Record<string, string>, at: number, truncated: boolean, verify: DeliveryVerdict): number {
    this.webhooksReceived++;
    const seq = ++this.seq;
    const perf = at - performance.timeOrigin;
    this.ring.set(seq, {
      opId: `webhook ${eventName(truncated ? undefined : body)}`,
      method: 'POST',
      url: this.o.hookUrl ?? `${this.upstream}/(webhook delivery)`,
      headers,
      body: truncated ? undefined : body,
      status: 0,
      responseHeaders: {},
      responseText: '',
      json: undefined,
      sentAt: perf,
      receivedAt: perf,
    });
    if (this.ring.size > this.o.keep) this.ring.delete(this.ring.keys().next().value as number);
    for (const f of judgeDelivery(this.o.state, seq, truncated ? undefined : body, headers, at, verify)) this.add(f);
    return seq;
  }

  /** The receiver answered delivery `seq` (its status shown in the HAR). */
  delivered(seq: number, status: number): void {
    const ex = this.ring.get(seq);
    if (ex) ex.status = status;
  }

  /** Transitions whose event is overdue. */
  sweep(): void {
    for (const f of this.o.state.sweep(performance.timeOrigin + performance.now())) this.add(f);
  }

  private add(f: ProxyFinding | StateFinding): void {
    this.findingCount++;
    const n = this.findingCount;
    if (this.findings.length >= MAX_FINDINGS) return;
    const reported = reportFinding(f, n, this.ring, { upstream: this.upstream, secrets: this.o.secrets, ear: 'the paylater proxy saw' });
    this.findings.push(reported);
    this.o.log?.(`finding ${n} (${f.kind}) ${f.operation} ${f.jsonPath}: ${reported.message}`);
  }

  /** The variants the traffic speaks: the one every key is held to, else those keys were pinned to (both before any was). */
  private variantsSpoken(): Variant[] {
    const b = this.o.variants;
    if (b.fixed !== undefined) return [b.fixed];
    const seen = VARIANTS.filter((v) => b.pinned[v] > 0);
    return seen.length ? seen : [...VARIANTS];
  }

  coverage(): ProxyCoverage {
    const spoken = this.variantsSpoken();
    // every operation of the variants, the SDK's (x-internal) ones too: a browser's checkout uses them
    const ops = [...new Set(spoken.flatMap((v) => Object.keys(variants[v === 1 ? 'v1' : 'v2'].operations)))];
    const declared = new Set<string>();
    const notDriven = new Set<string>();
    for (const v of spoken)
      for (const op of ops) {
        const contract = Contract.for(v);
        if (!contract.has(op)) continue;
        for (const [status, codes] of Object.entries(contract.op(op).errors))
          for (const c of codes) {
            const k = `${op} ${status} ${c}`;
            if (c in NOT_DRIVABLE && !this.codes.has(k)) notDriven.add(`${k} (${NOT_DRIVABLE[c]})`);
            else declared.add(k);
          }
      }
    const st = this.o.state;
    const transitions = stateMachine.transitions.map((t) => t.id);
    const events = [...new Set(spoken.flatMap((v) => variants[v === 1 ? 'v1' : 'v2'].webhookEvents))];
    return {
      operations: { exercised: ops.filter((o) => this.ops.has(o)), missing: ops.filter((o) => !this.ops.has(o)) },
      statuses: [...this.statuses].sort(),
      transitions: {
        exercised: transitions.filter((t) => st.transitions.has(t)),
        missing: transitions.filter((t) => !st.transitions.has(t)),
      },
      codes: {
        exercised: [...declared].filter((k) => this.codes.has(k)),
        missing: [...declared].filter((k) => !this.codes.has(k)),
        notDriven: [...notDriven],
      },
      events: {
        exercised: events.filter((e) => st.events.has(e)),
        missing: events.filter((e) => !st.events.has(e)),
        received: this.webhooksReceived,
        unknownTransaction: st.unknownEvents,
      },
      unrouted: this.unrouted,
    };
  }

  report(): Record<string, unknown> {
    const st = this.o.state;
    return {
      tool: 'paylater proxy',
      upstream: this.upstream,
      variant: this.o.variants.fixed ?? 'per key',
      keysPinned: this.o.variants.pinned,
      startedAt: this.startedAt.toISOString(),
      requests: this.requests,
      judged: this.judgedCount,
      clientAborts: this.clientAborts,
      findings: this.findingCount,
      exitCode: this.findingCount ? 1 : 0,
      state: { transactions: st.txs.size, maxTransactions: st.max, dropped: st.dropped, paymentWindowSeconds: st.windowMs / 1000 },
      coverage: this.coverage(),
      findingList: this.findings,
      findingsNotListed: this.findingCount - this.findings.length,
    };
  }

  /** HAR 1.2 of the exchanges still held (masked). */
  har(): Record<string, unknown> {
    const held = [...this.ring.entries()];
    return harOf(
      held.map(([n, ex]) => maskedExchange(n, ex, this.o.secrets)),
      'paylater proxy',
    );
  }

  writeFiles(files: { json?: string; junit?: string; har?: string }): void {
    if (files.json) writeFileSync(files.json, JSON.stringify(this.report(), null, 2) + '\n');
    if (files.har) writeFileSync(files.har, JSON.stringify(this.har(), null, 2) + '\n');
    if (files.junit) {
      const asFindings = this.findings.map((f) => suiteFinding(f, 'paylater proxy'));
      writeJunit(
        files.junit,
        `paylater proxy ${this.o.variants.fixed ? `v${this.o.variants.fixed}` : 'variant per key'} ${this.upstream}`,
        this.judgedCount,
        asFindings,
        (Date.now() - this.startedAt.getTime()) / 1000,
      );
    }
  }

  /** The summary `paylater proxy` prints when it stops. */
  summary(): string[] {
    const c = this.coverage();
    return [
      ...findingLines(this.findings, this.findingCount),
      `${this.requests} requests (${this.judgedCount} judged, ${c.unrouted} not an operation), ${this.webhooksReceived} webhooks; ${this.findingCount} finding(s)`,
      ...coverageLines(c),
    ];
  }
}

/** The findings as the summary prints them: the first 20 in full. */
export function findingLines(findings: ReportedFinding[], count: number): string[] {
  const lines: string[] = [];
  for (const f of findings.slice(0, 20)) lines.push(`--- finding ${f.n} (${f.kind}): ${f.operation} ${f.jsonPath}`, f.message);
  if (count > 20) lines.push(`(${count - 20} more in the JSON report)`);
  return lines;
}

/** The coverage as the summary prints it. */
export function coverageLines(c: ProxyCoverage): string[] {
  return [
    `operations exercised: ${c.operations.exercised.length}/${c.operations.exercised.length + c.operations.missing.length}${c.operations.missing.length ? `; not exercised: ${c.operations.missing.join(', ')}` : ''}`,
    `transitions exercised: ${c.transitions.exercised.join(', ') || 'none'}${c.transitions.missing.length ? `; not exercised: ${c.transitions.missing.join(', ')}` : ''}`,
    `error codes exercised: ${c.codes.exercised.length}/${c.codes.exercised.length + c.codes.missing.length}`,
    `events matched to a transition: ${c.events.exercised.join(', ') || 'none'}`,
  ];
}

/**
 * An exchange as a report shows it: masked, numbered `n`, its start as ISO 8601 (µs) on the clock
 * `timeOrigin` + its times (the proxy's: performance.timeOrigin; a HAR's: 0).
 */
export function maskedExchange(n: number, ex: Exchange, secrets: readonly string[], timeOrigin = performance.timeOrigin): MaskedExchange {
  return {
    n,
    operation: ex.opId,
    method: ex.method,
    url: maskText(ex.url, secrets),
    headers: maskHeaders(ex.headers, secrets),
    body: ex.body === undefined ? undefined : maskText(ex.body, secrets),
    status: ex.status,
    responseHeaders: maskHeaders(ex.responseHeaders, secrets),
    responseText: maskText(ex.responseText, secrets),
    startedAt: isoMicro(timeOrigin + ex.sentAt),
    ms: Math.round((ex.receivedAt - ex.sentAt) * 1000) / 1000,
  };
}

/** What a delivery's body shows: the problems of its signature, JSON and AsyncAPI payload, and the event. */
export type DeliveryVerdict = (body: string) => {
  problems: string[];
  event: { event?: string; data?: { id?: string; status?: string } } | undefined;
};

/** The event a delivery names, or '?'. */
const eventName = (body: string | undefined): string => (jsonOf(body) as { event?: string } | undefined)?.event ?? '?';

/**
 * A webhook delivery judged, received at `at` (epoch ms): a body too large to copy (undefined), the
 * problems `verify` finds, a status its event's transition does not lead to, then the state's
 * matching of the event to the transitions it saw.
 */
export function judgeDelivery(
  state: StateTracker,
  seq: number,
  body: string | undefined,
  headers: Record<string, string>,
  at: number,
  verify: DeliveryVerdict,
): (ProxyFinding | StateFinding)[] {
  const operation = `webhook ${eventName(body)}`;
  if (body === undefined)
    return [
      { kind: 'webhook-payload', operation: 'webhook', jsonPath: '$', message: 'a webhook body too large to copy', exchanges: [seq] },
    ];
  const { problems, event } = verify(body);
  if (problems.length) return [{ kind: 'webhook-payload', operation, jsonPath: '$', message: problems.join('; '), exchanges: [seq] }];
  const id = event?.data?.id;
  if (typeof id !== 'string' || !event?.event) return [];
  const out: (ProxyFinding | StateFinding)[] = [];
  const want = stateMachine.transitions.find((t) => t.emits === event.event)?.to;
  if (state.txs.get(id) && want && event.data?.status !== want)
    out.push({
      kind: 'webhook-payload',
      operation: `webhook ${event.event}`,
      jsonPath: '$.data.status',
      message: `event ${event.event} for ${id} has status ${String(event.data?.status)}; its transition leads to ${want}`,
      exchanges: [seq],
      txId: id,
    });
  for (const f of state.event(event.event, id, headers['webhook-id'] ?? '', at, seq, event.data))
    out.push({ ...f, exchanges: [...f.exchanges.filter((x) => x !== seq), seq] });
  return out;
}

/**
 * A finding as reported: the exchanges `held` still holds of those it names, masked, numbered as
 * the ear numbers them, with the suite's curl script of them; the message masked.
 */
export function reportFinding(
  f: ProxyFinding | StateFinding,
  n: number,
  held: ReadonlyMap<number, Exchange>,
  o: { upstream: string; secrets: readonly string[]; ear: string; timeOrigin?: number },
): ReportedFinding {
  const shown = f.exchanges.filter((s) => held.has(s));
  return {
    n,
    at: new Date().toISOString(),
    kind: f.kind,
    operation: f.operation,
    jsonPath: f.jsonPath,
    message: maskText(f.message, o.secrets),
    expected: f.expected,
    actual: f.actual,
    txId: f.txId,
    exchanges: shown.map((s) => maskedExchange(s, held.get(s)!, o.secrets, o.timeOrigin)),
    exchangesDropped: f.exchanges.filter((s) => !held.has(s)),
    curl: curlOf(
      shown.map((s) => held.get(s)!).filter((e) => !e.opId.startsWith('webhook ')),
      o.upstream,
      o.secrets,
      o.ear,
    ),
  };
}

/**
 * The suite's curl script of the exchanges, masked: the first two merchant keys become $API_KEY and
 * $OTHER_API_KEY, any other credential stays masked (MASKED_…) for the reader to fill in.
 */
export function curlOf(list: Exchange[], upstream: string, secrets: readonly string[], ear: string): string {
  if (!list.length) return '';
  const keys: string[] = [];
  const masked = list.map((ex) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ex.headers)) {
      if (k === 'host' || k === 'content-length' || k === 'connection') continue;
      if (isCredentialHeader(k)) {
        const m = v.startsWith('MASKED_') ? v : mask(v);
        if (k !== 'x-session-token' && !keys.includes(m)) keys.push(m);
        headers[k] = m;
      } else headers[k] = maskText(v, secrets);
    }
    return {
      ...ex,
      url: maskText(ex.url, secrets),
      headers,
      body: ex.body === undefined ? undefined : maskText(ex.body, secrets),
      responseText: '',
      json: answerJson(ex),
    };
  });
  const apiKey = keys[0] ?? 'MASKED_NO_KEY_0';
  const otherApiKey = keys[1] ?? 'MASKED_NO_KEY_1';
  let script = curlScript(masked, { apiKey, otherApiKey, baseUrl: upstream });
  if (keys.length < 2) script = script.replace(' "${OTHER_API_KEY:?set OTHER_API_KEY}"', '');
  if (keys.length < 1) script = script.replace(': "${API_KEY:?set API_KEY}"\n', '');
  return script.replace('# Replays the shrunk command sequence.', `# Replays the exchanges ${ear} (keys masked: set them).`);
}

/** A reported finding in the suite's form (its JUnit report). */
export function suiteFinding(f: ReportedFinding, tool: string): Finding {
  return {
    title: `${f.kind}: ${f.operation} ${f.jsonPath}`,
    operation: f.operation,
    jsonPath: f.jsonPath,
    message: f.message,
    expected: f.expected,
    actual: f.actual,
    phase: 'property',
    commands: f.exchanges.map((e) => `#${e.n} ${e.method} ${e.url} -> ${e.status}`),
    curl: f.curl,
    seed: 0,
    replay: `finding ${f.n} of ${tool} (${f.kind})`,
  };
}
