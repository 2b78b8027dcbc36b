/**
 * What the proxy saw and what the judge found: findings each with the exchanges that show it
 * (masked) as a runnable curl script (the report's `curlScript`), the judge's coverage, the live
 * JSON report, the JSON / JUnit (`writeJunit`) / HAR files. Nothing here holds a key in clear on
 * its way out: every exchange is masked (mask.ts) before it leaves.
 */
import { writeFileSync } from 'node:fs';
import type { Judge } from '../judge/index.ts';
import type { Finding as JudgeFinding, JudgeCoverage, NamedExchange as Exchange } from '../judge/exchange.ts';
import { curlScript, writeJunit, type Finding } from '../judge/report.ts';
import { isCredentialHeader, mask, maskHeaders, maskText } from './mask.ts';
import { answerJson, slim } from './ring.ts';

/** A finding of the judge, or the proxy's own (`upstream`: the upstream unreachable or its answer cut off; an answer that does not decompress). */
export interface ProxyFinding extends Omit<JudgeFinding, 'kind'> {
  kind: JudgeFinding['kind'] | 'upstream';
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

  /** Keeps an exchange (the last `keep`) for the findings' curl scripts and the HAR. */
  record(seq: number, ex: Exchange): void {
    this.ring.set(seq, slim(ex));
    if (this.ring.size > this.o.keep) this.ring.delete(this.ring.keys().next().value as number);
  }

  /** An exchange judged: its findings reported. */
  judged(findings: readonly ProxyFinding[]): void {
    this.judgedCount++;
    for (const f of findings) this.add(f);
  }

  /** The upstream could not be reached, or its answer broke off: the client got a 502 or a cut connection. */
  failure(seq: number, method: string, url: string, why: string): void {
    this.add({ kind: 'upstream', operation: `${method} ${url.split('?')[0]}`, jsonPath: '$', message: why, exchanges: [seq] });
  }

  /** A delivery received on the webhook port: kept in the ring (as a pseudo-exchange, status 0), then judged. */
  webhook(seq: number, body: string, headers: Record<string, string>, at: number, truncated: boolean): void {
    this.webhooksReceived++;
    let name: string;
    try {
      name = truncated ? '?' : ((JSON.parse(body) as { event?: string }).event ?? '?');
    } catch {
      name = '?';
    }
    this.ring.set(seq, {
      opId: `webhook ${name}`,
      method: 'POST',
      url: `${this.upstream}/(webhook delivery)`,
      headers,
      body: truncated ? undefined : body,
      status: 0,
      responseHeaders: {},
      responseText: '',
      json: undefined,
      sentAt: at,
      receivedAt: at,
    });
    if (this.ring.size > this.o.keep) this.ring.delete(this.ring.keys().next().value as number);
    for (const f of this.o.judge.delivery({ seq, receivedAt: at, headers, body, truncated })) this.add(f);
  }

  /** Transitions whose event is overdue. */
  sweep(): void {
    for (const f of this.o.judge.sweep(performance.now())) this.add(f);
  }

  private add(f: ProxyFinding): void {
    this.findingCount++;
    const n = this.findingCount;
    if (this.findings.length >= MAX_FINDINGS) return;
    const held = f.exchanges.filter((s) => this.ring.has(s));
    const exchanges = held.map((s) => this.ring.get(s)!);
    const reported: ReportedFinding = {
      n,
      at: new Date().toISOString(),
      kind: f.kind,
      operation: f.operation,
      jsonPath: f.jsonPath,
      message: this.maskText(f.message),
      expected: f.expected,
      actual: f.actual,
      txId: f.txId,
      exchanges: held.map((s) => this.masked(s, this.ring.get(s)!)),
      exchangesDropped: f.exchanges.filter((s) => !this.ring.has(s)),
      curl: this.curl(exchanges.filter((e) => e.status !== 0 || !e.opId.startsWith('webhook '))),
    };
    this.findings.push(reported);
    this.o.log?.(`finding ${n} (${f.kind}) ${f.operation} ${f.jsonPath}: ${reported.message}`);
  }

  private maskText(s: string): string {
    return maskText(s, this.o.secrets);
  }

  private masked(n: number, ex: Exchange): MaskedExchange {
    return {
      n,
      operation: ex.opId,
      method: ex.method,
      url: this.maskText(ex.url),
      headers: maskHeaders(ex.headers, this.o.secrets),
      body: ex.body === undefined ? undefined : this.maskText(ex.body),
      status: ex.status,
      responseHeaders: maskHeaders(ex.responseHeaders, this.o.secrets),
      responseText: this.maskText(ex.responseText),
      startedAt: new Date(performance.timeOrigin + ex.sentAt).toISOString(),
      ms: Math.round((ex.receivedAt - ex.sentAt) * 1000) / 1000,
    };
  }

