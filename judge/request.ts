/**
 * Each answer judged against the request that caused it, with the contract's
 * compiled request validators (server/validate.ts `requestRefusal`, the ones the contract router
 * runs) and the model's amount rules (model/amount.ts: `x-amount-range`, `x-amount-consistency`,
 * placed by the request schema): the answer the contract gives a body is decided in its stages
 * (ADR-057): a member named twice (ADR-023), the schema's members and the validation ranges ranked
 * by `x-error-precedence`, then the consistency, then the business ranges. Findings:
 * - a request the contract refuses, answered 2xx;
 * - a request the contract accepts, refused with a member's code (its `x-error-code`) or the
 *   consistency's code;
 * - a request refused with another member's (or the consistency's) code than the one the contract
 *   gives (VALIDATION_ERROR answered where only the consistency fails, a member's code where
 *   another member ranks first).
 * VALIDATION_ERROR answered to a request the contract accepts is not judged: a server also answers
 * it for rules the schema cannot state (a list cursor it did not issue). A business refusal other
 * than the range's (an inactive merchant, a credit limit) needs the merchant's data: not judged.
 * While a key's variant is not known, a request is judged only where both variants agree.
 */
import { errorPrecedence, maxBodyBytes } from '../generated/index.ts';
import { amountAnswer, type ConsistencyRule, type RangedMember } from '../model/index.ts';
import { valueAt } from '../lib/json-pointer.ts';
import { MAX_DEPTH, scanJson } from '../server/body.ts';
import { refusalOf, type ErrorCode, type Refusal } from '../server/errors.ts';
import { nearestExtension, resolveRef } from '../server/schema.ts';
import {
  compileContract,
  compiledContract,
  failuresOf,
  requestRefusal,
  type CompiledContract,
  type RequestParts,
} from '../server/validate.ts';
import { Contract } from './contract.ts';
import { finding, type Judging, type Seen } from './context.ts';
import type { Finding } from './exchange.ts';
import { isMasked } from './mask.ts';
import { authHeaderOf, isSessionTokenHeader } from './route.ts';

type Json = Record<string, unknown>;

/** The compiled validators of a contract: the router's own for the bundled document, compiled once per edited one. */
const COMPILED = new WeakMap<Contract, CompiledContract>();
function compiledOf(contract: Contract): CompiledContract {
  if (contract === Contract.for(contract.variant)) return compiledContract(contract.variant);
  let c = COMPILED.get(contract);
  if (!c) COMPILED.set(contract, (c = compileContract(contract.variant, contract.doc)));
  return c;
}

/** Per compiled contract: the codes a member's schema gives (every `x-error-code` of the document). */
const SCHEMA_CODES = new WeakMap<CompiledContract, Set<string>>();
function schemaCodes(c: CompiledContract): Set<string> {
  let codes = SCHEMA_CODES.get(c);
  if (codes) return codes;
  codes = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object')
      for (const [k, x] of Object.entries(n)) {
        if (k === 'x-error-code' && typeof x === 'string') codes.add(x);
        else walk(x);
      }
  };
  walk(c.doc);
  SCHEMA_CODES.set(c, codes);
  return codes;
}

/** An operation's amount rules, read from its request schema once per contract. */
interface AmountRules {
  ranged: RangedMember[];
  consistency: (ConsistencyRule & { errorCode: string }) | undefined;
  /** The codes a member or the consistency gives in this operation (shared: never changed once made). */
  ruled: ReadonlySet<string>;
}
const AMOUNT_RULES = new WeakMap<CompiledContract, Map<string, AmountRules>>();
function amountRules(c: CompiledContract, opId: string): AmountRules {
  let byOp = AMOUNT_RULES.get(c);
  if (!byOp) AMOUNT_RULES.set(c, (byOp = new Map<string, AmountRules>()));
  let rules = byOp.get(opId);
  if (rules) return rules;
  const { doc } = c;
  const schema = c.operation(opId)?.requestSchema ?? null;
  const ranged: RangedMember[] = [];
  let consistency: AmountRules['consistency'];
  if (schema) {
    const resolved = resolveRef(doc, schema);
    consistency = resolved?.['x-amount-consistency'] as AmountRules['consistency'];
    for (const member of Object.keys(resolved?.properties ?? {})) {
      if (nearestExtension(doc, schema, [member], 'x-amount-range') === undefined) continue;
      const rule = nearestExtension(doc, schema, [member], 'x-business-rule') as { code: string } | undefined;
      const code = rule?.code ?? (nearestExtension(doc, schema, [member], 'x-error-code') as string | undefined) ?? 'VALIDATION_ERROR';
      ranged.push({ member, code, business: rule !== undefined });
    }
  }
  rules = { ranged, consistency, ruled: new Set([...schemaCodes(c), ...(consistency ? [consistency.errorCode] : [])]) };
  byOp.set(opId, rules);
  return rules;
}

