/**
 * What the proxy saw and what the judge found, held while it runs: the last exchanges (a ring, for
 * the findings' curl scripts and the HAR), the findings reported as they come (judge/ear-report.ts,
 * as `paylater judge` reports them), the live JSON report, and the files written when it stops.
 */
import type { Judge } from '../judge/index.ts';
import type { Delivery, EarFinding, JudgeCoverage, NamedExchange as Exchange } from '../judge/exchange.ts';
import {
  coverageLines,
  deliveryExchange,
  findingLines,
  maskedExchange,
  MAX_FINDINGS,
  reportFinding,
  writeReports,
  type ReportedFinding,
} from '../judge/ear-report.ts';
import { writeJson } from '../judge/report.ts';
import { harOf } from './har.ts';
import { slim } from './ring.ts';

export class Recorder {
  readonly upstream: string;
  private seq = 0;
  private readonly ring = new Map<number, Exchange>();
  private readonly found: ReportedFinding[] = [];
  private count = 0;
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
      /** Judges every exchange still waiting (the judging queue drained): called before anything is read. */
      settle?: () => void;
    },
  ) {
    this.upstream = o.upstream;
  }

  /** The findings reported so far (the first MAX_FINDINGS), every exchange answered before judged. */
  get findings(): ReportedFinding[] {
    this.o.settle?.();
    return this.found;
  }

  /** How many findings there were, every exchange answered before judged. */
  get findingCount(): number {
    this.o.settle?.();
    return this.count;
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
    this.o.settle?.();
    for (const f of this.o.judge.sweep(performance.now())) this.add(f);
  }

  private add(f: EarFinding): void {
    const n = ++this.count;
    if (this.found.length >= MAX_FINDINGS) return;
    const reported = reportFinding(f, n, this.ring, { upstream: this.upstream, secrets: this.o.secrets, ear: 'the paylater proxy saw' });
    this.found.push(reported);
    this.o.log?.(`finding ${n} (${f.kind}) ${f.operation} ${f.jsonPath}: ${reported.message}`);
  }

  /** The judge's coverage of the traffic. */
  coverage(): JudgeCoverage {
    this.o.settle?.();
    return this.o.judge.coverage();
  }

  report(): Record<string, unknown> {
    this.o.settle?.();
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
    this.o.settle?.();
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
