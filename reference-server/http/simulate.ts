/**
 * Failures on demand (ADR-052): in the sandbox, a call of an operation declaring the
 * `Paylater-Simulate` header parameter, made with a test key, is answered with the failure the
 * header names (or the merchant's fault rule, `PUT /api/v1/sandbox/faults`) instead of running.
 * It runs in front of the API router, so nothing of the call is stored and its rate limit is
 * not counted. Production refuses the header.
 *
 * What may be simulated and where is read from the spec: the operations declaring the header
 * (each variant's bundled document), the header's `x-simulate` (statuses, timeout bounds), the
 * statuses each operation declares (`variants` of generated/contract.ts) and the declared wait
 * of a 503 (`Retry-After` of its response).
 */
import type express from 'express';
import { randomBytes } from 'node:crypto';
import { loadBundledDocument, variants, type Variant } from '../../generated/index.ts';
import { errorMessage } from '../../lib/error-messages.ts';
import type { Core } from '../core.ts';
import type { FaultRuleRecord, MerchantStateRecord } from '../domain/types.ts';
import type { MerchantConfig } from '../config.ts';
import { headerValues, type Authenticator } from './auth.ts';
import { ApiError, sendError } from './errors.ts';
import { matchRequest } from '../../server/routes.ts';
import { resolveRef } from '../../server/schema.ts';

type Json = Record<string, unknown>;

/** The header's name as the spec declares it. */
export const SIMULATE_PARAMETER = 'Paylater-Simulate';

/** The code each simulated status answers with (the operation must declare it under that status). */
const CODE_OF = { '500': 'INTERNAL_ERROR', '503': 'STORAGE_UNAVAILABLE', '429': 'RATE_LIMIT_EXCEEDED' } as const;
type SimStatus = keyof typeof CODE_OF;

/** A failure to answer. */
export type Failure = { kind: 'status'; status: SimStatus; retryAfterSeconds?: number } | { kind: 'timeout'; seconds: number };

interface SimOp {
  operationId: string;
  variant: Variant;
  authHeader: string;
  /** The simulated statuses the operation declares. */
  statuses: Set<SimStatus>;
  /** The declared `Retry-After` of its 503. */
  storageRetryAfter: number | null;
  rateLimit: { limit: number; windowSeconds: number } | null;
}

/** What the spec says about the header: its `x-simulate` and the operations declaring it, per variant. */
export interface SimulateSpec {
  statuses: SimStatus[];
  timeout: { minimum: number; maximum: number };
  /** The wait of a simulated 429 that names none (a rule's `retryAfterSeconds` overrides it). */
  retryAfterSeconds: number;
  ops: SimOp[];
}

let cached: SimulateSpec | undefined;

/** Reads the header's declaration from both variants' bundled documents (once). */
export function simulateSpec(): SimulateSpec {
  if (cached) return cached;
  let ext: Json | undefined;
  const ops: SimOp[] = [];
  for (const v of [1, 2] as Variant[]) {
    const doc = loadBundledDocument(v);
    const facts = variants[`v${v}`] as unknown as {
      operations: Record<string, { errors: Record<string, string[]>; authHeader: string | null }>;
      rateLimits: Record<string, { limit: number; windowSeconds: number }>;
    };
    for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
      for (const raw of Object.values(item)) {
        const op = raw as Json;
        if (!op || typeof op !== 'object' || typeof op.operationId !== 'string') continue;
        const params = ((op.parameters ?? []) as unknown[]).map((x) => resolveRef(doc, x) ?? {});
        const param = params.find((x) => x.in === 'header' && x.name === SIMULATE_PARAMETER);
        if (!param) continue;
        ext ??= (param.schema as Json | undefined)?.['x-simulate'] as Json | undefined;
        const id = op.operationId;
        const fact = facts.operations[id];
        if (!fact?.authHeader) throw new Error(`simulate: ${id} declares ${SIMULATE_PARAMETER} without an API key`);
        const statuses = new Set<SimStatus>();
        for (const s of Object.keys(CODE_OF) as SimStatus[]) if (fact.errors[s]?.includes(CODE_OF[s])) statuses.add(s);
        const r503 = (op.responses as Json | undefined)?.['503'];
        const retryHeader = resolveRef(doc, (resolveRef(doc, r503)?.headers as Json | undefined)?.['Retry-After']);
        const c = (retryHeader?.schema as Json | undefined)?.const;
        if (statuses.has('503') && typeof c !== 'number') throw new Error(`simulate: ${id}'s 503 has no Retry-After const`);
        ops.push({
          operationId: id,
          variant: v,
          authHeader: fact.authHeader.toLowerCase(),
          statuses,
          storageRetryAfter: typeof c === 'number' ? c : null,
          rateLimit: facts.rateLimits[id] ?? null,
        });
      }
    }
  }
  const statuses = (ext?.statuses as unknown[] | undefined)?.map(String) as SimStatus[] | undefined;
  const timeout = ext?.timeoutSeconds as { minimum: number; maximum: number } | undefined;
  const retryAfterSeconds = ext?.retryAfterSeconds;
  if (!statuses || !timeout || typeof retryAfterSeconds !== 'number')
    throw new Error(`simulate: the ${SIMULATE_PARAMETER} parameter has no x-simulate (statuses, timeoutSeconds, retryAfterSeconds)`);
  for (const s of statuses) if (!(s in CODE_OF)) throw new Error(`simulate: x-simulate status ${s} has no declared shape`);
  cached = { statuses, timeout, retryAfterSeconds, ops };
  return cached;
}

