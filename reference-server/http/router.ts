/**
 * The API router: matches a request to an operation (method + path of either variant's
 * bundled document, once per request), answers the CORS of the internal operations, then
 * authenticates with the header of the operation's security scheme, switches to the
 * merchant's pinned variant, applies its rate limit, reads the JSON body and runs the
 * operation's chain: express-openapi-validator's steps (http/validator.ts), then the handler
 * bound by operationId, answering after the write is on disk.
 *
 * Everything an operation needs (validator steps, handler, response check) is bound once at
 * start-up; the request path only looks it up.
 */
import type express from 'express';
import { loadBundledDocument, type Variant } from '../../generated/index.ts';
import type { MerchantConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { isMad } from '../../lib/money.ts';
import type { SessionRecord } from '../domain/types.ts';
import type { Ctx } from '../handlers/context.ts';
import { handlers } from '../handlers/index.ts';
import type { Authenticator } from './auth.ts';
import { withoutRangeCopies } from './amount-range.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { readJsonBody } from '../../server/body.ts';
import { ApiError, invalidToken } from './errors.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { buildOperations, type OperationInfo } from './operations.ts';
import { ownOrigin } from './origin.ts';
import type { RateLimiter } from './rate-limit.ts';
import { createOperationValidator, type Middleware, type OperationValidator } from './validator.ts';

type Json = Record<string, unknown>;

export interface VariantApi {
  doc: Json;
  ops: OperationInfo[];
  /** The variant's operations by HTTP method, in document order. */
  byMethod: Map<string, OperationInfo[]>;
  /** Per operation: its express-openapi-validator steps, then the handler bound by operationId. */
  chains: Map<OperationInfo, Middleware[]>;
  /** The variant's express-openapi-validator (request steps and response check). */
  validator: OperationValidator;
}

/** The request context handed to a handler (a class: one allocation, `baseUrl` on the prototype). */
class RequestCtx implements Ctx {
  readonly variant: Variant;
  params: Record<string, string> = {};
  query: Record<string, unknown> = {};
  body: unknown = undefined;
  #baseUrl: string | undefined;
  constructor(
    readonly op: OperationInfo,
    readonly doc: Json,
    readonly merchant: MerchantConfig,
    readonly session: SessionRecord | null,
    private readonly req: express.Request,
    private readonly publicBaseUrl: string | undefined,
  ) {
    this.variant = merchant.variant;
  }
  /** Computed on first use (few handlers build absolute links); never from the Host header. */
  get baseUrl(): string {
    this.#baseUrl ??= ownOrigin(this.req, this.publicBaseUrl);
    return this.#baseUrl;
  }
}

/**
 * Runs `chain` in order with express's middleware contract (a thrown error, a rejected
 * returned promise or `next(err)` ends it with `done(err)`; `next('route' | 'router')` ends
 * it with `done()`). The same calls an `express.Router()` holding these middlewares would
 * make, without its per-layer path matching and parameter bookkeeping on every request.
 */
function runChain(chain: Middleware[], req: express.Request, res: express.Response, done: (err?: unknown) => void): void {
  const run: ChainRun = { chain, req, res, done, i: 0, next: undefined as never };
  run.next = chainStep.bind(run);
  run.next();
}

interface ChainRun {
  chain: Middleware[];
  req: express.Request;
  res: express.Response;
  done: (err?: unknown) => void;
  i: number;
  next: (err?: unknown) => void;
}

// A bound top-level function rather than a closure per request (tsx names every closure it creates).
function chainStep(this: ChainRun, err?: unknown): void {
  if (err === 'route' || err === 'router') {
    this.done();
    return;
  }
  if (err !== undefined && err !== null) {
    this.done(err);
    return;
  }
  const mw = this.chain[this.i++];
  if (!mw) {
    this.done();
    return;
  }
  try {
    const r = mw(this.req, this.res, this.next) as { then?: unknown } | undefined;
    if (r && typeof r.then === 'function') {
      const done = this.done;
      (r as Promise<unknown>).then(undefined, (e: unknown) => done(e ?? new Error('Rejected promise')));
    }
  } catch (e) {
    this.done(e);
  }
}

/** Operations by method, in the given order. */
function indexByMethod(ops: OperationInfo[]): Map<string, OperationInfo[]> {
  const out = new Map<string, OperationInfo[]>();
  for (const op of ops) {
    let list = out.get(op.method);
    if (!list) out.set(op.method, (list = []));
    list.push(op);
  }
  return out;
}

function matchIn(byMethod: Map<string, OperationInfo[]>, method: string, path: string): OperationInfo | null {
  const list = byMethod.get(method);
  if (list) for (const op of list) if (op.regex.test(path)) return op;
  return null;
}

/** True when some operation of `doc` declares a multipart request body (the validator's file uploader would handle it). */
function declaresMultipart(doc: Json): boolean {
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const op of Object.values(item)) {
      const content = ((op as Json | null)?.requestBody as Json | undefined)?.content as Json | undefined;
      if (content && Object.keys(content).some((t) => t.toLowerCase().startsWith('multipart/'))) return true;
    }
  }
  return false;
}

