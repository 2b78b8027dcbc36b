/**
 * The contract router (ADR-050): an express router serving one variant's operations, compiled
 * once from the operation table of generated/v<n>/server.ts and bound to handlers by operationId.
 *
 * Per request: match the operation by method and path (HEAD as GET; a path some operation
 * serves, called with another method, answers 405 with `Allow`, ADR-024; any other request goes
 * on to the next route), authenticate with the operation's security scheme header, read the JSON
 * body (`x-max-body-bytes`, `application/json` only, a member named twice refused: ADR-023),
 * validate the request with express-openapi-validator's public `middleware()` (an undeclared
 * query parameter refused, ADR-022), run the handler, and validate its response (on by default).
 * Every refusal is answered in the contract's error shape (ADR-001) with its code and status
 * (ADR-002); an operation without a handler answers 501.
 *
 * express-openapi-validator finds the operation of a request by walking the document's routes
 * (compiling each path with path-to-regexp) on every request. Each operation is given its own
 * instance, on a copy of the document holding that one path, so the library's lookup sees one
 * route; the router has already matched the operation by operationId.
 */
import { parse as urlParse } from 'node:url';
import { runInThisContext } from 'node:vm';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { loadBundledDocument, type Variant } from '../generated/index.ts';
import { operationTable as operationsV1, type Handlers as HandlersV1 } from '../generated/v1/server.ts';
import { operationTable as operationsV2, type Handlers as HandlersV2 } from '../generated/v2/server.ts';
import { isMad } from '../lib/money.ts';
import { readJsonBody } from './body.ts';
import { runChain, type Late, type Middleware } from './chain.ts';
import { ApiError, mapValidatorError, methodNotAllowed, sendError, sendInternal, sendNotImplemented } from './errors.ts';
import { requestSchemaOf } from './schema.ts';
import type { HandlerContext, OperationEntry, StreamBody } from './types.ts';

type Json = Record<string, unknown>;

/**
 * Node 24 prints DEP0169 for `url.parse()` called outside node_modules, once. Until it has,
 * every call from inside node_modules captures a stack trace to decide (2 µs at a shallow depth,
 * 10–20 µs under express's stack), and express-openapi-validator calls `url.parse` on every
 * request it validates: measured 7.8 % of the server's CPU on B2. One call from a frame outside
 * node_modules (a script of our own name, so it works when this package is itself installed in
 * node_modules), with deprecation warnings muted for that call, sets Node's "warned" flag and
 * ends the per-call check. The cost: DEP0169 is not printed later in this process.
 */
export function endUrlParseDeprecationCheck(): void {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    (runInThisContext('(parse) => parse("/")', { filename: 'paylater-contract:url-parse-check' }) as (p: typeof urlParse) => void)(
      urlParse,
    );
  } finally {
    process.noDeprecation = quiet;
  }
}

/** The operation tables of the variants. */
export const operationTables: { readonly [V in Variant]: Readonly<Record<string, OperationEntry>> } = {
  1: operationsV1,
  2: operationsV2,
};

/** The handlers of a variant's operations (generated/v<n>/server.ts `Handlers`). */
export interface HandlersOf<Caller> {
  1: HandlersV1<Caller>;
  2: HandlersV2<Caller>;
}

export interface ContractRouterOptions<V extends Variant, Caller> {
  variant: V;
  /** A handler per operationId; an operation without one answers 501 (ADR-050). */
  handlers: Partial<HandlersOf<Caller>[V]>;
  /**
   * Called for every operation with a security scheme, before the body is read: returns the
   * caller (handed to the handler as `context.caller`) or throws an `ApiError` (e.g.
   * `INVALID_API_KEY`). `operation.auth.header` names the header to read. Returning `PASS`
   * hands the request on to the next route (a server of both variants picks the caller's).
   */
  authenticate: (req: express.Request, operation: OperationEntry) => Caller | typeof PASS | Promise<Caller | typeof PASS>;
  /** Validate every JSON response against the document before it is sent (a mismatch answers 500). Default true. */
  validateResponses?: boolean;
  /** Which operations this router serves (default: all); the others are unknown to it (404, no `Allow`). */
  operations?: (operation: OperationEntry) => boolean;
  /** The document the requests are validated against, derived from the variant's bundled one (default: as bundled). */
  document?: (doc: Json) => Json;
  /** Maps an error the router does not know to a declared answer (null: a 500). */
  mapError?: (err: unknown) => ApiError | null;
  /**
   * The refusals of body member rules the schema cannot state (e.g. `x-amount-range` on a
   * decimal string), run with schema validation on the parsed body: with the schema's failures,
   * `x-error-precedence` (ADR-057) picks the one code answered (`mapValidatorError`).
   */
  memberRules?: (operation: OperationEntry, body: unknown) => ApiError[];
  /** Told of every 500 (default: written to stderr). */
  onInternalError?: (err: unknown, req: express.Request) => void;
}

