/**
 * The types of a contract server, derived from openapi-typescript's `operations` of a variant
 * (generated/v<n>/schema.d.ts): what a handler of an operation receives (path parameters,
 * query, declared headers, body) and the union of every response the operation declares
 * (status, body, headers). generated/v<n>/server.ts names them per operationId; a handler that
 * returns an undeclared status, a body of the wrong shape or a body missing a required member
 * fails `tsc`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** One row of a variant's operation table (generated/v<n>/server.ts `operationTable`). */
export interface OperationEntry {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path template, e.g. `/api/v1/public/partner/transactions/{transactionId}`. */
  readonly path: string;
  /** The path template's parameters, in order. */
  readonly pathParams: readonly string[];
  /** The security scheme and the header carrying its credential; null for an open operation (`security: []`). */
  readonly auth: { readonly scheme: string; readonly header: string } | null;
  /** `application/json` request body: `required`, `optional`, or null when the operation takes none. */
  readonly requestBody: 'required' | 'optional' | null;
  /** `x-sandbox`: served by a sandbox only. */
  readonly sandbox: boolean;
  /** `x-internal`: called by the browser SDK or the hosted page, cross-origin. */
  readonly internal: boolean;
  /** `x-rate-limit`, or null. */
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number } | null;
  /** The first 2xx status. */
  readonly successStatus: number;
}

type ParamsIn<P, K extends string> = P extends { [k in K]?: infer X }
  ? [X] extends [never]
    ? Record<string, never>
    : NonNullable<X>
  : never;

/** A declared request header as express sees it: its name in lower case. */
type LowerKeys<H> = { [K in keyof H as Lowercase<K & string>]: H[K] };

type BodyIn<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

/** What the handler of operation `Op` receives, validated against the document before it is called. */
export interface RequestOf<Op> {
  /** Path parameters, percent-decoded. */
  params: Op extends { parameters: infer P } ? ParamsIn<P, 'path'> : Record<string, never>;
  /** Query parameters (only declared ones reach a handler: others are refused, ADR-022). */
  query: Op extends { parameters: infer P } ? ParamsIn<P, 'query'> : Record<string, never>;
  /** Declared header parameters, by lower-case name. */
  headers: Op extends { parameters: infer P } ? LowerKeys<ParamsIn<P, 'header'>> : Record<string, never>;
  /** The JSON body, parsed and validated. */
  body: BodyIn<Op>;
}

/** A response's headers: required when the document requires some, optional otherwise. */
type HeadersMember<R> = R extends { headers: infer H }
  ? // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    {} extends H
    ? { headers?: H }
    : { headers: H }
  : { headers?: Record<string, string | number> };

/** A streamed answer (e.g. `text/event-stream`): the router hands it the request and the response. */
export interface StreamBody {
  stream(req: IncomingMessage, res: ServerResponse): void;
}

type ResponseAt<S, R> = R extends { content: { 'application/json': infer B } }
  ? { status: S; body: B } & HeadersMember<R>
  : R extends { content: Record<string, unknown> }
    ? { status: S } & StreamBody & HeadersMember<R>
    : { status: S; body?: undefined } & HeadersMember<R>;

/** The union of every response operation `Op` declares: `{ status, body, headers }`, discriminated by `status`. */
export type ResponseOf<Op> = Op extends { responses: infer Rs }
  ? { [S in keyof Rs & number]: ResponseAt<S, Rs[S]> }[keyof Rs & number]
  : never;

/** What the router hands a handler beside the request: the caller `authenticate` returned, and the raw exchange. */
export interface HandlerContext<Caller = unknown> {
  caller: Caller;
  operation: OperationEntry;
  req: IncomingMessage;
  res: ServerResponse;
}

/** The handler of operation `Op`. */
export type OperationHandler<Op, Caller = unknown> = (
  request: RequestOf<Op>,
  context: HandlerContext<Caller>,
) => ResponseOf<Op> | Promise<ResponseOf<Op>>;
