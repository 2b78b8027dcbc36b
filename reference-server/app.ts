/**
 * The reference server as an app factory (no listen on import).
 *
 * Request path: match the operation (method + path of either variant's bundled document)
 * → authenticate with the header of the operation's security scheme (case-insensitive,
 * duplicated header = 401) → the merchant's pinned variant → rate limit (operations with
 * `x-rate-limit`) → safe JSON body → that variant's express-openapi-validator (requests
 * AND responses), bound to the matched operation (http/validator.ts) → the handler bound by
 * operationId → answer after the write is on disk.
 * `mount` adds routes (checkout page, docs) before the JSON 404 and error handlers.
 */
import express from 'express';
import { loadBundledDocument, type Variant } from '../generated/index.ts';
import { errorCatalog, type ErrorCode } from '../generated/contract.ts';
import { isMad } from './domain/money.ts';
import { digestBytesEqual, sha256, sha256Bytes } from './domain/ids.ts';
import type { Clock } from './domain/clock.ts';
import type { MerchantConfig, ServerConfig } from './config.ts';
import { Core, loggingSmsSender, type SmsSender } from './core.ts';
import { handlers, type Ctx } from './handlers.ts';
import { rangeAnswerForValidation } from './http/amount-range.ts';
import { payloadTooLarge, readJsonBody } from './http/body.ts';
import { ApiError, invalidKey, invalidToken, type ErrorDetail } from './http/errors.ts';
import { buildOperations, nearestExtension, type OperationInfo } from './http/operations.ts';
import type { Store } from './store/store.ts';
import type { SessionRecord } from './domain/types.ts';
import type { WebhookDispatcher, WebhookDispatcherDeps } from './webhooks/contracts.ts';
import { createOperationValidator, type Middleware, type OperationValidator } from './http/validator.ts';

export type { SmsSender } from './core.ts';

export interface CreateAppOptions {
  store: Store;
  clock: Clock;
  config: ServerConfig;
  smsSender?: SmsSender;
  webhookDispatcherFactory?: (deps: WebhookDispatcherDeps) => WebhookDispatcher;
  mount?: (app: express.Express) => void;
}

export interface AppHandle {
  app: express.Express;
  /** Stops the expiry sweeper and the webhook dispatcher, then closes the store (journal folded into the data file). */
  close(): Promise<void>;
  /** The core, for tests and tools (store, clock, merchants). */
  core: Core;
}

type Json = Record<string, unknown>;

interface VariantApi {
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
  /** Computed on first use (few handlers build absolute links). */
  get baseUrl(): string {
    this.#baseUrl ??= (this.publicBaseUrl ?? `${this.req.protocol}://${this.req.get('host') ?? '127.0.0.1'}`).replace(/\/$/, '');
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

const HEADER_TITLE: Record<string, string> = { 'x-api-key': 'X-API-Key', 'x-service-key': 'X-Service-Key', 'x-session-token': 'X-Session-Token' };

/** Every value of header `name` (lower case) as sent, duplicates included. */
function headerValues(req: express.Request, name: string): string[] {
  const out: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i]!;
    if (k.length === name.length && k.toLowerCase() === name) out.push(raw[i + 1]!);
  }
  return out;
}

/** Sends `e` in the declared error shape; `check` (the operation's response validation) may throw. */
function sendError(res: express.Response, e: ApiError, check?: (body: unknown) => unknown): void {
  if (e.headers) res.set(e.headers);
  if (e.code === 'PAYLOAD_TOO_LARGE') res.set('Connection', 'close');
  res.status(e.status);
  const body = e.body();
  res.json(check ? check(body) : body);
}

/** Last-resort 500 that bypasses response validation (used when validation itself failed). */
function sendInternal(res: express.Response): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
  res.status(500).set('Content-Type', 'application/json; charset=utf-8').end(body);
}