/** What `authenticate` returns to hand the request on to the next route (e.g. the router of the caller's variant). */
export const PASS: unique symbol = Symbol('paylater-contract/server PASS');

type AnyHandler = (request: unknown, context: HandlerContext<unknown>) => unknown;

/**
 * A stub for any operation: the router answers 501 for it, as for an operation without a
 * handler (ADR-050). `paylater init server` writes one per operation.
 */
export function notImplemented(..._args: unknown[]): never {
  throw new Error('notImplemented is answered 501 by the contract router; it is not called');
}

interface AnyResult {
  status: number;
  body?: unknown;
  headers?: Record<string, unknown>;
  stream?: StreamBody['stream'];
}

/** express-openapi-validator's stages of one operation: `prepare`, then `check` once the body is read; `all` both, for an operation without a body. */
interface Stages {
  prepare: Middleware[];
  check: Middleware[];
  all: Middleware[];
}

interface Route {
  entry: OperationEntry;
  regex: RegExp;
  /**
   * express-openapi-validator's stages, made at the operation's first request and kept: `prepare`
   * (route metadata, then the response hook) and `check` (headers, path, query, body). Made
   * lazily because each costs tens of milliseconds and a server answers few of its operations
   * in most runs (a test server, a scaffold): making all of them at start took 3.5 s.
   */
  stages: () => Stages;
  handler: AnyHandler | undefined;
  requestSchema: Json | null;
}