/**
 * What the contract answers a request body (ADR-057): the one validation code of its failing members
 * (the schema's `x-error-code`s and the validation amount ranges, ranked by `x-error-precedence`),
 * else the consistency's code, else the business ranges' codes. The suite's checks compute their
 * expectations with it (`classifyBody`), the judge its verdict on a request.
 */
export interface BodyVerdict {
  validation: string | null;
  /** The validation refusal's message and the members it names (`body.total`). */
  message: string;
  paths: string[];
  mismatch: string | null;
  business: string[];
}

/**
 * The verdict on a request body alone (the suite's probes): its schema and its amount rules in `contract`.
 * @judges amount-range, amount-consistency, b1-validation
 */
export function bodyVerdict(contract: Contract, opId: string, body: unknown): BodyVerdict {
  const c = compiledOf(contract);
  const op = c.operation(opId);
  const failures = op?.body && !op.body(body) ? failuresOf(op.body.errors, '/body') : [];
  return amountsAndRefusal(c, opId, body, (members) =>
    failures.length || members.length ? refusalOf(failures, c.doc, op?.requestSchema ?? null, members) : null,
  );
}

/** The amount rules on `body`, then the refusal `refuse` gives with the validation ranges' refusals as members. */
function amountsAndRefusal(c: CompiledContract, opId: string, body: unknown, refuse: (members: Refusal[]) => Refusal | null): BodyVerdict {
  const rules = amountRules(c, opId);
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Json;
  const amounts = amountAnswer(rules.ranged, rules.consistency, b);
  const refusal = refuse(amounts.validation.map((code) => ({ code: code as ErrorCode, message: 'outside x-amount-range' })));
  if (refusal)
    return {
      validation: refusal.code,
      message: refusal.message,
      paths: refusal.details?.map((d) => d.path) ?? [],
      mismatch: null,
      business: [],
    };
  return { validation: null, message: '', paths: [], mismatch: amounts.mismatch, business: amounts.business };
}

export interface JudgedRequest {
  seq: number;
  opId: string;
  contracts: readonly Contract[];
  params: Record<string, string>;
  /** The request's query string (after `?`), or ''. */
  search: string;
  headers: Record<string, string>;
  body: unknown;
  /** The request body's text as sent (a member named twice shows only there), when there was one. */
  raw?: string;
  /** The request body was cut by the capture limit, or is not JSON: not judged. */
  unreadable: boolean;
  /** The request body was cut by the ear (`raw` is not all of it): its size is its Content-Length. */
  cut?: boolean;
  status: number;
  json: unknown;
}

/** What the contract answers a request in one variant: the refusal it certainly gets (null: none before the business rules), the business codes that refuse it. */
interface Verdict {
  code: string | null;
  message: string;
  /** The members a validation refusal names in its details (`query.limit`, `body.total`). */
  paths?: string[];
  business: string[];
  /** The codes a member or the consistency gives in this operation (the ones judged against each other). */
  ruled: ReadonlySet<string>;
}

const MISMATCH = 'every member valid, the total differs from its lines (x-amount-consistency)';

