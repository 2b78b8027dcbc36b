/**
 * One ended exchange judged: which operation it is (in the variant its caller speaks), its answer
 * by the conformance suite's own response judge (`judgeResponse` of conformance/http.ts), then the
 * state it moves (state.ts). The caller's variant comes from the variant book (variant.ts): the
 * pinned one, or, while a key's is not known, both, an answer either accepts being accepted.
 */
import type { Variant } from '../generated/index.ts';
import { ConformanceError, type Exchange } from '../conformance/http.ts';
import { AnswerJudge } from './answer-judge.ts';
import { Contract } from '../conformance/spec.ts';
import { authHeaderOf, routeOf, type Route } from './route.ts';
import type { StateTracker } from './state.ts';
import type { Recorder, ProxyFinding } from './report.ts';
import { VARIANTS, type Pin, type VariantBook } from './variant.ts';
import { routeTable } from '../server/routes.ts';
import { judgeRequest } from './request-judge.ts';
import { SIMULATE_HEADER, SimulateJudge } from './simulate.ts';
import { ApiLogJudge } from './api-log.ts';
import { judgeHead, judgeMethod, NOT_ALLOWED_STATUS } from '../conformance/commands/routeProbes.ts';

/** The path prefixes of the contract's operations: a path under one is an API path. */
const API_PREFIXES = [
  ...new Set(VARIANTS.flatMap((v) => routeTable(v).entries.map((e) => e.path.split('/').slice(0, 3).join('/') + '/'))),
].filter((p) => p.length > 2);

/** How a test key starts (ADR-020: `sk_test_…` with the sandbox, `sk_live_…` in production). */
const TEST_KEY_PREFIX = 'sk_test_';

/** An exchange as the proxy has it once the answer ended: the suite's Exchange, and what the copy could not show. */
export interface Ended {
  ex: Exchange;
  seq: number;
  method: string;
  pathname: string;
  /** The query string (after `?`), or ''. */
  search: string;
  requestHeaders: Record<string, string>;
  /** The request body was cut by the capture limit, or is not JSON. */
  requestUnreadable: boolean;
  /** The answer's body was too long to copy: only its status is judged. */
  truncated: boolean;
  notes: string[];
}

/** Which operation an exchange is, for whom, and in which variants it may be judged. */
export interface Routed {
  route: Route;
  merchant: string | null;
  testKey: boolean;
  token: string | undefined;
  pin: Pin | undefined;
  /** The variants whose contract has this operation and may judge it (the pinned one, or both). */
  variants: Variant[];
}

const asFinding = (e: ConformanceError, seq: number, kind = 'answer', message = e.message): ProxyFinding => ({
  kind,
  operation: e.operation,
  jsonPath: e.jsonPath,
  message,
  expected: e.expected,
  actual: e.actual,
  exchanges: [seq],
});

export class ExchangeJudge {
  private readonly answers = new AnswerJudge();
  private readonly simulate = new SimulateJudge(1000);
  private readonly apiLog = new ApiLogJudge();
  private readonly contracts: Map<Variant, Contract>;

  constructor(
    private readonly book: VariantBook,
    private readonly state: StateTracker,
    private readonly recorder: Recorder,
    private readonly merchantOf: (cred: string) => string,
  ) {
    const list: Variant[] = book.fixed === undefined ? [1, 2] : [book.fixed];
    this.contracts = new Map(list.map((v) => [v, Contract.for(v).warm()]));
  }

  /**
   * Per credential, its latest routed exchange when it was a GET (its URL and status): a HEAD of the
   * same URL right after answers as it did (ADR-024). Any other exchange of the credential in between
   * clears it (a change may have come between the two). At most 1,000 credentials held.
   */
  private readonly lastGet = new Map<string, { url: string; status: number; seq: number }>();

  private remember(e: Ended, r: Routed): void {
    const cred = r.merchant ?? r.token ?? '';
    this.lastGet.delete(cred);
    if (e.method !== 'GET') return;
    this.lastGet.set(cred, { url: e.ex.url, status: e.ex.status, seq: e.seq });
    if (this.lastGet.size > 1000) this.lastGet.delete(this.lastGet.keys().next().value as string);
  }

  /** The operation of a request for its caller, or undefined (no operation of the caller's variant: a probe, a typo, another API). */
  route(method: string, pathname: string, headers: Record<string, string>): Routed | undefined {
    const any = routeOf(this.book.fixed ?? 1, method, pathname) ?? (this.book.fixed ? undefined : routeOf(2, method, pathname));
    if (!any) return undefined;
    // the credential header of an operation is the same in both variants
    const auth = authHeaderOf(this.book.fixed ?? (routeOf(1, method, pathname) ? 1 : 2), any.opId);
    const cred = auth === null ? undefined : headers[auth];
    const merchant = auth !== null && auth !== 'x-session-token' && cred ? this.merchantOf(cred) : null;
    const token = auth === 'x-session-token' ? cred : undefined;
    const pin = this.book.of(merchant, token);
    const variants = this.book.candidates(pin).filter((v) => this.contracts.get(v)?.has(any.opId));
    if (!variants.length) return undefined;
    return { route: any, merchant, testKey: cred?.startsWith(TEST_KEY_PREFIX) === true, token, pin, variants };
  }

