/**
 * An exchange no operation describes, judged by the route table: ADR-024's two judges (`judgeHead`:
 * a HEAD answers as the GET; `judgeMethod`: a method a path does not serve answers 405 with `Allow`
 * listing exactly the path's methods), which the suite's probes (conformance/commands/routeProbes.ts)
 * call too, and ADR-016's (a path under an API prefix that no operation serves is not answered 2xx).
 * No error body is judged here: every routed answer's is the answer judge's (error-shape).
 */
import { errorCatalog, VARIANTS } from '../generated/index.ts';
import { routeTable } from '../server/routes.ts';
import type { Judging } from './context.ts';
import type { Exchange, Finding } from './exchange.ts';
import { API_PREFIXES, authHeaderOf, isSessionTokenHeader } from './route.ts';

/** What a HEAD answer contradicts: the GET of the same URL answered another status, or the GET operation does not declare its status. */
export type HeadVerdict = 'differs' | 'undeclared' | null;

/**
 * A HEAD answer on the path of a GET operation (it answers as the GET), against what is known:
 * `get`, the status of the GET of the same URL by the same caller just before, when there was one;
 * `declared`, whether the GET operation declares the HEAD's status.
 * @judges ADR-024
 */
export function judgeHead(status: number, known: { get?: number; declared: boolean }): HeadVerdict {
  if (known.get !== undefined && known.get !== status) return 'differs';
  return known.declared ? null : 'undeclared';
}

/** An `Allow` header as a sorted list of upper-case methods ('' and absent: none). */
function allowList(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean)
    .sort();
}

/** The status of METHOD_NOT_ALLOWED, as the error catalogue gives it (405). */
export const NOT_ALLOWED_STATUS: number = errorCatalog.METHOD_NOT_ALLOWED.status;

/** What an answer to a method a path does not serve contradicts: its status (not METHOD_NOT_ALLOWED's), or its `Allow`. */
export type MethodVerdict = 'status' | 'allow' | null;

/**
 * The answer to a method no operation serves at a path some operation serves: METHOD_NOT_ALLOWED's
 * status, with `Allow` listing exactly `allowed` (the path's methods across both variants, HEAD
 * with GET). Its error code and shape are the error-shape rule's.
 * @judges ADR-024
 */
export function judgeMethod(answer: { status: number; allow: string | undefined }, allowed: readonly string[]): MethodVerdict {
  if (answer.status !== NOT_ALLOWED_STATUS) return 'status';
  return allowList(answer.allow).join(', ') === [...allowed].sort().join(', ') ? null : 'allow';
}

/**
 * A request no operation describes: a HEAD where a GET is served (with what the judge knows: the
 * caller's GET just before), a method a path does not serve (the path's methods across both
 * variants), a 2xx under an API prefix (ADR-016). CORS preflights and the other variant's
 * operations are not this judge's.
 * @judges ADR-016
 */
export function judgeUnrouted(ex: Exchange, pathname: string, j: Judging, credentialOf: (sent: string) => string): Finding[] {
  const opId = ex.opId ?? `${ex.method} ${pathname}`;
  const allowed = [...new Set(VARIANTS.flatMap((v) => routeTable(v).allowedAt(pathname)))].sort();
  const at = { operation: opId, exchanges: [ex.seq] };
  if (ex.method === 'HEAD') {
    const v = VARIANTS.find((x) => routeTable(x).match('GET', pathname) !== null);
    const get = v === undefined ? null : routeTable(v).match('GET', pathname);
    if (!get || v === undefined) return [];
    const op = get.entry.operationId;
    // the caller as the GET's memory keys it: the merchant, or the session token
    const auth = authHeaderOf(v, op);
    const sent = auth === null ? undefined : ex.headers[auth];
    const cred = sent === undefined ? '' : auth !== null && isSessionTokenHeader(auth) ? sent : credentialOf(sent);
    // the GET of the same URL with the same credential, when it was that caller's latest exchange
    const last = j.memory.lastGet.get(cred);
    const before = last !== undefined && last.url === ex.url ? last : undefined;
    const contract = j.settings.contracts.get(v);
    const declared = contract !== undefined && contract.has(op) && contract.response(op, ex.status) !== null;
    // a declared 5xx may be a passing failure of either call, a 429 a throttle of either (the
    // auth-failure limit counts every client at the address): only other statuses are compared
    const ofTheMoment = (status: number): boolean => status === 429 || status >= 500;
    const getStatus = before === undefined || ofTheMoment(ex.status) || ofTheMoment(before.status) ? undefined : before.status;
    const verdict = judgeHead(ex.status, { get: getStatus, declared });
    if (!verdict) return [];
    return [
      {
        kind: 'answer',
        jsonPath: '$',
        message: `HEAD ${pathname} answered ${ex.status}${before ? `, the GET of the same URL ${before.status} (exchange ${before.seq})` : ''}; HEAD answers as the GET (${op}${declared ? '' : `, which does not declare ${ex.status}`}; ADR-024)`,
        expected: before?.status ?? 'a status the GET declares',
        actual: ex.status,
        operation: opId,
        exchanges: before ? [before.seq, ex.seq] : [ex.seq],
      },
    ];
  }
  // a CORS preflight, or an operation of the other variant than the caller's: not this judge's
  if (ex.method === 'OPTIONS' || VARIANTS.some((v) => routeTable(v).match(ex.method, pathname))) return [];
  if (allowed.length) {
    const verdict = judgeMethod({ status: ex.status, allow: ex.responseHeaders.allow }, allowed);
    if (!verdict) return [];
    return [
      {
        kind: 'answer',
        jsonPath: '$',
        message: `${ex.method} ${pathname} answered ${ex.status}${verdict === 'allow' ? ` with Allow "${ex.responseHeaders.allow ?? ''}"` : ''}; the path serves ${allowed.join(', ')}: ${NOT_ALLOWED_STATUS} with that Allow (ADR-024)`,
        expected: `${NOT_ALLOWED_STATUS} Allow: ${allowed.join(', ')}`,
        actual: ex.status,
        ...at,
      },
    ];
  }
  if (API_PREFIXES.some((p) => pathname.startsWith(p)) && ex.status >= 200 && ex.status < 300)
    return [
      {
        kind: 'answer',
        jsonPath: '$',
        message: `${ex.method} ${pathname} answered ${ex.status}: no operation of the contract is there (ADR-016: 404 ROUTE_NOT_FOUND)`,
        expected: 404,
        actual: ex.status,
        ...at,
      },
    ];
  return [];
}