/** The regex of a path template, one capture group per parameter. */
export function templateRegex(path: string): RegExp {
  const re = path.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`)).replace(/\{[^}]+\}/g, '([^/]+)');
  return new RegExp(`^${re}$`);
}

/** `doc` with only the path item of `entry`, holding only its method. */
function documentOf(doc: Json, entry: OperationEntry): Json {
  const item = (doc.paths as Record<string, Json>)[entry.path]!;
  const method = entry.method.toLowerCase();
  const only: Json = {};
  for (const [k, v] of Object.entries(item))
    if (k === method || !['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(k)) only[k] = v;
  return { ...doc, paths: { [entry.path]: only } };
}

/**
 * express-openapi-validator's middlewares for one operation, split in two: what runs once the
 * caller is known (its route metadata, and the response hook, so that every answer after it is
 * checked, refusals included) and its request check, run once the body is read. A refusal of
 * `authenticate` is answered before the hook is installed (a request another router takes over
 * must not carry this operation's check). Amounts (ADR-021): the `mad` format refuses a number
 * with more than two decimals (400 VALIDATION_ERROR, or the member's `x-error-code`).
 * @rule ADR-021
 */
function validatorStages(doc: Json, validateResponses: boolean): Stages {
  const stages = OpenApiValidator.middleware({
    apiSpec: doc as never,
    validateApiSpec: false,
    // every failing member, not the first: x-error-precedence picks the code (ADR-057)
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
    validateResponses: validateResponses ? { removeAdditional: false, coerceTypes: false } : false,
    validateSecurity: false,
    fileUploader: false,
    formats: { mad: { type: 'number', validate: (x: number) => isMad(x) } },
  }) as unknown as Middleware[];
  const check = stages.filter((s) => s.name === 'requestMiddleware');
  if (check.length !== 1) throw new Error('express-openapi-validator: middleware() returned no request check (requestMiddleware)');
  // Left out, each a wait on the document's promise per request for nothing here: the security
  // stage (validateSecurity is off: it only calls next) and the path-parameter stage (it installs
  // `app.param` handlers on the app for express routes; this router matches by its own regex).
  // A stage not found by these names is kept.
  const prepare = stages.filter((s) => s !== check[0] && !UNUSED_STAGES.has(s.name));
  return { prepare, check, all: [...prepare, ...check] };
}

/** express-openapi-validator's stages that do nothing for this router's options (see validatorStages). */
const UNUSED_STAGES = new Set(['securityMiddleware', 'pathParamsMiddleware']);

const isThenable = (x: unknown): x is PromiseLike<unknown> => typeof (x as { then?: unknown } | null)?.then === 'function';

/** `make()` on the first call, its result on every later one. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

/** Percent-decodes the path parameters of `route` in `path`; 400 for an invalid escape. */
function pathParamsOf(route: Route, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  const names = route.entry.pathParams;
  if (names.length === 0) return out;
  const m = route.regex.exec(path);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    try {
      out[name] = decodeURIComponent(m?.[i + 1] ?? '');
    } catch {
      throw new ApiError('VALIDATION_ERROR', `path.${name} is not valid percent-encoding`, [
        { path: `path.${name}`, message: 'is not valid percent-encoding' },
      ]);
    }
  }
  return out;
}

/**
 * The router of variant `variant`'s operations. Mount it at the root (`app.use(router)`): the
 * document's paths are absolute. A request matching no operation goes on to the next route.
 * @rule ADR-022, ADR-024, ADR-050
 */
export function createContractRouter<V extends Variant, Caller>(options: ContractRouterOptions<V, Caller>): express.Router {
  const { variant, authenticate, validateResponses = true } = options;
  endUrlParseDeprecationCheck();
  const handlers = options.handlers as Record<string, AnyHandler | undefined>;
  const bundled = loadBundledDocument(variant);
  const doc = options.document ? options.document(bundled) : bundled;
  const log =
    options.onInternalError ??
    ((err: unknown) => process.stderr.write(`paylater-contract/server: ${(err as Error)?.stack ?? String(err)}\n`));
  const table = Object.values(operationTables[variant]).filter((e) => options.operations?.(e) ?? true);
  for (const id of Object.keys(handlers)) {
    if (!(id in operationTables[variant])) throw new Error(`createContractRouter: ${id} is not an operation of Variant ${variant}`);
  }

  const routes: Route[] = table.map((entry) => ({
    entry,
    regex: templateRegex(entry.path),
    stages: once(() => validatorStages(documentOf(doc, entry), validateResponses)),
    handler: handlers[entry.operationId],
    requestSchema: requestSchemaOf(doc, entry.method, entry.path),
  }));
  const byMethod = new Map<string, Route[]>();
  for (const r of routes) byMethod.set(r.entry.method, [...(byMethod.get(r.entry.method) ?? []), r]);

  /** The methods served at `path` (HEAD with GET), for a 405's `Allow`. */
  const allowedAt = (path: string): string[] => {
    const out = new Set<string>();
    for (const r of routes) {
      if (!r.regex.test(path)) continue;
      out.add(r.entry.method);
      if (r.entry.method === 'GET') out.add('HEAD');
    }
    return [...out].sort();
  };

  const fail = (err: unknown, route: Route | null, req: express.Request, res: express.Response): void => {
    if (res.headersSent) return;
    let mapped: ApiError | null = null;
    try {
      mapped = err instanceof ApiError ? err : (options.mapError?.(err) ?? mapValidatorError(err, doc, route?.requestSchema ?? null));
    } catch (e) {
      err = e;
    }
    if (mapped && mapped.code !== 'INTERNAL_ERROR') {
      sendError(res, mapped);
      return;
    }
    log(err, req);
    sendInternal(res);
  };

  // A response the hook finds broken reaches here, after the chain ended: a 500.
  const late: Late = (err, req, res) => {
    log(err, req as express.Request);
    sendInternal(res);
  };

  const serve = async (route: Route, req: express.Request, res: express.Response, next: express.NextFunction): Promise<void> => {
    const { entry } = route;
    let caller: unknown;
    const head = req.method === 'HEAD';
    // HEAD answers as GET (ADR-024): node leaves the body out of a HEAD request's response.
    if (head) req.method = 'GET';
    try {
      pathParamsOf(route, req.path);
      if (entry.auth) {
        // no wait for an answer `authenticate` had at once
        caller = authenticate(req, entry);
        if (isThenable(caller)) caller = await caller;
      }
      if (caller !== PASS) {
        // The validator's route metadata and response hook: every answer from here on is checked.
        const { prepare, check, all } = route.stages();
        if (!entry.requestBody) {
          // no body to read between them: one run of every stage
          req.body = undefined;
          await runChain(all, req, res, late);
        } else {
          await runChain(prepare, req, res, late);
          req.body = await readJsonBody(req);
          const members = options.memberRules ? options.memberRules(entry, req.body) : [];
          try {
            await runChain(check, req, res, late);
          } catch (err) {
            throw (members.length && mapValidatorError(err, doc, route.requestSchema, members)) || err;
          }
          // no schema failure: the member rules' best-ranked refusal
          if (members.length) throw mapValidatorError({ status: 400, errors: [] }, doc, route.requestSchema, members)!;
        }
      }
    } finally {
      if (head) req.method = 'HEAD';
    }
    if (caller === PASS) {
      next();
      return;
    }
    if (!route.handler || route.handler === notImplemented) {
      sendNotImplemented(res, entry.operationId);
      return;
    }
    const request = { params: req.params, query: req.query, headers: req.headers, body: req.body as unknown };
    const result = (await route.handler(request, { caller, operation: entry, req, res })) as AnyResult;
    res.status(result.status);
    if (result.headers)
      for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, typeof v === 'number' ? String(v) : (v as string));
    if (typeof result.stream === 'function') {
      result.stream(req, res);
      return;
    }
    if (result.body === undefined) res.end();
    else res.json(result.body);
  };

  const router = express.Router();
  router.use((req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const path = req.path;
    let route: Route | null = null;
    const list = byMethod.get(method);
    if (list)
      for (const r of list)
        if (r.regex.test(path)) {
          route = r;
          break;
        }
    if (!route) {
      const allow = req.method === 'OPTIONS' ? [] : allowedAt(path);
      if (allow.length === 0) next();
      else sendError(res, methodNotAllowed(req.method, path, allow));
      return;
    }
    serve(route, req, res, next).catch((err: unknown) => fail(err, route, req, res));
  });
  return router;
}