function verdictIn(contract: Contract, r: JudgedRequest): Verdict | undefined {
  const c = compiledOf(contract);
  const { ruled } = amountRules(c, r.opId);
  if (r.raw !== undefined) {
    const scan = scanJson(r.raw);
    if (scan.depth > MAX_DEPTH) return undefined;
    if (scan.duplicate !== null || scan.forbidden !== null)
      return {
        code: 'VALIDATION_ERROR',
        message: `the member ${scan.duplicate ?? scan.forbidden} named twice or forbidden (ADR-023)`,
        business: [],
        ruled,
      };
  }
  const query: Record<string, unknown> = {};
  if (r.search) for (const [k, x] of new URLSearchParams(r.search)) query[k] = k in query ? [query[k], x].flat() : x;
  const parts: RequestParts = { params: { ...r.params }, query, headers: r.headers, body: r.body };
  const v = amountsAndRefusal(c, r.opId, r.body, (members) => requestRefusal(c, r.opId, parts, members));
  if (v.validation !== null) return { code: v.validation, message: v.message, paths: v.paths, business: [], ruled };
  if (v.mismatch !== null) return { code: v.mismatch, message: MISMATCH, business: [], ruled };
  return { code: null, message: '', business: v.business, ruled };
}

/**
 * The body member a refusal's path names (`/secret`, a JSON pointer), or undefined (a parameter's
 * or header's path: what a recording masks there is a credential, which no schema validates).
 */
function memberAt(r: JudgedRequest, path: string): unknown {
  return path.startsWith('/') ? valueAt(r.body, path) : undefined;
}

/** The verdict in each variant, or undefined when the variants disagree. */
function verdict(r: JudgedRequest): Verdict | undefined {
  let out: Verdict | undefined;
  for (const c of r.contracts) {
    const here = verdictIn(c, r);
    if (here === undefined) return undefined;
    if (out !== undefined && (out.code !== here.code || out.business.join() !== here.business.join())) return undefined;
    // the codes both variants rule (a new set: a variant's own is shared by every request)
    if (out) out = { ...out, ruled: new Set([...out.ruled].filter((x) => here.ruled.has(x))) };
    out ??= here;
  }
  return out;
}

/** The codes of the stages before request validation (route, authentication, rate limit, body; ADR-057): an answer of theirs is not the request's verdict. */
const BEFORE_VALIDATION = new Set<string>(
  errorPrecedence.stages
    .slice(
      0,
      errorPrecedence.stages.findIndex((st) => st.name === 'request-validation'),
    )
    .flatMap((st) => [...st.codes]),
);

