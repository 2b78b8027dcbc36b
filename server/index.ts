/**
 * `paylater-contract/server`: the contract's server surface.
 *
 *   import express from 'express';
 *   import { createContractRouter, routeNotFound, type HandlersOf } from 'paylater-contract/server';
 *
 *   const handlers: Partial<HandlersOf<Merchant>[1]> = {
 *     getPartnerTransaction: async ({ params }, { caller }) => ({ status: 200, body: await find(caller, params.transactionId) }),
 *   };
 *   const app = express();
 *   app.use(createContractRouter({ variant: 1, handlers, authenticate: (req, op) => merchantOf(req.get(op.auth!.header)) }));
 *   app.use(routeNotFound);
 *
 * Handlers are typed per operationId from the contract (generated/v<n>/server.ts): a declared
 * status, a body of the declared shape. An operation without a handler answers 501 (ADR-050).
 *
 * Without express: `routeTable(variant).match(method, path)`, `validateRequest` and
 * `validateResponse` are plain functions over the same compiled contract (docs/implementers.md).
 */
export {
  createContractRouter,
  createVariantsRouter,
  notImplemented,
  PASS,
  ResponseContractError,
  type ContractRouterOptions,
  type HandlersOf,
  type VariantsRouterOptions,
} from './router.ts';
export { matchRequest, operationTables, routeTable, type RouteMatch, type RouteTable } from './routes.ts';
export {
  compiledContract,
  validateRequest,
  validateResponse,
  type CompiledContract,
  type RequestParts,
  type ResponseFailure,
} from './validate.ts';
export {
  ApiError,
  NOT_IMPLEMENTED,
  routeNotFound,
  sendError,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
  type Refusal,
} from './errors.ts';
export type { HandlerContext, OperationEntry, OperationHandler, RequestOf, ResponseOf, StreamBody } from './types.ts';
export type * as V1 from '../generated/v1/server.ts';
export type * as V2 from '../generated/v2/server.ts';
