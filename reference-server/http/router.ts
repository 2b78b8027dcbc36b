/**
 * The API: the contract router of each variant (paylater-contract/server, ADR-050) with the
 * reference server's handlers and its own concerns: the CORS of the internal operations, the
 * failed-authentication throttle (ADR-027), authentication by key or session token, the
 * merchant's pinned variant (a request is served by its merchant's variant), the rate
 * limit, and the handler's context. Routing, body reading, validation, the error shape and
 * 404/405/HEAD are the contract router's.
 */
import type express from 'express';
import { loadBundledDocument, type Variant } from '../../generated/index.ts';
import { createVariantsRouter } from '../../server/index.ts';
import { routeTable } from '../../server/routes.ts';
import type { MerchantConfig } from '../config.ts';
import type { Core } from '../core.ts';
import type { SessionRecord } from '../domain/types.ts';
import type { Ctx } from '../handlers/context.ts';
import { handlers } from '../handlers/index.ts';
import type { Authenticator } from './auth.ts';
import { checkAmountRange, withoutRangeCopies } from '../domain/amount-range.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { ApiError, invalidToken, mapStoreError } from './errors.ts';
import { buildOperations, type OperationInfo } from './operations.ts';
import { ownOrigin } from './origin.ts';
import type { RateLimiter } from './rate-limit.ts';

type Json = Record<string, unknown>;

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

// The internal operations (`x-internal`) are called by the browser SDK from the merchant's
// own page, another origin: answer their CORS preflights and allow any origin. The
// session token is a bearer header, never a cookie, so no credentials are involved.
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type, X-Session-Token',
  'Access-Control-Max-Age': '600',
};

export interface ApiRouterDeps {
  core: Core;
  auth: Authenticator;
  rateLimit: RateLimiter;
  mode: 'sandbox' | 'production';
  publicBaseUrl: string | undefined;
  /** Failed-authentication throttle per client address (ADR-027); null: off. */
  authThrottle: AuthThrottle | null;
  /** Reads a merchant's state again at the start of its request (core.ts). */
  refreshMerchant: (merchantId: string) => Promise<void>;
  log: (line: string) => void;
}

/** The caller of a request, found once (kept for the API log, `res.locals.who`). */
interface Who {
  merchant: MerchantConfig;
  session: SessionRecord | null;
}

/**
 * The API: the CORS preflight, then one router of both variants (a request is matched once and
 * served by its merchant's variant); anything that is no operation goes on to `next()`.
 */