export async function createApp(opts: CreateAppOptions): Promise<AppHandle> {
  const { store, clock, config } = opts;
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const core = new Core(store, clock, config, opts.smsSender ?? loggingSmsSender(log));
  const merchants = config.merchants;
  const rateWindows = new Map<string, { start: number; count: number }>();

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const apis = {} as Record<Variant, VariantApi>;
  for (const v of [1, 2] as const) {
    const doc = loadBundledDocument(v);
    const ops = buildOperations(doc, v);
    // No operation takes multipart bodies (readJsonBody answers 415 to anything but JSON
    // before the validator runs), so the validator's multer stage would only pass every
    // request on; it is left out. Checked here so a multipart operation cannot slip by.
    if (declaresMultipart(doc)) throw new Error(`variant ${v}: a multipart request body needs the validator's fileUploader`);
    const validator = await createOperationValidator(doc, ops, {
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
          ctx.body = req.body;
          const result = await handler(core, ctx);
          if (!store.settled) await store.barrier();
          res.status(result.status);
          res.json(validator.checkResponse(req, res, result.body));
        } catch (e) {
          next(e);
        }
      };
      chains.set(op, [...validator.steps(op), handle]);
    }
    apis[v] = { doc, ops, byMethod: indexByMethod(ops), chains, validator };
  }
  const allByMethod = indexByMethod([...apis[1].ops, ...apis[2].ops]);
  // The merchants' key digests as bytes, compared in constant time on every request.
  const keyDigests = merchants.map((m) => {
    const b = Buffer.from(m.keyDigest, 'hex');
    if (b.length !== 32) throw new Error(`merchant ${m.id}: key digest is not a SHA-256`);
    return b;
  });

  /** The first operation of variant 1, then variant 2, matching `method` and `path`. */
  function findOperation(method: string, path: string): OperationInfo | null {
    return matchIn(allByMethod, method, path);
  }

  function authenticateKey(req: express.Request, header: string): MerchantConfig {
    const values = headerValues(req, header);
    const title = HEADER_TITLE[header] ?? header;
    if (values.length === 0) throw invalidKey(`Missing API key: send it in the ${title} header`);
    if (values.length > 1) throw invalidKey(`The ${title} header was sent more than once`);
    const digest = sha256Bytes(values[0]!.trim());
    let found: MerchantConfig | undefined;
    // No early exit: every merchant's digest is compared, in constant time each.
    for (let i = 0; i < merchants.length; i++) if (digestBytesEqual(keyDigests[i]!, digest)) found = merchants[i];
    if (!found) throw invalidKey();
    if ((config.mode === 'sandbox') !== (found.keyMode === 'test')) {
      throw invalidKey(config.mode === 'sandbox' ? 'Live keys are not accepted by the sandbox; use a test key (sk_test_…)' : 'Test keys are not accepted in production; use a live key (sk_live_…)');
    }
    return found;
  }

  function authenticateToken(req: express.Request): { session: SessionRecord; merchant: MerchantConfig } {
    const values = headerValues(req, 'x-session-token');
    if (values.length !== 1) throw invalidToken();
    const session = store.sessionByTokenDigest(sha256(values[0]!.trim()));
    if (!session) throw invalidToken();
    const merchant = core.merchantsById.get(session.merchantId);
    if (!merchant || (config.mode === 'sandbox') !== (merchant.keyMode === 'test')) throw invalidToken();
    if (core.now(merchant.id) >= Date.parse(session.expiresAt)) throw invalidToken();
    return { session, merchant };
  }

  function rateLimit(res: express.Response, merchant: MerchantConfig, rl: NonNullable<OperationInfo['rateLimit']>): void {
    const now = core.now(merchant.id);
    let w = rateWindows.get(merchant.id);
    if (!w || now >= w.start + rl.windowSeconds * 1000) rateWindows.set(merchant.id, (w = { start: now, count: 0 }));
    w.count += 1;
    const headers = {
      'RateLimit-Limit': String(rl.limit),
      'RateLimit-Remaining': String(Math.max(0, rl.limit - w.count)),
      'RateLimit-Reset': String(Math.max(0, Math.ceil((w.start + rl.windowSeconds * 1000 - now) / 1000))),
      'RateLimit-Policy': `${rl.limit};w=${rl.windowSeconds}`,
    };
    res.set(headers);
    if (w.count > rl.limit) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `Too many requests, retry after ${rl.retryAfterSeconds} seconds`,
        undefined,
        { 'Retry-After': String(rl.retryAfterSeconds) },
        rl.retryAfterSeconds,
      );
    }
  }

  // The internal operations (`x-internal`) are called by the browser SDK from the merchant's
  // own page, another origin: answer their CORS preflights and allow any origin. The
  // session token is a bearer header, never a cookie, so no credentials are involved.
  const CORS_HEADERS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Content-Type, X-Session-Token', 'Access-Control-Max-Age': '600' };

  // The API: every request matching an operation of either variant (matched once per request).
  app.use((req, res, next) => {
    const path = req.path;
    if (req.method === 'OPTIONS') {
      // CORS preflight of an internal operation (`x-internal`), called by the browser SDK
      // from the merchant's own page, another origin. The session token is a bearer
      // header, never a cookie, so no credentials are involved.
      const op = findOperation(String(req.get('Access-Control-Request-Method') ?? '').toUpperCase(), path);
      if (!op?.internal) {
        next();
        return;
      }
      res.set({ ...CORS_HEADERS, 'Access-Control-Allow-Methods': op.method });
      res.status(204).end();
      return;
    }
    const matched = findOperation(req.method, path);
    if (!matched) {
      next();
      return;
    }
    if (matched.internal) res.set({ ...CORS_HEADERS, 'Access-Control-Allow-Methods': matched.method });
    if (matched.sandbox && config.mode === 'production') {
      next();
      return;
    }
    try {
      let merchant: MerchantConfig;
      let session: SessionRecord | null = null;
      if (!matched.auth) throw new Error(`${matched.operationId} has no security scheme`);
      if (matched.auth.kind === 'apiKey') merchant = authenticateKey(req, matched.auth.header);
      else ({ session, merchant } = authenticateToken(req));
      const api = apis[merchant.variant];
      // `matched` is the first match of variant 1 then 2: when it is the merchant's variant it is that variant's first match.
      const op = matched.variant === merchant.variant ? matched : matchIn(api.byMethod, req.method, path);
      if (!op) throw new ApiError('ROUTE_NOT_FOUND', `No operation ${req.method} ${path} in Variant ${merchant.variant}`);
      if (op.sandbox && session && !session.testMode) throw invalidToken();
      if (op.rateLimit) rateLimit(res, merchant, op.rateLimit);
      res.locals.ctx = new RequestCtx(op, api.doc, merchant, session, req, config.publicBaseUrl);
      const chain = api.chains.get(op)!;
      if (!op.hasBody) {
        req.body = undefined;
        runChain(chain, req, res, next);
        return;
      }
      readJsonBody(req).then(
        (body) => {
          req.body = body;
          runChain(chain, req, res, next);
        },
        (e: unknown) => next(e),
      );
    } catch (e) {
      next(e);
    }
  });

  opts.mount?.(app);

  app.use((req, res) => {
    sendError(res, new ApiError('ROUTE_NOT_FOUND', `No operation ${req.method} ${req.path}`));
  });

  app.use((err: unknown, req: express.Request, res: express.Response, _next: express.NextFunction) => {
    if (res.headersSent) return;
    const ctx = res.locals.ctx as Ctx | undefined;
    let mapped: ApiError | null = null;
    try {
      mapped = mapError(err, ctx);
    } catch (e) {
      log(`error while mapping an error: ${(e as Error).stack ?? String(e)}`);
    }
    if (mapped) {
      try {
        // Error bodies are validated too, against the responses of the request's operation.
        sendError(res, mapped, ctx ? (body) => apis[ctx.variant].validator.checkResponse(req, res, body) : undefined);
        return;
      } catch (e) {
        err = e; // the error body broke the contract: a server bug, answered 500 below
      }
    }
    log(`INTERNAL_ERROR on ${req.method} ${req.path}: ${(err as Error)?.stack ?? JSON.stringify(err)}${(err as { errors?: unknown }).errors ? ` ${JSON.stringify((err as { errors?: unknown }).errors)}` : ''}`);
    sendInternal(res);
  });

  // Expiry in real time: sweep PENDING transactions whose window passed.
  const sweepTimer = setInterval(() => {
    core.sweep().catch((e: Error) => log(`expiry sweep failed: ${e.message}`));
  }, config.sweepIntervalMs ?? 1000);
  sweepTimer.unref();

  if (opts.webhookDispatcherFactory) {
    core.dispatcher = opts.webhookDispatcherFactory(core.dispatcherDeps());
    core.dispatcher.start();
    core.dispatcher.kick();
  }

  let closed = false;
  return {
    app,
    core,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweepTimer);
      await core.dispatcher?.stop();
      await store.close();
    },
  };
}

