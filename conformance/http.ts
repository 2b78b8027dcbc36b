/**
 * The HTTP side of the suite: every exchange is recorded and judged by the one judge (judge/, the
 * judge `paylater proxy` and HAR judging use: the answer against the contract and against what the
 * judge remembers of earlier exchanges); its first finding is thrown as a ConformanceError. Every request is bounded in time (a server that stops answering is a finding that ends
 * the run) and abandoned when the run is interrupted (SIGINT/SIGTERM); the failed-authentication
 * throttle is respected (`auth-pacer.ts`). Requests go out through a `Transport` (`transport.ts`:
 * undici's `request` by default, sending the headers and body the exchange records and following no
 * redirect; tests inject their own).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AuthPacer, authFailureLimit, credentialHeaders, MAX_RESENDS } from './auth-pacer.ts';
import { ConformanceError, type Checker } from '../judge/answer.ts';
import type { Contract } from '../judge/contract.ts';
import type { Finding as JudgeFinding, NamedExchange } from '../judge/exchange.ts';
import { createJudge, type Judge } from '../judge/index.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../lib/commands.ts';
import { closedUnderneath, undiciTransport, type Transport, type TransportAnswer } from './transport.ts';

export type { Transport } from './transport.ts';

/** An exchange the suite's client recorded: the judge's shape, named by the command that sent it. */
export type Exchange = NamedExchange;

export class SetupError extends Error {}

/**
 * The server stopped answering: a request was not answered within the client's time limit, or could
 * not be sent (connection refused or reset). A finding; the run ends there, and every later request
 * fails at once with the same error.
 */
export class NoAnswerError extends ConformanceError {
  /** Why, in a few words: `no answer within 30 s`, or the connection error. */
  get reason(): string {
    return String(this.actual);
  }
}

/** A finding of the judge: its rule's kind named with its message. */
export class JudgeFindingError extends ConformanceError {
  constructor(readonly finding: JudgeFinding) {
    super(finding.operation, finding.jsonPath, `${finding.message} (judge rule: ${finding.kind})`, finding.expected, finding.actual);
  }
}

/** The run was interrupted (SIGINT/SIGTERM): not a finding; the run winds down and reports what it has. */
export class InterruptedError extends Error {
  constructor(readonly signal: string) {
    super(`interrupted by ${signal}`);
    this.name = 'InterruptedError';
  }
}

export interface ClientOptions {
  /** A request unanswered this long (ms) is a NoAnswerError. Default DEFAULT_REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Aborted on an interrupt (its reason names the signal): the request in flight is abandoned, no judged request follows. */
  signal?: AbortSignal;
  /** The keys the suite was given: a request carrying none of them may be a failed authentication (paced, see auth-pacer.ts). */
  knownKeys?: string[];
  /** Judges every exchange (default: a judge of the contract's variant alone, made for this client). */
  judge?: Judge;
}

export interface RequestInit2 {
  pathParams?: Record<string, string>;
  /** Query parameters, appended to the path. */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

/** RFC 9110 §9.2.2's idempotent methods: resent once when their connection was closed underneath them. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export class Client {
  transcript: Exchange[] = [];
  checks = 0;
  requests = 0;
  /** Idempotent requests resent once because the server had closed their keep-alive connection (`exchange`). */
  resent = 0;
  /** Time slept on purpose (`pause`), ms: the run's time that is no request's. */
  pausedMs = 0;
  /** Requests sent per operation id. */
  readonly sent = new Map<string, number>();
  /** Set when the server stopped answering: every later request throws it at once. */
  gone: NoAnswerError | undefined;
  readonly pacer: AuthPacer;
  readonly timeoutMs: number;
  private readonly signal: AbortSignal | undefined;
  private readonly knownKeys: string[];
  /** The headers the contract's security schemes read a credential from (lower-cased). */
  private readonly credentialHeaders: Set<string>;
  /** Inside `cleanup`: requests go out after an interrupt (to leave the server as found). */
  private cleaning = 0;
  readonly judge: Judge;
  /** The numbering exchanges and webhook deliveries share (the judge's `seq`). */
  private seq = 0;
  /** Exchanges held back from the judge while `held` runs (the preflight's probes). */
  private holding: Exchange[] | undefined;
  constructor(
    readonly baseUrl: string,
    readonly contract: Contract,
    /** Sends each request (default: undici's `request`, `transport.ts`); the global `fetch` fits too. */
    readonly fetchImpl: Transport = undiciTransport,
    /** Sees every exchange (e.g. the bench's recorder), also an AUTH_THROTTLED answer that is resent. */
    private readonly onExchange?: (ex: Exchange) => void | Promise<void>,
    opts: ClientOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.signal = opts.signal;
    this.knownKeys = (opts.knownKeys ?? []).filter((k) => k.length > 0);
    this.credentialHeaders = credentialHeaders(contract);
    this.pacer = new AuthPacer(authFailureLimit(contract));
    this.judge = opts.judge ?? createJudge({ variant: contract.variant, contract, timeOrigin: performance.timeOrigin });
  }