export function createApiRouters(deps: ApiRouterDeps): express.RequestHandler[] {
  const { core, auth, rateLimit, mode, publicBaseUrl, authThrottle, refreshMerchant, log } = deps;
  const docs = { 1: loadBundledDocument(1), 2: loadBundledDocument(2) };
  const ops = { 1: buildOperations(docs[1], 1), 2: buildOperations(docs[2], 2) };
  const byId = (v: Variant) => new Map(ops[v].map((o) => [o.operationId, o]));
  const opsById = { 1: byId(1), 2: byId(2) };

  /** The CORS preflight of an internal operation (either variant's); anything else goes on. */
  const preflight: express.RequestHandler = (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const method = String(req.get('Access-Control-Request-Method') ?? '').toUpperCase();
    const m = routeTable(1).match(method, req.path) ?? routeTable(2).match(method, req.path);
    if (!m?.entry.internal) return next();
    const op = m.entry;
    res.set({ ...CORS_HEADERS, 'Access-Control-Allow-Methods': op.method });
    res.status(204).end();
  };

  /** The caller (ADR-027's throttle first), read once per request. */
  const identifyRead = async (req: express.Request, op: OperationInfo): Promise<Who> => {
    if (!op.auth) throw new Error(`${op.operationId} has no security scheme`);
    const address = req.socket.remoteAddress ?? 'unknown';
    await authThrottle?.check(address);
    let who: Who;
    try {
      if (op.auth.kind === 'apiKey') {
        who = { merchant: auth.key(req, op.auth), session: null };
        // (the failures-on-demand middleware may have read it for this call already)
        if (req.res!.locals.stateRead !== who.merchant.id) await refreshMerchant(who.merchant.id);
      } else who = await auth.token(req, op.auth);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) await authThrottle?.fail(address);
      throw e;
    }
    req.res!.locals.who = who;
    return who;
  };
  /**
   * `identifyRead` without a wait when it has nothing to wait for: a key (no throttle to count
   * with) whose merchant's cached state is what the store holds (core.ts). A refused key throws.
   */
  const identify = (req: express.Request, op: OperationInfo): Who | Promise<Who> => {
    const cached = req.res!.locals.who as Who | undefined;
    if (cached) return cached;
    if (authThrottle === null && op.auth?.kind === 'apiKey') {
      const merchant = auth.key(req, op.auth);
      if (core.merchantStateCurrent(merchant.id)) {
        const who: Who = { merchant, session: null };
        req.res!.locals.who = who;
        return who;
      }
    }
    return identifyRead(req, op);
  };

  /** Each operation's handler of variant `v`, with the reference server's handler context. */
  const routedOf = (v: Variant) => {
    const routed: Record<string, (request: { params: unknown; query: unknown; body: unknown }, context: { caller: unknown }) => unknown> =
      {};
    for (const op of ops[v]) {
      const handler = handlers[op.operationId];
      if (!handler) throw new Error(`variant ${v}: operation ${op.operationId} has no handler`);
      routed[op.operationId] = (request, { caller }) => {
        // An open operation has no caller: its handler reads nothing of one (see handlers/service.ts).
        const ctx = (caller ?? { op, doc: docs[v], variant: v, params: {}, query: {}, body: undefined }) as Ctx;
        ctx.params = request.params as Record<string, string>;
        ctx.query = request.query as Record<string, unknown>;
        ctx.body = request.body;
        // Answered after the write is durable: the repository resolves a transaction (and a read) only then.
        return handler(core, ctx);
      };
    }
    return routed;
  };
  /** The handler's context of an identified caller, in its merchant's variant (the router then runs that variant's checks). */
  const admit = (req: express.Request, operationId: string, { merchant, session }: Who): Ctx | Promise<Ctx> => {
    const v = merchant.variant;
    const op = opsById[v].get(operationId);
    // an operation the merchant's variant does not have: the router finds none there (404)
    if (!op) return contextOf(req, opsById[1].get(operationId) ?? opsById[2].get(operationId)!, merchant, session);
    if (op.sandbox && session && !session.testMode) throw invalidToken();
    if (op.rateLimit) return rateLimit(req.res!, merchant, op.rateLimit).then(() => contextOf(req, op, merchant, session));
    return contextOf(req, op, merchant, session);
  };
  const contextOf = (req: express.Request, op: OperationInfo, merchant: MerchantConfig, session: SessionRecord | null): Ctx => {
    const ctx = new RequestCtx(op, docs[merchant.variant], merchant, session, req, publicBaseUrl);
    req.res!.locals.ctx = ctx;
    return ctx;
  };
  const router = createVariantsRouter<Ctx>({
    handlers: { 1: routedOf(1), 2: routedOf(2) },
    // @rule ADR-070: a key's variant is its merchant's, fixed in the configuration: every answer to it is of that variant
    variantOf: (ctx) => ctx.variant,
    document: withoutRangeCopies,
    operations: (e) => !(e.sandbox && mode === 'production'),
    mapError: mapStoreError,
    // A1's amount range (a validation rule, 400): checked with the schema, so that
    // x-error-precedence picks among both (ADR-057); B1's (422) is a business rule, its handler's.
    memberRules(entry, body, variant) {
      try {
        checkAmountRange(docs[variant], opsById[variant].get(entry.operationId)!.requestSchema, body, false);
        return [];
      } catch (e) {
        if (e instanceof ApiError) return [e];
        throw e;
      }
    },
    onInternalError: (err, req) =>
      log(
        `INTERNAL_ERROR on ${req.method} ${req.path}: ${(err as Error)?.stack ?? JSON.stringify(err)}${(err as { errors?: unknown }).errors ? ` ${JSON.stringify((err as { errors?: unknown }).errors)}` : ''}`,
      ),
    authenticate(req, entry) {
      const op = opsById[1].get(entry.operationId) ?? opsById[2].get(entry.operationId)!;
      if (op.internal) req.res!.set({ ...CORS_HEADERS, 'Access-Control-Allow-Methods': op.method });
      const who = identify(req, op);
      return who instanceof Promise ? who.then((w) => admit(req, entry.operationId, w)) : admit(req, entry.operationId, who);
    },
  });
  return [preflight, router];
}
