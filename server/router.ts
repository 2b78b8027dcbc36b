/**
 * The contract router (ADR-050): serves a variant's operations, bound to handlers by
 * operationId, over the route table (server/routes.ts) and the compiled checks
 * (server/validate.ts), both made once per variant.
 *
 * Per request: match the operation by method and path once (HEAD as GET; a path some operation
 * serves, called with another method, answers 405 with `Allow`, ADR-024; any other request goes
 * on to the next route), authenticate with the operation's security scheme header, read the JSON
 * body (`x-max-body-bytes`, `application/json` only, a member named twice refused: ADR-023),
 * check the request (an undeclared query parameter refused, ADR-022), run the handler, check its
 * response (on by default; a mismatch answers 500) and send it. Nothing waits where nothing is
 * asynchronous: a request whose authentication, body and handler answer at once is served in
 * one call. Every refusal is answered in the contract's error shape (ADR-001) with its code and
 * status (ADR-002); an operation without a handler answers 501.
 *
 * A server of both variants (`createVariantsRouter`) matches once, asks `variantOf` the
 * caller's variant (pinned per API key), then runs that variant's checks and handler.
 */
import type express from 'express';
import type { Variant } from '../generated/index.ts';
import type { Handlers as HandlersV1 } from '../generated/v1/server.ts';
import type { Handlers as HandlersV2 } from '../generated/v2/server.ts';
import { readJsonBody } from './body.ts';
import { ApiError, methodNotAllowed, refusalOf, sendError, sendInternal, sendNotImplemented, type Refusal } from './errors.ts';
import { matchRequest, operationTables, routeTable, type RouteMatch } from './routes.ts';
import type { HandlerContext, OperationEntry, StreamBody } from './types.ts';
import { compiledContract, requestFailures, responseFailure, type CompiledContract, type CompiledOperation } from './validate.ts';

export { operationTables } from './routes.ts';

type Json = Record<string, unknown>;

/** The handlers of a variant's operations (generated/v<n>/server.ts `Handlers`). */
export interface HandlersOf<Caller> {
  1: HandlersV1<Caller>;
  2: HandlersV2<Caller>;
}

/** What both router factories share. */
interface CommonOptions<Caller> {
  /**
   * Called for every operation with a security scheme, before the body is read: returns the
   * caller (handed to the handler as `context.caller`) or throws an `ApiError` (e.g.
   * `INVALID_API_KEY`). `operation.auth.header` names the header to read. Returning `PASS`
   * hands the request on to the next route.
   */
  authenticate: (req: express.Request, operation: OperationEntry) => Caller | typeof PASS | Promise<Caller | typeof PASS>;
  /** Validate every JSON response against the document before it is sent (a mismatch answers 500). Default true. */
  validateResponses?: boolean;
  /** Which operations this router serves (default: all); the others are unknown to it (404, no `Allow`). */
  operations?: (operation: OperationEntry) => boolean;
  /** The document the requests are validated against, derived from the variant's bundled one (default: as bundled); compiled once per function. */
  document?: (doc: Json) => Json;
  /** Maps an error the router does not know to a declared answer (null: a 500). */
  mapError?: (err: unknown) => ApiError | null;
  /**
   * The refusals of body member rules the schema cannot state (e.g. `x-amount-range` on a
   * decimal string), run with schema validation on the parsed body (of an operation that takes one): with the schema's failures,
   * `x-error-precedence` (ADR-057) picks the one code answered (`refusalOf`).
   */
  memberRules?: (operation: OperationEntry, body: unknown, variant: Variant) => Refusal[];
  /** Told of every 500 (default: written to stderr). */
  onInternalError?: (err: unknown, req: express.Request) => void;
}

export interface ContractRouterOptions<V extends Variant, Caller> extends CommonOptions<Caller> {
  variant: V;
  /** A handler per operationId; an operation without one answers 501 (ADR-050). */
  handlers: Partial<HandlersOf<Caller>[V]>;
}

export interface VariantsRouterOptions<Caller> extends CommonOptions<Caller> {
  /** Per variant served, a handler per operationId; an open operation (no security scheme) runs in the first variant listed. */
  handlers: { [V in Variant]?: Partial<HandlersOf<Caller>[V]> };
  /** The variant of a caller `authenticate` returned (a variant is pinned per API key). */
  variantOf: (caller: Caller) => Variant;
}

/** What `authenticate` returns to hand the request on to the next route. */
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