  /**
   * The suite's curl script of the exchanges, masked: the first two merchant keys become $API_KEY and
   * $OTHER_API_KEY, any other credential stays masked (MASKED_…) for the reader to fill in.
   */
  private curl(list: Exchange[]): string {
    if (!list.length) return '';
    const keys: string[] = [];
    const masked = list.map((ex) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(ex.headers)) {
        if (k === 'host' || k === 'content-length' || k === 'connection') continue;
        if (isCredentialHeader(k)) {
          const m = mask(v);
          if (k !== 'x-session-token' && !keys.includes(m)) keys.push(m);
          headers[k] = m;
        } else headers[k] = this.maskText(v);
      }
      return {
        ...ex,
        url: this.maskText(ex.url),
        headers,
        body: ex.body === undefined ? undefined : this.maskText(ex.body),
        responseText: '',
        json: answerJson(ex),
      };
    });
    const apiKey = keys[0] ?? 'MASKED_NO_KEY_0';
    const otherApiKey = keys[1] ?? 'MASKED_NO_KEY_1';
    let script = curlScript(masked, { apiKey, otherApiKey, baseUrl: this.upstream });
    if (keys.length < 2) script = script.replace(' "${OTHER_API_KEY:?set OTHER_API_KEY}"', '');
    if (keys.length < 1) script = script.replace(': "${API_KEY:?set API_KEY}"\n', '');
    return script.replace(
      '# Replays the shrunk command sequence.',
      '# Replays the exchanges the paylater proxy saw (keys masked: set them).',
    );
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
    const entries = [...this.ring.entries()]
      .filter(([, ex]) => ex.status !== 0)
      .map(([n, ex]) => {
        const m = this.masked(n, ex);
        const url = new URL(m.url.replace('/(webhook delivery)', '/'));
        return {
          startedDateTime: m.startedAt,
          time: m.ms,
          request: {
            method: m.method,
            url: m.url,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: Object.entries(m.headers).map(([name, value]) => ({ name, value })),
            queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
            ...(m.body !== undefined ? { postData: { mimeType: m.headers['content-type'] ?? '', text: m.body } } : {}),
            headersSize: -1,
            bodySize: m.body === undefined ? 0 : Buffer.byteLength(m.body),
          },
          response: {
            status: m.status,
            statusText: '',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: Object.entries(m.responseHeaders).map(([name, value]) => ({ name, value })),
            content: { size: Buffer.byteLength(m.responseText), mimeType: m.responseHeaders['content-type'] ?? '', text: m.responseText },
            redirectURL: '',
            headersSize: -1,
            bodySize: -1,
          },
          cache: {},
          timings: { send: 0, wait: m.ms, receive: 0 },
          comment: m.operation,
        };
      });
    return { log: { version: '1.2', creator: { name: 'paylater proxy', version: '1' }, entries } };
  }

  writeFiles(files: { json?: string; junit?: string; har?: string }): void {
    if (files.json) writeFileSync(files.json, JSON.stringify(this.report(), null, 2) + '\n');
    if (files.har) writeFileSync(files.har, JSON.stringify(this.har(), null, 2) + '\n');
    if (files.junit) {
      const asFindings: Finding[] = this.findings.map((f) => ({
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
        replay: `finding ${f.n} of paylater proxy (${f.kind})`,
      }));
      writeJunit(
        files.junit,
        `paylater proxy ${this.o.judge.settings.fixedVariant ? `v${this.o.judge.settings.fixedVariant}` : 'variant per key'} ${this.upstream}`,
        this.judgedCount,
        asFindings,
        (Date.now() - this.startedAt.getTime()) / 1000,
      );
    }
  }

  /** The summary `paylater proxy` prints when it stops. */
  summary(): string[] {
    const c = this.coverage();
    const lines: string[] = [];
    for (const f of this.findings.slice(0, 20)) lines.push(`--- finding ${f.n} (${f.kind}): ${f.operation} ${f.jsonPath}`, f.message);
    if (this.findingCount > 20) lines.push(`(${this.findingCount - 20} more in the JSON report)`);
    lines.push(
      `${this.requests} requests (${this.judgedCount} judged, ${c.unrouted} not an operation), ${this.webhooksReceived} webhooks; ${this.findingCount} finding(s)`,
      `operations exercised: ${c.operations.exercised.length}/${c.operations.exercised.length + c.operations.missing.length}${c.operations.missing.length ? `; not exercised: ${c.operations.missing.join(', ')}` : ''}`,
      `transitions exercised: ${c.transitions.exercised.join(', ') || 'none'}${c.transitions.missing.length ? `; not exercised: ${c.transitions.missing.join(', ')}` : ''}`,
      `error codes exercised: ${c.codes.exercised.length}/${c.codes.exercised.length + c.codes.missing.length}`,
      `events matched to a transition: ${c.events.exercised.join(', ') || 'none'}`,
    );
    return lines;
  }
}
