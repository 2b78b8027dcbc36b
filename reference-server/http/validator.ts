/**
 * express-openapi-validator, bound per operation.
 *
 * The library's public `middleware()` returns five stages that each wait on the document's
 * load promise (a microtask hop per stage, per request) and find the operation of each
 * request again by walking every route of the document with `path-to-regexp`. The server
 * has already matched the operation, by operationId, against the same bundled document, so
 * here the library is assembled as `installMiddleware` assembles it — its own spec loader
 * (with `validateApiSpec`), schema preprocessor, route context, `RequestValidator` and
 * `ResponseValidator` with the same normalised options — and each operation is given its
 * route record once, at start-up, instead of per request:
 *
 *   operation step  → `req.openapi` = the library's route record of this operation + path params
 *   request step    → the library's request validation (headers, path, query, body)
 *   checkResponse   → the library's response validation, called on each body before it is sent
 *
 * The library delivers response validation as a hook that replaces `res.json` on every
 * request (express-mung); `checkResponse` is that hook's validation function, taken from the
 * library when it builds the hook, and called directly where the server sends JSON (success
 * and error bodies alike). The hook — a closure and an own `json` property on every response
 * object — costs more than the validation it runs (measured with the CPU profiler on B2
 * requests: ~110 µs of server CPU per request with the hook, ~104 µs without it, of which
 * the library's `_validate` with ajv takes ~1.5 µs); figure 1 of `npm run bench` measures
 * the request path as it is.
 *
 * Nothing is validated by hand and nothing is skipped: the same ajv validators the public
 * middleware would build check every request and every response. Left out are the stages
 * that do nothing here: `app.param` path-param coercion (the API routes are not express
 * routes), security (authentication is the server's own, `validateSecurity: false`) and
 * multer (no operation takes multipart: checked, see `declaresMultipart`).
 *
 * This reaches into the library's `dist/` (5.6.2, pinned in package.json); a change of its
 * internals fails `createOperationValidator` at start-up, not at request time.
 */
import { createRequire } from 'node:module';
import type express from 'express';
import { ApiError } from './errors.ts';
import type { OperationInfo } from './operations.ts';

type Json = Record<string, unknown>;
export type Middleware = (req: express.Request, res: express.Response, next: (err?: unknown) => void) => unknown;

/** The options of `OpenApiValidator.middleware()` that this server uses. */
export interface ValidatorOptions {
  validateRequests: { allowUnknownQueryParameters: boolean; coerceTypes: boolean };
  validateResponses: true;
  formats: Record<string, { type: 'number' | 'string'; validate: (x: never) => boolean }>;
}

interface RouteRecord {
  basePath: string;
  expressRoute: string;
  openApiRoute: string;
  method: string;
}

interface LoadedSpec {
  apiDoc: { paths: Record<string, Record<string, Json>> };
  routes: RouteRecord[];
  serial: number;
}

/** The library's response validation: returns the body, throws its InternalServerError for a body the document does not allow. */
type ResponseCheck = (body: unknown, req: express.Request, res: express.Response) => unknown;

interface Library {
  mung: { json: (fn: ResponseCheck, options?: unknown) => Middleware };
  OpenApiValidator: new (options: Json) => {
    options: Json & {
      $refParser: unknown;
      validateResponses: unknown;
      ignorePaths?: unknown;
      ignoreUndocumented?: boolean;
      useRequestUrl?: boolean;
    };
    ajvOpts: { preprocessor: unknown };
    requestValidationMiddleware(apiDoc: unknown): Middleware;
    responseValidationMiddleware(apiDoc: unknown, serial: number): Middleware;
  };
  OpenApiSpecLoader: new (opts: { apiDoc: unknown; validateApiSpec: boolean; $refParser: unknown }) => { load(): Promise<LoadedSpec> };
  OpenApiContext: new (
    spec: LoadedSpec,
    ignorePaths: unknown,
    ignoreUndocumented?: boolean,
    useRequestUrl?: boolean,
  ) => { apiDoc: LoadedSpec['apiDoc']; routes: RouteRecord[]; serial: number };
  SchemaPreprocessor: new (
    apiDoc: unknown,
    ajvOptions: unknown,
    responseOpts: unknown,
  ) => { preProcess(): { apiDocRes: LoadedSpec['apiDoc'] | null } };
}

function loadLibrary(): Library {
  const req = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const lib: Library = {
    OpenApiValidator: (req('./openapi.validator.js') as Json).OpenApiValidator as Library['OpenApiValidator'],
    OpenApiSpecLoader: (req('./framework/openapi.spec.loader.js') as Json).OpenApiSpecLoader as Library['OpenApiSpecLoader'],
    OpenApiContext: (req('./framework/openapi.context.js') as Json).OpenApiContext as Library['OpenApiContext'],
    SchemaPreprocessor: (req('./middlewares/parsers/schema.preprocessor.js') as Json).SchemaPreprocessor as Library['SchemaPreprocessor'],
    mung: (req('./framework/modded.express.mung.js') as Json).default as Library['mung'],
  };
  for (const [name, value] of Object.entries(lib)) {
    if (typeof value !== 'function' && (name !== 'mung' || typeof (value as Library['mung'])?.json !== 'function'))
      throw new Error(
        `express-openapi-validator: internal ${name} not found (the library changed; see reference-server/http/validator.ts)`,
      );
  }
  return lib;
}