  /** The next number of the numbering exchanges and webhook deliveries share. */
  nextSeq(): number {
    return ++this.seq;
  }

  /**
   * Runs `fn` with its exchanges held back from the judge (the preflight: whether the run can start
   * at all is decided on them first); `judgeHeld` judges them afterwards, in the order they were sent.
   */
  async held<T>(fn: () => Promise<T>): Promise<T> {
    this.holding ??= [];
    return fn();
  }

  /** Judges the exchanges `held` held back; the first finding is thrown. */
  judgeHeld(): void {
    const held = this.holding ?? [];
    this.holding = undefined;
    for (const ex of held) this.judged(ex);
  }

  /**
   * One exchange handed to the judge (routed by its method and path, as the proxy's are): the answer
   * against the contract (status declared, content type, body and header schemas, the error code
   * allowed for the status) and against what the judge remembers; its first finding thrown.
   * @checks error-shape, ADR-001
   */
  private judged(ex: Exchange): void {
    if (this.holding) return void this.holding.push(ex);
    ex.seq = this.nextSeq();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ex.headers)) headers[k.toLowerCase()] = v;
    const found = this.judge.exchange({ ...ex, opId: undefined, seq: ex.seq, headers });
    this.checks++;
    if (found.length) throw new JudgeFindingError(found[0]!);
  }

  /** The signal that interrupted the run, if one did. */
  get interrupted(): string | undefined {
    return this.signal?.aborted ? String(this.signal.reason) : undefined;
  }

  /**
   * Runs `fn`, whose requests restore what the run changed on the server (e.g. the webhook
   * endpoint): they are sent even after an interrupt, still bounded by the time limit.
   */
  async cleanup<T>(fn: () => Promise<T>): Promise<T> {
    this.cleaning++;
    try {
      return await fn();
    } finally {
      this.cleaning--;
    }
  }

  check(ok: boolean, operation: string, jsonPath: string, message: string, expected?: unknown, actual?: unknown): void {
    this.checks++;
    if (!ok) throw new ConformanceError(operation, jsonPath, message, expected, actual);
  }

  /** Sends one request of operation `opId` and records the exchange; the judge judges it (as every exchange). */
  async call(opId: string, init: RequestInit2 = {}): Promise<Exchange> {
    const op = this.contract.op(opId);
    return this.sendTo(opId, op.method, op.path, init);
  }

  /** Sends to a method and path template (also one outside this variant's contract), recording the exchange. */
  async sendTo(opId: string, method: string, pathTemplate: string, init: RequestInit2 = {}): Promise<Exchange> {
    let path = pathTemplate;
    for (const [k, v] of Object.entries(init.pathParams ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const query = init.query ? new URLSearchParams(init.query).toString() : '';
    const url = this.baseUrl.replace(/\/$/, '') + path + (query ? `?${query}` : '');
    this.sent.set(opId, (this.sent.get(opId) ?? 0) + 1);
    return this.sendRaw(opId, method, url, headers, body);
  }

  /**
   * Sends one request as given (also one the contract's operations cannot describe: HEAD, a method
   * a path does not serve) and records the exchange under `label`, so a finding's curl replays it.
   * An `AUTH_THROTTLED` answer is not recorded nor returned: the request is sent again after its
   * `Retry-After` (auth-pacer.ts).
   */
  async sendRaw(label: string, method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<Exchange> {
    // a known key under a header no scheme reads (the credential-header-name probe) fails authentication too
    const mayFailAuth = !Object.entries(headers).some(
      ([name, v]) => this.credentialHeaders.has(name.toLowerCase()) && this.knownKeys.includes(v),
    );
    for (let resends = 0; ; resends++) {
      if (mayFailAuth) await this.wait(this.pacer.delayBefore(performance.now()));
      const ex = await this.exchange(label, method, url, headers, body);
      const retryAfter = resends < MAX_RESENDS ? this.pacer.retryAfter(ex.status, ex.json, ex.responseHeaders) : null;
      if (retryAfter === null) {
        this.transcript.push(ex);
        if (this.onExchange) await this.onExchange(ex);
        this.judged(ex);
        return ex;
      }
      // throttled: the request had no effect; not the command's to judge (the judge sees it), sent again once the window allows
      this.pacer.pacing = true;
      this.pacer.throttled++;
      if (this.onExchange) await this.onExchange(ex);
      this.judged(ex);
      await this.wait(retryAfter * 1000);
    }
  }

  /** The pacer's waits, counted in its own total too. */
  private async wait(ms: number): Promise<void> {
    this.pacer.waitedMs += await this.pause(ms);
  }

  /**
   * Sleeps `ms` on purpose (the throttle's pacing, a rate window left to age, a poll's interval),
   * ended early by an interrupt (InterruptedError); the time it took, as it passed, is counted in
   * `pausedMs` and returned.
   */
  async pause(ms: number): Promise<number> {
    if (ms <= 0) return 0;
    const from = performance.now();
    const ended = await delay(ms, undefined, { signal: this.cleaning ? undefined : this.signal }).then(
      () => true,
      () => false,
    );
    const took = performance.now() - from;
    this.pausedMs += took;
    if (!ended) throw new InterruptedError(this.interrupted ?? 'an abort');
    return took;
  }

  /** One request and its answer, bounded by the time limit and the interrupt. */
  private async exchange(label: string, method: string, url: string, headers: Record<string, string>, body?: string): Promise<Exchange> {
    if (this.gone) throw this.gone;
    if (this.interrupted && !this.cleaning) throw new InterruptedError(this.interrupted);
    const sentAt = performance.now();
    this.requests++;
    // one controller per request: aborted by its own timer or by the interrupt, both let go when it settles
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort();
    }, this.timeoutMs);
    const interrupt = this.signal && !this.cleaning ? this.signal : undefined;
    const onInterrupt = (): void => ac.abort();
    interrupt?.addEventListener('abort', onInterrupt, { once: true });
    let res: TransportAnswer;
    let text: string;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          res = await this.fetchImpl(url, { method, headers, body, signal: ac.signal });
          text = await res.text();
          break;
        } catch (e) {
          // an idle keep-alive connection the server closed as this request went out on it: resent
          // once on a new connection, as RFC 9110 §9.2.2 lets a client do with an idempotent request
          if (attempt > 0 || timedOut || ac.signal.aborted || !IDEMPOTENT.has(method) || !closedUnderneath(e)) throw e;
          this.requests++;
          this.resent++;
        }
      }
    } catch (e) {
      if (this.interrupted && !this.cleaning) throw new InterruptedError(this.interrupted);
      const req = `${method} ${new URL(url).pathname}`;
      const cause = (e as Error & { cause?: Error }).cause?.message ?? (e as Error).message;
      this.gone = timedOut
        ? new NoAnswerError(
            label,
            '$',
            `${req} was not answered within ${this.timeoutMs / 1000} s: the server stopped answering, so the run ends here`,
            `an answer within ${this.timeoutMs / 1000} s`,
            `no answer within ${this.timeoutMs / 1000} s`,
          )
        : new NoAnswerError(
            label,
            '$',
            `${req} could not be sent (${cause}): the server stopped answering, so the run ends here`,
            'an answer',
            cause,
          );
      throw this.gone;
    } finally {
      clearTimeout(timer);
      interrupt?.removeEventListener('abort', onInterrupt);
    }
    const receivedAt = performance.now();
    const responseHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => (responseHeaders[k] = v));
    let json: unknown;
    try {
      json = text.length ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    this.pacer.answered(res.status, receivedAt);
    return { opId: label, method, url, headers, body, status: res.status, responseHeaders, responseText: text, json, sentAt, receivedAt };
  }
}

/**
 * A validation refusal's `error.details` names the input it refused, e.g. `query.limit` (ADR-001:
 * the details name the failing fields, in ADR-022's form): the member of the error body that the
 * answer's schema (`judgeResponse`) cannot tell right from wrong. `judge` is the suite's World.
 * @checks error-shape
 */
export function checkErrorDetails(judge: Pick<Checker, 'check'>, ex: Exchange, op: string, named: string, msg: string): void {
  const details = ((ex.json as { error?: { details?: unknown } } | undefined)?.error?.details ?? []) as Array<{ path?: string }>;
  judge.check(
    details.some((d) => d.path === named),
    op,
    '$.error.details',
    msg,
    named,
    details.map((d) => d.path),
  );
}
