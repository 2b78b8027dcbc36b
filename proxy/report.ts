/**
 * What an ear of traffic saw and what the judge found: findings each with the exchanges that show
 * it (masked) as a runnable curl script (the report's `curlScript`), the judge's coverage, the live
 * JSON report, the JSON / JUnit (`writeJunit`) / HAR files. The proxy's recorder and `paylater
 * judge` report with the same pieces. Nothing here holds a key in clear on its way out: every
 * exchange is masked (mask.ts) before it leaves.
 */
import type { Judge } from '../judge/index.ts';
import type { Delivery, EarFinding, JudgeCoverage, NamedExchange as Exchange } from '../judge/exchange.ts';
import { curlScript, writeJson, writeJunit, type Finding } from '../judge/report.ts';
import { isCredentialHeader, mask, maskHeaders, maskText } from './mask.ts';
import { jsonOf } from '../lib/json.ts';
import { harOf, isoMicro } from './har.ts';
import { slim, wasCut } from './ring.ts';

/** A finding as reported: its exchanges masked, and as a curl script. */
export interface ReportedFinding extends Omit<EarFinding, 'exchanges'> {
  n: number;
  at: string;
  exchanges: MaskedExchange[];
  /** Exchanges the finding names that the ring no longer held. */
  exchangesDropped: number[];
  curl: string;
}

/**
 * An exchange as a report shows it: the one judge's NamedExchange, masked, with its
 * number, its operation under the report's name, and its times as a date and a duration; not its
 * parsed JSON (the text is there).
 */
export interface MaskedExchange extends Pick<
  Exchange,
  'method' | 'url' | 'headers' | 'body' | 'status' | 'responseHeaders' | 'responseText' | 'requestTruncated' | 'responseTruncated'