export interface OperationValidator {
  /** The validation steps of `op`, to run before its handler. */
  steps(op: OperationInfo): Middleware[];
  /**
   * Validates a JSON body about to be sent with `res.statusCode` against the responses of the
   * request's operation (when the operation step has run; 5xx bodies are not checked, as with
   * the library's hook). Returns the body to send; throws the library's InternalServerError.
   */
  checkResponse(req: express.Request, res: express.Response, body: unknown): unknown;
}

/** express-openapi-validator bound to each operation: request and response validation. */
export async function createOperationValidator(doc: Json, ops: OperationInfo[], options: ValidatorOptions): Promise<OperationValidator> {
  const lib = loadLibrary();
  // The constructor normalises the options exactly as `middleware()` does (ajv options, formats, defaults).
  const oav = new lib.OpenApiValidator({
    apiSpec: doc,
    validateApiSpec: true,
    validateSecurity: false,
    ignoreUndocumented: false,
    fileUploader: false,
    ...options,
  });
  const spec = await new lib.OpenApiSpecLoader({
    apiDoc: structuredClone(doc),
    validateApiSpec: true,
    $refParser: oav.options.$refParser,
  }).load();
  const preprocessed = new lib.SchemaPreprocessor(spec.apiDoc, oav.ajvOpts.preprocessor, oav.options.validateResponses).preProcess();
  const context = new lib.OpenApiContext(spec, oav.options.ignorePaths, oav.options.ignoreUndocumented, oav.options.useRequestUrl);
  const responseDoc = preprocessed.apiDocRes;
  if (!responseDoc) throw new Error('express-openapi-validator: no response document (validateResponses is off?)');
  const requestStep = oav.requestValidationMiddleware(context.apiDoc);
  // The response hook's validation function, as the library hands it to express-mung.
  let check: ResponseCheck | undefined;
  const mungJson = lib.mung.json;
  lib.mung.json = (fn, options) => {
    check = fn;
    return mungJson.call(lib.mung, fn, options);
  };
  try {
    oav.responseValidationMiddleware(responseDoc, context.serial);
  } finally {
    lib.mung.json = mungJson;
  }
  if (!check)
    throw new Error(
      'express-openapi-validator: its response validation was not built through express-mung (the library changed; see reference-server/http/validator.ts)',
    );
  const responseCheck = check;

  const stepsByOp = new Map<OperationInfo, Middleware[]>();
  for (const op of ops) {
    // The library keys a route by its base path (from `servers`) + the document's path.
    const route = context.routes.find((r) => r.method === op.method && r.openApiRoute === `${r.basePath.replace(/\/$/, '')}${op.path}`);
    if (!route) throw new Error(`express-openapi-validator has no route for ${op.operationId} (${op.method} ${op.path})`);
    const schema = context.apiDoc.paths[op.path]?.[op.method.toLowerCase()];
    const responseSchema = responseDoc.paths[op.path]?.[op.method.toLowerCase()];
    if (!schema || schema.operationId !== op.operationId || !responseSchema) {
      throw new Error(`express-openapi-validator's route ${op.method} ${route.openApiRoute} is not ${op.operationId}`);
    }
    const { expressRoute, openApiRoute } = route;
    const serial = context.serial;
    const operationStep: Middleware = (req, _res, next) => {
      const pathParams = pathParamsOf(op, req.path);
      // The record the library's own lookup would build (openapi.metadata.js), one literal per request.
      (req as unknown as { openapi: unknown }).openapi = {
        expressRoute,
        openApiRoute,
        pathParams,
        schema,
        serial,
        _responseSchema: responseSchema,
      };
      req.params = pathParams;
      next();
    };
    stepsByOp.set(op, [operationStep, requestStep]);
  }
  return {
    steps(op) {
      const s = stepsByOp.get(op);
      if (!s) throw new Error(`no validation steps for ${op.operationId}`);
      return s;
    },
    checkResponse(req, res, body) {
      if (res.statusCode >= 500) return body;
      return responseCheck(body, req, res) ?? body;
    },
  };
}

/** The path parameters of `op` in `path`, percent-decoded; 400 for an invalid escape. */
export function pathParamsOf(op: OperationInfo, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (op.paramNames.length === 0) return out;
  const m = op.regex.exec(path);
  for (let i = 0; i < op.paramNames.length; i++) {
    const name = op.paramNames[i]!;
    const raw = m?.[i + 1];
    if (raw === undefined) continue;
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      throw new ApiError('VALIDATION_ERROR', `path.${name} is not valid percent-encoding`, [
        { path: `path.${name}`, message: 'is not valid percent-encoding' },
      ]);
    }
  }
  return out;
}