  /** The first violation of the answer in one variant's contract, or null when it accepts the answer. */
  private violation(contract: Contract, e: Ended): ConformanceError | null {
    if (e.truncated) {
      if (contract.response(e.ex.opId, e.ex.status) !== null) return null;
      return new ConformanceError(e.ex.opId, '$', `answered ${e.ex.status}, a status not declared for ${e.ex.opId}`);
    }
    return this.answers.violation(contract, e.ex);
  }

  /** The answer against the variants it may be judged by; a key's first success answer only one accepts pins the key (ADR-070). */
  private answer(e: Ended, r: Routed): ProxyFinding[] {
    const results = r.variants.map((v) => ({ v, err: this.violation(this.contracts.get(v)!, e) }));
    const ok = results.filter((x) => x.err === null);
    const { seq, ex } = e;
    if (r.pin !== undefined && !ok.length && this.book.fixed === undefined) {
      // pinned: an answer the other variant's contract accepts is an answer in the other variant's shape
      const other: Variant = r.pin.variant === 1 ? 2 : 1;
      const c = Contract.for(other);
      if (c.has(ex.opId) && ex.status < 300 && this.violation(c, e) === null)
        return [
          asFinding(
            results[0]!.err!,
            seq,
            'variant',
            `${ex.opId} answered ${ex.status} in Variant ${other}'s shape; this key speaks Variant ${r.pin.variant} (exchange ${r.pin.seq} showed it), and a variant is pinned per API key: ${results[0]!.err!.message}`,
          ),
        ];
    }
    // an operation one variant alone has (A3), called by a key whose variant is not known: any answer is valid in the other
    if (!ok.length && r.pin === undefined && this.book.fixed === undefined && results.length === 1) return [];
    if (!ok.length) {
      const first = results[0]!.err!;
      const message =
        results.length > 1
          ? `valid in neither variant (the key's variant not known yet): Variant ${results[0]!.v}: ${first.message}; Variant ${results[1]!.v}: ${results[1]!.err!.message}`
          : first.message;
      return [asFinding(first, seq, 'answer', message)];
    }
    if (r.pin === undefined && ex.status >= 200 && ex.status < 300 && !e.truncated) {
      // a success answer one variant's contract alone accepts (or to an operation one variant alone has, A3) tells them apart
      if (ok.length === 1) {
        r.pin = { variant: ok[0]!.v, seq };
        this.book.pin(r.merchant, r.token, r.pin);
      }
    }
    return [];
  }

  /**
   * An exchange no operation describes, judged by the route table: a HEAD where a GET is served, and
   * a method a path does not serve, by the suite's ADR-024 judges (`judgeHead`, `judgeMethod`, in
   * conformance/commands/routeProbes.ts) with what the proxy knows (the caller's GET just before,
   * the path's methods across both variants); a path under an API prefix that no operation serves
   * is not answered 2xx (ADR-016: an operation the contract does not have). No error body is judged
   * here: every routed answer's is `judgeResponse`'s (error-shape).
   * @judges ADR-016
   */
  unrouted(ex: Exchange, seq: number, pathname: string): void {
    const allowed = [...new Set(VARIANTS.flatMap((v) => routeTable(v).allowedAt(pathname)))].sort();
    const at = { operation: ex.opId, exchanges: [seq] };
    const findings: ProxyFinding[] = [];
    if (ex.method === 'HEAD') {
      const v = VARIANTS.find((x) => routeTable(x).match('GET', pathname) !== null);
      const get = v === undefined ? null : routeTable(v).match('GET', pathname);
      if (get && v !== undefined) {
        const op = get.entry.operationId;
        // the caller as remember() keys it: the merchant's digest, or the session token
        const auth = authHeaderOf(v, op);
        const sent = auth === null ? undefined : ex.headers[auth];
        const cred = sent === undefined ? '' : auth === 'x-session-token' ? sent : this.merchantOf(sent);
        // the GET of the same URL with the same credential, when it was that caller's latest exchange
        const last = this.lastGet.get(cred);
        const before = last !== undefined && last.url === ex.url ? last : undefined;
        const declared = Contract.for(v).has(op) && Contract.for(v).response(op, ex.status) !== null;
        // a declared 5xx may be a passing failure of either call: only another status is compared with the GET's
        const verdict = judgeHead(ex.status, { get: ex.status < 500 ? before?.status : undefined, declared });
        if (verdict)
          findings.push({
            kind: 'answer',
            jsonPath: '$',
            message: `HEAD ${pathname} answered ${ex.status}${before ? `, the GET of the same URL ${before.status} (exchange ${before.seq})` : ''}; HEAD answers as the GET (${op}${declared ? '' : `, which does not declare ${ex.status}`}; ADR-024)`,
            expected: before?.status ?? 'a status the GET declares',
            actual: ex.status,
            operation: ex.opId,
            exchanges: before ? [before.seq, seq] : [seq],
          });
      }
    } else if (ex.method === 'OPTIONS' || VARIANTS.some((v) => routeTable(v).match(ex.method, pathname))) {
      // a CORS preflight, or an operation of the other variant than the caller's: not this judge's
    } else if (allowed.length) {
      const verdict = judgeMethod({ status: ex.status, allow: ex.responseHeaders.allow }, allowed);
      if (verdict)
        findings.push({
          kind: 'answer',
          jsonPath: '$',
          message: `${ex.method} ${pathname} answered ${ex.status}${verdict === 'allow' ? ` with Allow "${ex.responseHeaders.allow ?? ''}"` : ''}; the path serves ${allowed.join(', ')}: ${NOT_ALLOWED_STATUS} with that Allow (ADR-024)`,
          expected: `${NOT_ALLOWED_STATUS} Allow: ${allowed.join(', ')}`,
          actual: ex.status,
          ...at,
        });
    } else if (API_PREFIXES.some((p) => pathname.startsWith(p)) && ex.status >= 200 && ex.status < 300)
      findings.push({
        kind: 'answer',
        jsonPath: '$',
        message: `${ex.method} ${pathname} answered ${ex.status}: no operation of the contract is there (ADR-016: 404 ROUTE_NOT_FOUND)`,
        expected: 404,
        actual: ex.status,
        ...at,
      });
    if (findings.length) this.recorder.judged(ex, findings);
  }