/**
 * Variant `v`'s operations, each bound to its validator steps (undeclared query parameters refused)
 * and its handler.
 * @rule ADR-022
 */
export async function buildVariantApi(core: Core, v: Variant): Promise<VariantApi> {
  const doc = loadBundledDocument(v);
  const ops = buildOperations(doc, v);
  // No operation takes multipart bodies (readJsonBody answers 415 to anything but JSON
  // before the validator runs), so the validator's multer stage would only pass every
  // request on; it is left out. Checked here so a multipart operation cannot slip by.
  if (declaresMultipart(doc)) throw new Error(`variant ${v}: a multipart request body needs the validator's fileUploader`);
  const validator = await createOperationValidator(withoutRangeCopies(doc), ops, {
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: true,
    formats: { mad: { type: 'number', validate: (x: number) => isMad(x) } },
  });
  const chains = new Map<OperationInfo, Middleware[]>();
  for (const op of ops) {
    const handler = handlers[op.operationId];
    if (!handler) throw new Error(`variant ${v}: operation ${op.operationId} has no handler`);
    const handle: Middleware = async (req, res, next) => {
      const ctx = res.locals.ctx as Ctx;
      try {
        ctx.params = req.params as Record<string, string>; // set by the operation step (pathParamsOf): strings
        ctx.query = req.query;
        ctx.body = req.body;
        // Answered after the write is durable: the repository resolves a transaction (and a read) only then.
        const result = await handler(core, ctx);
        if (result.stream) {
          // Not JSON: the stream's items are described by `x-event-schema`, written as they come.
          res.status(result.status);
          result.stream(req, res);
          return;
        }
        res.status(result.status);
        res.json(validator.checkResponse(req, res, result.body));
      } catch (e) {
        next(e);
      }
    };
    chains.set(op, [...validator.steps(op), handle]);
  }
  return { doc, ops, byMethod: indexByMethod(ops), chains, validator };
}

// The internal operations (`x-internal`) are called by the browser SDK from the merchant's
// own page, another origin: answer their CORS preflights and allow any origin. The
// session token is a bearer header, never a cookie, so no credentials are involved.
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, X-Session-Token',
  'Access-Control-Max-Age': '600',
};

export interface ApiRouterDeps {
  apis: Record<Variant, VariantApi>;
  auth: Authenticator;
  rateLimit: RateLimiter;
  mode: 'sandbox' | 'production';
  publicBaseUrl: string | undefined;
  /** Failed-authentication throttle per client address (ADR-027); null: off. */
  authThrottle: AuthThrottle | null;
  /** Reads a merchant's state again at the start of its request (core.ts). */
  refreshMerchant: (merchantId: string) => Promise<void>;
}

/**
 * The API: every request matching an operation of either variant; anything else goes on to
 * `next()`. HEAD answers as GET without a body; a path some operation serves, called with a
 * method none serves there, answers 405 with `Allow` (ADR-024).
 * @rule ADR-024
 */