interface ValidatorError {
  status?: number;
  errors?: Array<{ path?: string; message?: string }>;
  message?: string;
}

/** Maps any error to the declared answer, or null for a genuine server problem. */
function mapError(err: unknown, ctx: Ctx | undefined): ApiError | null {
  if (err instanceof ApiError) return err.code === 'INTERNAL_ERROR' ? null : err;
  const e = err as ValidatorError & { type?: string };
  if (e?.type === 'entity.too.large') return payloadTooLarge();
  const status = e?.status;
  if (typeof status !== 'number' || !Array.isArray(e.errors)) return null;
  const errors = e.errors;
  if (status === 404 || status === 405) return new ApiError('ROUTE_NOT_FOUND', e.message ?? 'not found');
  if (status === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  if (status === 413) return payloadTooLarge();
  if (status !== 400) return null; // 500: response validation failed — a bug, logged by the caller
  const details: ErrorDetail[] = [];
  let code: ErrorCode = 'VALIDATION_ERROR';
  let first = true;
  for (const x of errors) {
    const p = x.path ?? '';
    const msg = x.message ?? 'is invalid';
    let detailPath = p;
    const m = /^\/(body|params|query|headers)(?:\/(.*))?$/.exec(p);
    if (m) {
      const where = m[1]!;
      const rest = m[2] ?? '';
      if (where === 'body') {
        detailPath = `/${rest}`;
        if (first && ctx?.op.requestSchema) {
          const found = nearestExtension(ctx.doc, ctx.op.requestSchema, rest === '' ? [] : rest.split('/'), 'x-error-code');
          if (typeof found === 'string' && found in errorCatalog) code = found as ErrorCode;
        }
      } else {
        detailPath = `${where === 'params' ? 'path' : where === 'headers' ? 'header' : 'query'}.${rest}`;
      }
    }
    details.push({ path: detailPath, message: msg });
    first = false;
  }
  const head = details[0];
  const message = head ? `${head.path.replace(/^\//, '').replace(/\//g, '.') || 'request body'} ${head.message}` : (e.message ?? 'Invalid request');
  return rangeAnswerForValidation(ctx?.doc ?? {}, ctx?.op.requestSchema ?? null, errors[0], code) ?? new ApiError(code, message, details);
}