  /** Judges one ended, routed exchange and hands its findings to the recorder. */
  judge(e: Ended, r: Routed, requestJson: unknown): void {
    const findings: ProxyFinding[] = e.notes.map((n) => ({
      kind: 'answer',
      operation: e.ex.opId,
      jsonPath: '$',
      message: n,
      exchanges: [e.seq],
    }));
    findings.push(...this.answer(e, r));
    if (!e.truncated && e.requestHeaders[SIMULATE_HEADER] === undefined)
      findings.push(
        ...judgeRequest({
          seq: e.seq,
          opId: e.ex.opId,
          variants: r.pin ? [r.pin.variant] : r.variants,
          params: r.route.params,
          search: e.search,
          headers: e.requestHeaders,
          body: requestJson,
          raw: e.ex.body,
          unreadable: e.requestUnreadable,
          status: e.ex.status,
          json: e.ex.json,
        }),
      );
    const { ex } = e;
    this.remember(e, r);
    // the sandbox records a test key's calls (and its sessions'): what their API log must show
    if (r.testKey || r.token !== undefined) this.apiLog.saw(ex.opId, e.method, e.pathname, ex.status, e.requestHeaders.origin);
    if (ex.opId === 'sandboxSetApiLog' && ex.status === 200) this.apiLog.restart();
    if (ex.opId === 'sandboxGetApiLog' && ex.status === 200) findings.push(...this.apiLog.judge({ seq: e.seq, opId: ex.opId }, ex.json));
    if (r.merchant !== null && !e.truncated)
      findings.push(
        ...this.simulate.judge({
          seq: e.seq,
          opId: ex.opId,
          merchant: r.merchant,
          testKey: r.testKey,
          simulate: e.requestHeaders[SIMULATE_HEADER],
          params: r.route.params,
          requestJson,
          status: ex.status,
          json: ex.json,
          sentAt: performance.timeOrigin + ex.sentAt,
          receivedAt: performance.timeOrigin + ex.receivedAt,
        }),
      );
    if (r.pin !== undefined && ex.opId === 'createSession' && ex.status < 300) {
      const j = ex.json as { token?: unknown; session_token?: unknown } | undefined;
      const t = j?.token ?? j?.session_token;
      if (typeof t === 'string') this.book.token(t, r.pin);
    }
    if (!e.truncated)
      findings.push(
        ...this.state.observe({
          seq: e.seq,
          opId: ex.opId,
          merchant: r.merchant,
          testKey: r.testKey,
          params: r.route.params,
          token: r.token,
          search: e.search,
          variant: r.pin?.variant ?? r.variants[0],
          simulated: e.requestHeaders[SIMULATE_HEADER] !== undefined,
          requestJson,
          responseHeaders: ex.responseHeaders,
          status: ex.status,
          json: ex.json,
          sentAt: performance.timeOrigin + ex.sentAt,
          receivedAt: performance.timeOrigin + ex.receivedAt,
        }),
      );
    this.recorder.judged(ex, findings);
  }
}