/** A response the compiled check refused: told to `onInternalError`, answered 500. */
export class ResponseContractError extends Error {
  constructor(
    message: string,
    readonly errors: readonly { path: string; message: string }[],
  ) {
    super(message);
    this.name = 'ResponseContractError';
  }
}

/** One operation of one variant as the router runs it. */
class Served {
  #op: CompiledOperation | undefined;
  constructor(
    readonly entry: OperationEntry,
    readonly contract: CompiledContract,
    readonly handler: AnyHandler | undefined,
  ) {}
  /** Its compiled checks (compiled at the first request if the router's warm-up has not reached it yet), kept. */
  get op(): CompiledOperation {
    return (this.#op ??= this.contract.operation(this.entry.operationId)!);
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

const isThenable = (x: unknown): x is PromiseLike<unknown> => typeof (x as { then?: unknown } | null)?.then === 'function';

/** The operations a variant serves, compiled, with their handlers. */
function servedOf(
  variant: Variant,
  handlers: Record<string, AnyHandler | undefined>,
  options: CommonOptions<unknown>,
): Map<string, Served> {
  for (const id of Object.keys(handlers)) {
    if (!(id in operationTables[variant])) throw new Error(`createContractRouter: ${id} is not an operation of Variant ${variant}`);
  }
  const contract = compiledContract(variant, options.document);
  const out = new Map<string, Served>();
  for (const entry of Object.values(operationTables[variant])) {
    if (options.operations && !options.operations(entry)) continue;
    out.set(entry.operationId, new Served(entry, contract, handlers[entry.operationId]));
  }
  return out;
}

/**
 * The router of variant `variant`'s operations. Mount it at the root (`app.use(router)`): the
 * document's paths are absolute. A request matching no operation goes on to the next route.
 * (The rules it applies are createVariantsRouter's.)
 */
export function createContractRouter<V extends Variant, Caller>(options: ContractRouterOptions<V, Caller>): express.RequestHandler {
  const { variant, handlers, ...common } = options;
  return createVariantsRouter<Caller>({
    ...common,
    handlers: { [variant]: handlers },
    variantOf: () => variant,
  });
}

/**
 * One router for the operations of several variants (a server whose merchants are pinned to
 * either): a request is matched once, authenticated, then served by its caller's variant.
 * @rule ADR-024, ADR-050
 */
export function createVariantsRouter<Caller>(options: VariantsRouterOptions<Caller>): express.RequestHandler {
  const { authenticate, validateResponses = true, variantOf, mapError, memberRules } = options;
  const common = options as CommonOptions<unknown>;
  const order = (Object.keys(options.handlers).map(Number) as Variant[]).filter((v) => options.handlers[v]);
  if (order.length === 0) throw new Error('createVariantsRouter: no variant to serve');
  const first = order[0]!;
  const byVariant = new Map<Variant, Map<string, Served>>(
    order.map((v) => [v, servedOf(v, options.handlers[v] as Record<string, AnyHandler | undefined>, common)]),
  );
  // every check compiled once the caller's code has run on (e.g. the server listens), not in its start
  setTimeout(() => {
    for (const v of order) byVariant.get(v)!.values().next().value?.contract.compileAll();
  }, 0).unref();
  const servedIds = new Set(order.flatMap((v) => [...byVariant.get(v)!.keys()]));
  const servedAnywhere = (e: OperationEntry) => servedIds.has(e.operationId);
  const log =
    options.onInternalError ??
    ((err: unknown) => process.stderr.write(`paylater-contract/server: ${(err as Error)?.stack ?? String(err)}\n`));

  const internal = (err: unknown, req: express.Request, res: express.Response): void => {
    log(err, req);
    sendInternal(res);
  };

  /** True when `status` and `body` may be sent for `served` (checked when responses are checked); a broken one is answered 500. */
  const checked = (served: Served | null, req: express.Request, res: express.Response, status: number, body: unknown): boolean => {
    if (validateResponses && served) {
      const failure = responseFailure(served.op, status, body);
      if (failure) {
        internal(
          new ResponseContractError(`${served.op.entry.operationId} answered ${status}: ${failure.message}`, failure.errors),
          req,
          res,
        );
        return false;
      }
    }
    return true;
  };

  /** Answers an error: a declared refusal (checked, after authentication, against the operation's responses) or a logged 500. */
  const fail = (err: unknown, served: Served | null, req: express.Request, res: express.Response): void => {
    if (res.headersSent) return;
    let mapped: ApiError | null = null;
    try {
      mapped = err instanceof ApiError ? err : (mapError?.(err) ?? null);
    } catch (e) {
      err = e;
    }
    if (!mapped || mapped.code === 'INTERNAL_ERROR') {
      internal(err, req, res);
      return;
    }
    if (checked(served, req, res, mapped.status, mapped.body())) sendError(res, mapped);
  };

  const answer = (served: Served, req: express.Request, res: express.Response, result: AnyResult): void => {
    if (typeof result.stream === 'function') {
      res.statusCode = result.status;
      if (result.headers) setHeaders(res, result.headers);
      result.stream(req, res);
      return;
    }
    if (!checked(served, req, res, result.status, result.body)) return;
    res.statusCode = result.status;
    if (result.headers) setHeaders(res, result.headers);
    if (result.body === undefined) {
      res.end();
      return;
    }
    const json = JSON.stringify(result.body);
    // the header list handed to writeHead: no setHeader bookkeeping when no other header was set;
    // its Content-Length keeps the answer one write (without it, headers written first mean a chunked body)
    if (res.hasHeader('content-type')) res.end(json);
    else res.writeHead(result.status, ['Content-Type', JSON_TYPE, 'Content-Length', String(Buffer.byteLength(json))]).end(json);
  };

  /** The request checked, then the handler: `body` read (or undefined for an operation without one). */
  const run = (
    served: Served,
    caller: unknown,
    params: Record<string, string>,
    body: unknown,
    req: express.Request,
    res: express.Response,
  ) => {
    const { op } = served;
    const members = memberRules && op.entry.requestBody ? memberRules(op.entry, body, served.contract.variant) : [];
    // (express parses `req.query` at each read: a request target without a query has none to parse)
    const query = req.url.includes('?') ? { ...(req.query as Record<string, unknown>) } : {};
    const request = { params, query, headers: req.headers, body };
    const failures = requestFailures(op, request);
    if (failures.length > 0 || members.length > 0) throw ApiError.of(refusalOf(failures, served.contract.doc, op.requestSchema, members));
    if (!served.handler || served.handler === notImplemented) {
      sendNotImplemented(res, op.entry.operationId);
      return;
    }
    const result = served.handler(request, { caller, operation: op.entry, req, res });
    if (isThenable(result))
      (result as Promise<AnyResult>).then(
        (r) => answer(served, req, res, r),
        (e: unknown) => fail(e, served, req, res),
      );
    else answer(served, req, res, result as AnyResult);
  };

  /** After authentication: the caller's variant's operation, its body, then `run`. */
  const admitted = (match: RouteMatch, caller: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (caller === PASS) {
      next();
      return;
    }
    const variant = match.entry.auth ? variantOf(caller as Caller) : first;
    const served = byVariant.get(variant)?.get(match.entry.operationId);
    // the caller's variant has no such operation: unknown to this router, as to a router of that variant
    if (!served) {
      next();
      return;
    }
    try {
      if (!served.op.entry.requestBody) {
        run(served, caller, match.params, undefined, req, res);
        return;
      }
      readJsonBody(req).then(
        (body) => {
          try {
            run(served, caller, match.params, body, req, res);
          } catch (e) {
            fail(e, served, req, res);
          }
        },
        (e: unknown) => fail(e, served, req, res),
      );
    } catch (e) {
      fail(e, served, req, res);
    }
  };

  return (req, res, next) => {
    const path = req.path;
    const match = matchRequest(req, path, first, servedAnywhere);
    if (!match) {
      const allow = req.method === 'OPTIONS' ? [] : routeTable(first).allowedAt(path, servedAnywhere);
      if (allow.length === 0) next();
      else sendError(res, methodNotAllowed(req.method, path, allow));
      return;
    }
    if (match.malformed !== null) {
      const name = match.malformed;
      sendError(
        res,
        new ApiError('VALIDATION_ERROR', `path.${name} is not valid percent-encoding`, [
          { path: `path.${name}`, message: 'is not valid percent-encoding' },
        ]),
      );
      return;
    }
    if (!match.entry.auth) {
      admitted(match, undefined, req, res, next);
      return;
    }
    let caller: unknown;
    try {
      caller = authenticate(req, match.entry);
    } catch (e) {
      fail(e, null, req, res);
      return;
    }
    if (isThenable(caller))
      caller.then(
        (c) => admitted(match, c, req, res, next),
        (e: unknown) => fail(e, null, req, res),
      );
    else admitted(match, caller, req, res, next);
  };
}

function setHeaders(res: express.Response, headers: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, typeof v === 'number' ? String(v) : (v as string));
}