/** The failure a header value names, or a reason it names none. */
export function parseSimulate(value: string, spec: SimulateSpec = simulateSpec()): Failure | { error: string } {
  const v = value.trim();
  if ((spec.statuses as string[]).includes(v)) return { kind: 'status', status: v as SimStatus };
  const m = /^timeout=(\d{1,3})$/.exec(v);
  if (m) {
    const s = Number(m[1]);
    if (s >= spec.timeout.minimum && s <= spec.timeout.maximum) return { kind: 'timeout', seconds: s };
    return { error: `timeout must be between ${spec.timeout.minimum} and ${spec.timeout.maximum} seconds` };
  }
  return { error: `must be one of ${spec.statuses.join(', ')} or timeout=SECONDS` };
}

const headerRefusal = (message: string) =>
  new ApiError('VALIDATION_ERROR', `header.${SIMULATE_PARAMETER.toLowerCase()} ${message}`, [
    { path: `header.${SIMULATE_PARAMETER.toLowerCase()}`, message },
  ]);

/** Why operation `op` cannot answer `f`, or null when it can. */
export function unsupported(op: Pick<SimOp, 'operationId' | 'statuses'>, f: Failure): string | null {
  if (f.kind === 'timeout' || op.statuses.has(f.status)) return null;
  return `${f.status} is not a status ${op.operationId} declares (${CODE_OF[f.status]})`;
}

/** Sends `f` in the operation's declared shape; a timeout holds the call, then closes its connection. */
function answer(req: express.Request, res: express.Response, op: SimOp, f: Failure): void {
  // for the API log (http/api-log.ts, ADR-056)
  res.locals.simulated = f.kind === 'timeout' ? `timeout=${f.seconds}` : f.status;
  if (f.kind === 'timeout') {
    const timer = setTimeout(() => req.socket.destroy(), f.seconds * 1000);
    timer.unref();
    req.socket.once('close', () => clearTimeout(timer));
    return;
  }
  if (f.status === '500') {
    sendError(res, new ApiError('INTERNAL_ERROR', errorMessage('INTERNAL_ERROR', {}, 1)));
    return;
  }
  if (f.status === '503') {
    // read at start: an operation that declares 503 declares its Retry-After's const
    const s = op.storageRetryAfter!;
    sendError(
      res,
      new ApiError(
        'STORAGE_UNAVAILABLE',
        errorMessage('STORAGE_UNAVAILABLE', { seconds: s }, 1),
        undefined,
        { 'Retry-After': String(s) },
        s,
      ),
    );
    return;
  }
  const s = f.retryAfterSeconds ?? simulateSpec().retryAfterSeconds;
  const headers: Record<string, string> = { 'Retry-After': String(s) };
  if (op.rateLimit) {
    headers['RateLimit-Limit'] = String(op.rateLimit.limit);
    headers['RateLimit-Remaining'] = '0';
    headers['RateLimit-Reset'] = String(s);
    headers['RateLimit-Policy'] = `${op.rateLimit.limit};w=${op.rateLimit.windowSeconds}`;
  }
  sendError(res, new ApiError('RATE_LIMIT_EXCEEDED', errorMessage('RATE_LIMIT_EXCEEDED', { seconds: s }, 1), undefined, headers, s));
}

/** The failure of rule `r`. */
export function ruleFailure(r: FaultRuleRecord): Failure {
  if (r.failure === 'timeout') return { kind: 'timeout', seconds: r.timeoutSeconds ?? 1 };
  return r.failure === '429'
    ? { kind: 'status', status: '429', retryAfterSeconds: r.retryAfterSeconds ?? simulateSpec().retryAfterSeconds }
    : { kind: 'status', status: r.failure };
}