/** @judges amount-range, amount-consistency, b1-validation */
export function judgeRequest(r: JudgedRequest): Finding[] {
  if (r.status >= 500 || r.status < 200) return [];
  const success = r.status < 300;
  const code = (r.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  const answered = typeof code === 'string' ? code : undefined;
  // a body of at most x-max-body-bytes is read (the limit counts inclusive): 413 only past it. A body
  // the ear did not keep whole is measured by its Content-Length, as the server measures it first.
  if (answered === 'PAYLOAD_TOO_LARGE') {
    const bytes = r.cut ? Number(r.headers['content-length'] ?? NaN) : r.raw === undefined ? NaN : Buffer.byteLength(r.raw);
    if (bytes <= maxBodyBytes)
      return [
        {
          kind: 'request',
          jsonPath: '$.error.code',
          message: `${r.opId} answered ${r.status} ${answered} to a body of ${bytes} bytes; the contract reads bodies up to x-max-body-bytes (${maxBodyBytes})`,
          expected: `a body of at most ${maxBodyBytes} bytes read`,
          actual: answered,
          operation: r.opId,
          exchanges: [r.seq],
        },
      ];
  }
  if (r.unreadable || (!success && answered === undefined)) return [];
  const v = verdict(r);
  if (v === undefined) return [];
  // a member a recording masked (the secret of a webhook endpoint's PUT, in a HAR): what it hid is not judged
  // (only when each member refused is one: another refused member refuses the request whatever it hid)
  if (v.code === 'VALIDATION_ERROR' && v.paths?.length && v.paths.every((p) => isMasked(memberAt(r, p)))) return [];
  const finding = (jsonPath: string, message: string, expected: unknown, actual: unknown): Finding[] => [
    { kind: 'request', jsonPath, message, expected, actual, operation: r.opId, exchanges: [r.seq] },
  ];
  const refusedBy = v.code ?? v.business[0];
  if (success)
    return refusedBy === undefined
      ? []
      : finding(
          '$',
          `${r.opId} answered ${r.status} to a request the contract refuses (${refusedBy}${v.code ? `: ${v.message}` : ': outside x-amount-range'})`,
          refusedBy,
          r.status,
        );
  const queryPaths = v.paths?.filter((p) => p.startsWith('query.')) ?? [];
  if (answered === v.code && answered === 'VALIDATION_ERROR' && queryPaths.length && queryPaths.length === v.paths!.length) {
    // a refused query parameter is named in the details (ADR-022: `query.expand`): one the contract's validators name
    const details = (r.json as { error?: { details?: unknown } }).error?.details;
    const named = Array.isArray(details)
      ? details.map((d) => (d as { path?: unknown } | null)?.path).filter((p) => typeof p === 'string')
      : [];
    if (Array.isArray(details) && !named.some((p) => queryPaths.includes(p)))
      return finding(
        '$.error.details',
        `${r.opId} refused with ${answered} naming ${named.join(', ') || 'no member'}; the refused query parameter is ${queryPaths.join(' or ')} (${v.message}; ADR-022)`,
        queryPaths,
        named,
      );
  }
  if (answered === v.code || (answered !== 'VALIDATION_ERROR' && BEFORE_VALIDATION.has(answered!))) return [];
  if (v.code === null) {
    // VALIDATION_ERROR also answers a list cursor the server did not issue, which the schema cannot state
    const cursor = /(?:^|&)cursor=/.test(r.search);
    if (r.status === 400 && (v.ruled.has(answered!) || (answered === 'VALIDATION_ERROR' && !cursor)))
      return finding(
        '$.error.code',
        `${r.opId} refused with 400 ${answered} a request the contract accepts (its schema, every member valid, its amounts consistent)`,
        'a request accepted, or a rule refusal',
        answered,
      );
    return [];
  }
  // refused at validation: any answer of a later stage (a lookup's 404, a state's 409) skips the request's own verdict
  if (!v.ruled.has(answered!) && answered !== 'VALIDATION_ERROR')
    return finding(
      '$.error.code',
      `${r.opId} answered ${r.status} ${answered} to a request the contract refuses at validation with ${v.code} (${v.message}; ADR-057)`,
      v.code,
      answered,
    );
  // a member's code where another ranks first; VALIDATION_ERROR (or a member's code) where only the consistency fails
  const mismatchOnly = v.message === MISMATCH;
  if (v.code !== 'VALIDATION_ERROR' && v.ruled.has(v.code) && (v.ruled.has(answered!) || (mismatchOnly && answered === 'VALIDATION_ERROR')))
    return finding(
      '$.error.code',
      `${r.opId} refused with 400 ${answered}; the contract answers this request ${v.code} (${v.message}; ADR-057)`,
      v.code,
      answered,
    );
  return [];
}

/**
 * An operation that takes an API key, answered 2xx to a request that sent none in any header its
 * variants may take it in: the contract answers 401 (the operation's security requirement). A key
 * that is wrong is the server's to know; a key missing is in the request.
 * @judges auth-api-key
 */
export function judgeKeySent(s: Seen, j: Judging): void {
  if (s.status < 200 || s.status >= 300 || s.simulated) return;
  const headers = s.variants.map((v) => authHeaderOf(v, s.opId));
  if (headers.some((h) => h === null || isSessionTokenHeader(h) || s.ex.headers[h])) return;
  j.out.push(
    finding({
      kind: 'request',
      at: s,
      jsonPath: '$',
      message: `${s.opId} answered ${s.status} to a request without its API key (${[...new Set(headers)].join(' or ')}); the contract answers 401`,
      expected: 401,
      actual: s.status,
    }),
  );
}