> {
  n: number;
  operation: Exchange['opId'];
  startedAt: string;
  ms: number;
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
  webhooksReceived = 0;
  /** Requests whose client closed the connection before the answer ended (not judged, not a finding). */
  clientAborts = 0;
  /** Exchanges judged at once because the judging queue was full (their answers had gone; the next requests waited). */
  judgedAtOnce = 0;

  constructor(
    private readonly o: {
      upstream: string;
      judge: Judge;
      keep: number;
      /** The most characters of each body kept (default RING_BODY_CHARS). */
      keepBodyChars?: number;
      log?: (line: string) => void;
      secrets: string[];
    },
  ) {
    this.upstream = o.upstream;
  }

  nextSeq(): number {
    this.requests++;
    return ++this.seq;
  }

  /** Keeps an exchange (the last `keep`, webhook deliveries among them) for the findings' curl scripts and the HAR. */
  record(seq: number, ex: Exchange): void {
    this.ring.set(seq, slim(ex, this.o.keepBodyChars));
    if (this.ring.size > this.o.keep) this.ring.delete(this.ring.keys().next().value as number);
  }

  /** An exchange judged: its findings reported. */
  judged(findings: readonly EarFinding[]): void {
    this.judgedCount++;
    for (const f of findings) this.add(f);
  }

  /** The upstream could not be reached, or its answer broke off: the client got a 502 or a cut connection. */
  failure(seq: number, method: string, url: string, why: string): void {
    this.add({ kind: 'upstream', operation: `${method} ${url.split('?')[0]}`, jsonPath: '$', message: why, exchanges: [seq] });
  }

  /**
   * A delivery received on the webhook port at `url` (the proxy's webhook URL and the path it was
   * sent to): kept in the ring as an exchange (its status the receiver's answer, `delivered`; 0
   * until then), then judged.
   */
  webhook(d: Delivery, url: string): void {
    this.webhooksReceived++;
    this.record(d.seq, deliveryExchange(d, url, 0));
    for (const f of this.o.judge.delivery(d)) this.add(f);
  }

  /** The receiver answered delivery `seq` (its status shown in the HAR). */
  delivered(seq: number, status: number): void {
    const ex = this.ring.get(seq);
    if (ex) ex.status = status;
  }

  /** Transitions whose event is overdue. */
  sweep(): void {
    for (const f of this.o.judge.sweep(performance.now())) this.add(f);
  }

  private add(f: EarFinding): void {
    this.findingCount++;
    const n = this.findingCount;
    if (this.findings.length >= MAX_FINDINGS) return;
    const reported = reportFinding(f, n, this.ring, { upstream: this.upstream, secrets: this.o.secrets, ear: 'the paylater proxy saw' });
    this.findings.push(reported);
    this.o.log?.(`finding ${n} (${f.kind}) ${f.operation} ${f.jsonPath}: ${reported.message}`);
  }

  /** The judge's coverage of the traffic. */
  coverage(): JudgeCoverage {
    return this.o.judge.coverage();
  }

  report(): Record<string, unknown> {
    const { memory, settings } = this.o.judge;
    return {
      tool: 'paylater proxy',
      upstream: this.upstream,
      variant: settings.fixedVariant ?? 'per key',
      keysPinned: { ...memory.pinned },
      startedAt: this.startedAt.toISOString(),
      requests: this.requests,
      judged: this.judgedCount,
      clientAborts: this.clientAborts,
      judgedAtOnce: this.judgedAtOnce,
      findings: this.findingCount,
      exitCode: this.findingCount ? 1 : 0,
      state: {
        transactions: memory.transactions.size,
        maxTransactions: memory.max,
        dropped: memory.dropped,
        paymentWindowSeconds: settings.paymentWindowMs / 1000,
      },
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
    if (files.har) writeJson(files.har, this.har());
    const v = this.o.judge.settings.fixedVariant;
    writeReports(files, this.report(), {
      tool: 'paylater proxy',
      findings: this.findings,
      name: `paylater proxy ${v ? `v${v}` : 'variant per key'} ${this.upstream}`,
      checks: this.judgedCount,
      seconds: (Date.now() - this.startedAt.getTime()) / 1000,
    });
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
export function coverageLines(c: JudgeCoverage): string[] {
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
    requestTruncated: ex.requestTruncated || undefined,
    responseTruncated: ex.responseTruncated || undefined,
    startedAt: isoMicro(timeOrigin + ex.sentAt),
    ms: Math.round((ex.receivedAt - ex.sentAt) * 1000) / 1000,
  };
}

/** A webhook delivery as reports show it: an exchange named for its event, its status the receiver's answer (0: none yet). */
export function deliveryExchange(d: Delivery, url: string, status: number): Exchange {
  const body = d.truncated ? undefined : d.body;
  return {
    opId: `webhook ${(jsonOf(body) as { event?: string } | undefined)?.event ?? '?'}`,
    method: 'POST',
    url,
    headers: d.headers,
    body,
    requestTruncated: d.truncated,
    status,
    responseHeaders: {},
    responseText: '',
    json: undefined,
    sentAt: d.receivedAt,
    receivedAt: d.receivedAt,
  };
}

/**
 * A finding as reported: the exchanges `held` still holds of those it names, masked, numbered as
 * the ear numbers them, with the suite's curl script of them; the message masked.
 */
export function reportFinding(
  f: EarFinding,
  n: number,
  held: ReadonlyMap<number, Exchange>,
  o: { upstream: string; secrets: readonly string[]; ear: string; timeOrigin?: number },
): ReportedFinding {
  const shown = f.exchanges.filter((s) => held.has(s));
  return {
    n,
    at: new Date().toISOString(),
    ...f,
    message: maskText(f.message, o.secrets),
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
function curlOf(list: Exchange[], upstream: string, secrets: readonly string[], ear: string): string {
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
      json: wasCut(ex.responseText) ? undefined : jsonOf(ex.responseText),
    };
  });
  const apiKey = keys[0] ?? 'MASKED_NO_KEY_0';
  const otherApiKey = keys[1] ?? 'MASKED_NO_KEY_1';
  let script = curlScript(masked, { apiKey, otherApiKey, baseUrl: upstream });
  if (keys.length < 2) script = script.replace(' "${OTHER_API_KEY:?set OTHER_API_KEY}"', '');
  if (keys.length < 1) script = script.replace(': "${API_KEY:?set API_KEY}"\n', '');
  return script.replace('# Replays the shrunk command sequence.', `# Replays the exchanges ${ear} (keys masked: set them).`);
}

/** An ear's report as JSON (`files.json`), and its findings as JUnit (`files.junit`: a failed test case each, in the suite's form). */
export function writeReports(
  files: { json?: string; junit?: string },
  report: Record<string, unknown>,
  suite: { tool: string; findings: ReportedFinding[]; name: string; checks: number; seconds: number },
): void {
  if (files.json) writeJson(files.json, report);
  const asSuite = suite.findings.map((f): Finding => ({
    title: `${f.kind}: ${f.operation} ${f.jsonPath}`,
    ...f,
    phase: 'property',
    commands: f.exchanges.map((e) => `#${e.n} ${e.method} ${e.url} -> ${e.status}`),
    seed: 0,
    replay: `finding ${f.n} of ${suite.tool} (${f.kind})`,
  }));
  if (files.junit) writeJunit(files.junit, suite.name, suite.checks, asSuite, suite.seconds);
}