/** True when rule `r` applies to operation `operationId` (of a variant whose declaration is `op`). */
function ruleApplies(r: FaultRuleRecord, op: SimOp): boolean {
  if (r.operations && !r.operations.includes(op.operationId)) return false;
  return unsupported(op, ruleFailure(r)) === null;
}

export interface SimulatorDeps {
  core: Core;
  auth: Authenticator;
  mode: 'sandbox' | 'production';
}

/**
 * The middleware. Production: a call of a declaring operation carrying the header is refused
 * (400). Sandbox: a call with the header, or matching the merchant's rule while it has calls
 * left, is answered with the failure; everything else (and every call whose key is not
 * accepted: the router answers its 401) goes on untouched.
 * @rule ADR-052
 */
export function createSimulator({ core, auth, mode }: SimulatorDeps): express.RequestHandler {
  const spec = simulateSpec();
  const header = SIMULATE_PARAMETER.toLowerCase();
  const byKey = new Map(spec.ops.map((o) => [`${o.variant} ${o.operationId}`, o]));
  /** The declaring operation the request calls in `variant` (matched once per request, server/routes.ts). */
  const find = (req: express.Request, variant: Variant): SimOp | undefined => {
    const m = matchRequest(req, req.path, variant);
    return m ? byKey.get(`${variant} ${m.entry.operationId}`) : undefined;
  };
  /** True when a merchant may hold a rule: one cached, or a state this instance may not have read yet. */
  const anyRule = (): boolean => {
    for (const id of core.merchantsById.keys()) if (core.merchantState(id).faultRule || !core.merchantStateCurrent(id)) return true;
    return false;
  };

  return (req, res, next) => {
    const values = headerValues(req, header);
    if (values.length === 0 && (mode === 'production' || !anyRule())) {
      next();
      return;
    }
    const first = find(req, 1) ?? find(req, 2);
    if (!first) {
      next();
      return;
    }
    if (mode === 'production') {
      next(headerRefusal(`is a sandbox feature (test keys only); production does not accept it (ADR-052)`));
      return;
    }
    let merchant: MerchantConfig;
    try {
      merchant = auth.key(req, { kind: 'apiKey', header: first.authHeader, title: first.authHeader } as Parameters<
        Authenticator['key']
      >[1]);
    } catch {
      next(); // the router answers the key's 401 (and counts it against the address)
      return;
    }
    const op = find(req, merchant.variant);
    if (!op) {
      next();
      return;
    }
    if (values.length > 0) {
      if (values.length > 1) {
        next(headerRefusal('was sent more than once'));
        return;
      }
      const f = parseSimulate(values[0]!, spec);
      if ('error' in f) {
        next(headerRefusal(f.error));
        return;
      }
      const why = unsupported(op, f);
      if (why) {
        next(headerRefusal(why));
        return;
      }
      answer(req, res, op, f);
      return;
    }
    const cached = core.merchantState(merchant.id).faultRule;
    // A cache the store's notices keep current (SQLite, the only writer) decides at once.
    if (core.merchantStateCurrent(merchant.id) && (!cached || cached.used >= cached.times || !ruleApplies(cached, op))) {
      next();
      return;
    }
    // The rule as stored now: one set, removed, replaced or used up through another instance
    // applies from the next call on (its change notice may come later), then one call counted
    // under the merchant state's lock: exact across instances (PostgreSQL's row lock) and kept
    // across restarts. The router does not read the state again for this call (`stateRead`).
    core
      .refreshMerchant(merchant.id)
      .then(async () => {
        res.locals.stateRead = merchant.id;
        const rule = core.merchantState(merchant.id).faultRule;
        if (!rule || rule.used >= rule.times || !ruleApplies(rule, op)) return next();
        let counted = false;
        await core.updateMerchantState(merchant.id, (st) => {
          const r = st.faultRule;
          if (!r || r.id !== rule.id || r.used >= r.times) return st;
          counted = true;
          return { ...st, faultRule: { ...r, used: r.used + 1 } };
        });
        if (counted) answer(req, res, op, ruleFailure(rule));
        else next();
      })
      .catch(next);
  };
}

/** A new rule's id. */
export function newFaultRuleId(): string {
  return `flt_${randomBytes(8).toString('hex')}`;
}

/** The declaring operation `operationId` of `variant`, if any. */
export function simulatedOperation(variant: Variant, operationId: string): SimOp | undefined {
  return simulateSpec().ops.find((o) => o.variant === variant && o.operationId === operationId);
}

/** Merchant state `st` with rule `rule` (or none). */
export function withRule(st: MerchantStateRecord, rule: FaultRuleRecord | null): MerchantStateRecord {
  const { faultRule: _old, ...rest } = st;
  return rule ? { ...rest, faultRule: rule } : rest;
}
