/**
 * What a handler receives and returns, typed by the contract: the request and the responses of
 * an operation are the generated ones (`HandlersOf<…>` of paylater-contract/server, from
 * generated/v<n>/server.ts), so a handler that reads an undeclared member, returns an undeclared
 * status or a body of the wrong shape fails `tsc`, as a scaffolded server's does
 * (reference-server/type-tests.test.ts proves it on the handlers themselves).
 */
import type { Variant } from '../../generated/index.ts';
import type { HandlersOf } from '../../server/index.ts';
import type { MerchantConfig } from '../config.ts';
import type { Core } from '../core.ts';
import type { SessionRecord } from '../domain/types.ts';
import type { OperationInfo } from '../http/operations.ts';

/** The request as the router hands it over: the matched operation, the caller, the validated input. */
export interface Ctx {
  op: OperationInfo;
  /** The bundled document of the caller's variant. */
  doc: Record<string, unknown>;
  variant: Variant;
  merchant: MerchantConfig;
  /** The session of a session-token operation, null for API-key operations. */
  session: SessionRecord | null;
  params: Record<string, string>;
  /** The validated query parameters (declared ones only: others are refused, ADR-022). */
  query: Record<string, unknown>;
  body: unknown;
  /** The server's public base URL, for absolute links. */
  baseUrl: string;
}

/** The caller's part of the context, what shared helpers read (common.ts). */
export type CallerCtx = Omit<Ctx, 'params' | 'query' | 'body'>;

type Api = HandlersOf<Ctx>;
type Declared<Id, V extends Variant> = Id extends keyof Api[V] ? Api[V][Id] : never;
/** Every operation of either variant. */
export type OperationId = keyof Api[1] | keyof Api[2];

/**
 * The request of `Id` in each variant that declares it. A handler serves both variants, so it
 * reads what either declares (e.g. A1's `total`, a number in Variant 1 and a decimal string in
 * Variant 2).
 */
type RequestOf<Id> = Parameters<Declared<Id, 1>>[0] | Parameters<Declared<Id, 2>>[0];

/**
 * A response the contract declares for `Id` in a variant that declares it. Headers the document
 * requires (A1's `RateLimit-*`) are optional here: the reference server's rate limiter
 * (http/rate-limit.ts) sets them on the response before the handler runs.
 */
type ResponseOf<Id> = HeadersSetElsewhere<Awaited<ReturnType<Declared<Id, 1>>> | Awaited<ReturnType<Declared<Id, 2>>>>;
type HeadersSetElsewhere<R> = R extends { headers: infer H } ? Omit<R, 'headers'> & { headers?: H } : R;

/** What the handler of operation `Id` receives: the caller's context with the operation's own request. */
export type OperationCtx<Id extends OperationId> = CallerCtx & Pick<RequestOf<Id>, 'params' | 'query' | 'body'>;

/** The handler of operation `Id`: answers one of the responses the contract declares for it (refusals are thrown `ApiError`s). */
export type Handler<Id extends OperationId> = (core: Core, ctx: OperationCtx<Id>) => Promise<ResponseOf<Id>>;

/** Handlers of some operations, each typed by its operationId. */
export type Handlers<Id extends OperationId> = { [K in Id]: Handler<K> };

/** Any handler, as the router calls it (its context's input validated against the same document by the contract router). */
export type AnyHandler = (core: Core, ctx: Ctx) => Promise<Result>;

/** Any response a handler gives, as the router reads it. */
export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, unknown>;
  stream?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
}