export function createApiRouter({
  apis,
  auth,
  rateLimit,
  mode,
  publicBaseUrl,
  authThrottle,
  refreshMerchant,
}: ApiRouterDeps): express.RequestHandler {
  const allOps = [...apis[1].ops, ...apis[2].ops];
  const allByMethod = indexByMethod(allOps);
  /** The first operation of variant 1, then variant 2, matching `method` and `path`. */
  const findOperation = (method: string, path: string): OperationInfo | null => matchIn(allByMethod, method, path);
  /** The methods some operation of either variant serves at `path` (HEAD with GET), for a 405's `Allow` (ADR-024). */
  const allowedMethods = (path: string): string[] => {
    const out = new Set<string>();
    for (const op of allOps) {
      if (op.sandbox && mode === 'production') continue;
      if (!op.regex.test(path)) continue;
      out.add(op.method);
      if (op.method === 'GET') out.add('HEAD');
    }
    return [...out].sort();
  };

  /**
   * Authenticates the caller (ADR-027's throttle first), reads its merchant's state again, picks
   * the merchant's variant's operation and counts its rate limit; sets the handler's context.
   */
  const authorize = async (
    req: express.Request,
    res: express.Response,
    matched: OperationInfo,
    method: string,
    path: string,
  ): Promise<OperationInfo> => {
    let merchant: MerchantConfig;
    let session: SessionRecord | null = null;
    if (!matched.auth) throw new Error(`${matched.operationId} has no security scheme`);
    const address = req.socket.remoteAddress ?? 'unknown';
    await authThrottle?.check(address);
    try {
      if (matched.auth.kind === 'apiKey') {
        merchant = auth.key(req, matched.auth);
        await refreshMerchant(merchant.id);
      } else ({ session, merchant } = await auth.token(req, matched.auth));
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) await authThrottle?.fail(address);
      throw e;
    }
    const api = apis[merchant.variant];
    // `matched` is the first match of variant 1 then 2: when it is the merchant's variant it is that variant's first match.
    const op = matched.variant === merchant.variant ? matched : matchIn(api.byMethod, method, path);
    if (!op) throw new ApiError('ROUTE_NOT_FOUND', `No operation ${method} ${path} in Variant ${merchant.variant}`);
    if (op.sandbox && session && !session.testMode) throw invalidToken();
    if (op.rateLimit) await rateLimit(res, merchant, op.rateLimit);
    res.locals.ctx = new RequestCtx(op, api.doc, merchant, session, req, publicBaseUrl);
    return op;
  };

  return (req, res, next) => {
    const path = req.path;
    if (req.method === 'OPTIONS') {
      const op = findOperation(String(req.get('Access-Control-Request-Method') ?? '').toUpperCase(), path);
      if (!op?.internal) {
        next();
        return;
      }
      res.set({ ...CORS_HEADERS, 'Access-Control-Allow-Methods': op.method });
      res.status(204).end();
      return;
    }
    // HEAD answers as GET without a body (node's response omits it), ADR-024.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const matched = findOperation(method, path);
    if (!matched) {
      const allow = allowedMethods(path);
      if (allow.length === 0) next();
      else next(methodNotAllowed(req.method, path, allow));
      return;
    }
    if (matched.internal) res.set({ ...CORS_HEADERS, 'Access-Control-Allow-Methods': matched.method });
    if (matched.sandbox && mode === 'production') {
      next();
      return;
    }
    if (matched.open) {
      // No caller: the handler reads nothing of one (see handlers/service.ts).
      res.locals.ctx = {
        op: matched,
        doc: apis[matched.variant].doc,
        variant: matched.variant,
        params: {},
        query: {},
        body: undefined,
      } satisfies Omit<Ctx, 'merchant' | 'session' | 'baseUrl'>;
      req.body = undefined;
      runChain(apis[matched.variant].chains.get(matched)!, req, res, next);
      return;
    }
    authorize(req, res, matched, method, path)
      .then(async (op) => {
        const chain = apis[op.variant].chains.get(op)!;
        req.body = op.hasBody ? await readJsonBody(req) : undefined;
        runChain(chain, req, res, next);
      })
      .catch(next);
  };
}
