/**
 * The contract's validators, compiled once per variant: for every operation, its
 * request (path parameters, query with undeclared parameters refused (ADR-022), the headers it
 * declares, the JSON body) and every response it declares (status × `application/json`), with
 * one `Ajv2020` instance per variant over the bundled document generated/v<n>/openapi.yaml.
 *
 * Plain functions, no express: `validateRequest` answers the declared refusal as a value (an
 * `ApiError`, ADR-001/002/057) or null; `validateResponse` a failure or null. The contract router
 * runs the same compiled checks (server/router.ts).
 *
 * Compiled in the process rather than emitted as standalone code in generated/: a variant
 * compiles in about 0.35 s of CPU (each schema once, shared by the operations naming it), each
 * operation at its first use and all of them just after a router is made (`compileAll`, after
 * the server listens: the reference server is ready to listen in about 0.1 s of CPU); a server
 * that derives its document (`document` of `createContractRouter`) gets its compilation from the
 * same function.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadBundledDocument, type Variant } from '../generated/index.ts';
import { valueAt } from '../lib/json-pointer.ts';
import { isMad } from '../lib/money.ts';
import { ApiError, refusalOf, type Refusal, type RequestFailure } from './errors.ts';
import { operationTables } from './routes.ts';
import { requestSchemaOf, resolveRef } from './schema.ts';
import type { OperationEntry } from './types.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options: { mode: 'fast' | 'full' }) => Ajv2020;

type Json = Record<string, unknown>;

/** A request as the validators see it: path parameters (decoded), query, headers (lower-case names), parsed body. */
export interface RequestParts {
  params?: Record<string, string>;
  /** Values as a query parser gives them: a string, or an array for a name repeated. Declared numbers/booleans are converted in place. */
  query?: Record<string, unknown>;
  headers?: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/** A response that breaks the contract: what the router logs before answering 500. */
export interface ResponseFailure {
  operationId: string;
  status: number;
  message: string;
  errors: RequestFailure[];
}

/** The compiled checks of one location of a request (query, headers or path parameters). */
interface Location {
  /** `query`, `headers` or `params`: the first segment of a failure's path. */
  where: 'query' | 'headers' | 'params';
  validate: ValidateFunction;
  /** The declared names (query: for ADR-022's refusal of any other). */
  names: ReadonlySet<string>;
  /** The declared query parameters of type integer, number or boolean: converted from their text. */
  coerce: ReadonlyMap<string, 'integer' | 'number' | 'boolean'>;
  /** True when nothing there is required: an empty location passes without running `validate`. */
  emptyPasses: boolean;
}

/** One operation's compiled checks. */
export interface CompiledOperation {
  readonly entry: OperationEntry;
  readonly locations: readonly Location[];
  readonly body: ValidateFunction | null;
  /** The request body schema (for `x-error-code` of a failing member), or null. */
  readonly requestSchema: Json | null;
  /** Per declared status (or `2XX`, `default`): the JSON body check, null for a response without content, 'other' for a non-JSON content. */
  readonly responses: ReadonlyMap<string, ValidateFunction | null | 'other'>;
  /** The check of a status as answered (`responses`' exact status, else its class, else `default`), looked up once per status. */
  readonly byStatus: Map<number, ValidateFunction | null | 'other' | undefined>;
}

/** A variant's compiled contract: the document it was compiled from and every operation's checks. */
export interface CompiledContract {
  readonly variant: Variant;
  readonly doc: Json;
  /** The checks of `operationId`, compiled at its first call and kept (undefined: not an operation of the variant). */
  operation(operationId: string): CompiledOperation | undefined;
  /** Compiles every operation not compiled yet (a server calls it once it listens: no request waits for a compilation then). */
  compileAll(): void;
}

const BASE = 'paylater-contract:openapi';

/**
 * The contract's formats: ajv-formats' (`fast`, as the test oracle registers them), OpenAPI's `int64` and `mad` (ADR-021).
 * @rule ADR-021
 */
export function contractAjv(): Ajv2020 {
  // options as the validator these checks replaced (now the test oracle: server/test-support/eov-oracle.ts, differential.test.ts)
  // inlineRefs off: a component used by many operations (the error body) is compiled once and shared
  const ajv = new Ajv2020({
    strict: false,
    strictNumbers: true,
    strictTuples: true,
    allErrors: true,
    validateSchema: false,
    inlineRefs: false,
  });
  addFormats(ajv, { mode: 'fast' });
  ajv.addFormat('int64', { type: 'number', validate: (i: number) => Number.isInteger(i) && i <= 2 ** 63 - 1 && i >= -(2 ** 63) });
  ajv.addFormat('mad', { type: 'number', validate: (x: number) => isMad(x) });
  return ajv;
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer of `node` (a `$ref` followed to its target) at `pointer` of `doc`. */
function located(doc: Json, pointer: string): string {
  let p = pointer;
  for (let i = 0; i < 32; i++) {
    const ref = (valueAt(doc, p) as Json | undefined)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return p;
    p = ref;
  }
  throw new Error(`validate: $ref loop at ${pointer}`);
}

const ref = (pointer: string) => ({ $ref: `${BASE}${pointer}` });

/** The check of the schema at `pointer` (or of `schema`, keyed by its text), compiled at its first use and shared (many responses name one schema). */
type Checks = (key: string, schema?: Json) => ValidateFunction;

function compileOperation(check: Checks, doc: Json, entry: OperationEntry): CompiledOperation {
  const opPtr = `#/paths/${esc(entry.path)}/${entry.method.toLowerCase()}`;
  const item = (doc.paths as Json)[entry.path] as Json;
  const op = item[entry.method.toLowerCase()] as Json;
  // path-level parameters first, an operation's own of the same name and place replacing them
  const declared = new Map<string, { where: Location['where']; name: string; required: boolean; schemaPtr: string; type: unknown }>();
  for (const [list, base] of [
    [item.parameters, `#/paths/${esc(entry.path)}/parameters`],
    [op.parameters, `${opPtr}/parameters`],
  ] as const) {
    ((list ?? []) as unknown[]).forEach((_, i) => {
      const ptr = located(doc, `${base}/${i}`);
      const p = resolveRef(doc, { $ref: ptr }) as Json;
      const where = p.in === 'query' ? 'query' : p.in === 'header' ? 'headers' : p.in === 'path' ? 'params' : null;
      if (!where) throw new Error(`validate: ${entry.operationId} declares a ${String(p.in)} parameter`);
      const name = where === 'headers' ? String(p.name).toLowerCase() : String(p.name);
      declared.set(`${where} ${name}`, {
        where,
        name,
        required: p.required === true,
        schemaPtr: located(doc, `${ptr}/schema`),
        type: resolveRef(doc, p.schema)?.type,
      });
    });
  }
  const locations: Location[] = [];
  for (const where of ['query', 'headers', 'params'] as const) {
    const ps = [...declared.values()].filter((p) => p.where === where);
    if (ps.length === 0 && where !== 'query') continue;
    const schema = {
      type: 'object',
      properties: Object.fromEntries(ps.map((p) => [p.name, ref(p.schemaPtr)])),
      required: ps.filter((p) => p.required).map((p) => p.name),
    };
    const coerce = new Map<string, 'integer' | 'number' | 'boolean'>();
    for (const p of ps) if (p.type === 'integer' || p.type === 'number' || p.type === 'boolean') coerce.set(p.name, p.type);
    locations.push({
      where,
      validate: check(JSON.stringify(schema), schema),
      names: new Set(ps.map((p) => p.name)),
      coerce,
      emptyPasses: schema.required.length === 0,
    });
  }
  let body: ValidateFunction | null = null;
  if (op.requestBody) {
    const content = `${located(doc, `${opPtr}/requestBody`)}/content/application~1json/schema`;
    body = check(located(doc, content));
  }
  const responses = new Map<string, ValidateFunction | null | 'other'>();
  for (const status of Object.keys(op.responses ?? {})) {
    const rPtr = located(doc, `${opPtr}/responses/${status}`);
    const r = resolveRef(doc, { $ref: rPtr }) as Json;
    const content = r.content as Json | undefined;
    if (!content) responses.set(status, null);
    else if (content['application/json']) responses.set(status, check(located(doc, `${rPtr}/content/application~1json/schema`)));
    else responses.set(status, 'other');
  }
  return { entry, locations, body, requestSchema: requestSchemaOf(doc, entry.method, entry.path), responses, byStatus: new Map() };
}

/** Compiles every operation of `variant` against `doc` (the bundled document, or one derived from it). */
export function compileContract(variant: Variant, doc: Json = loadBundledDocument(variant)): CompiledContract {
  const ajv = contractAjv();
  ajv.addSchema(doc, BASE);
  const checks = new Map<string, ValidateFunction>();
  const check: Checks = (key, schema) => {
    let f = checks.get(key);
    if (!f) checks.set(key, (f = ajv.compile(schema ?? ref(key))));
    return f;
  };
  const operations = new Map<string, CompiledOperation>();
  const table = operationTables[variant];
  const operation = (id: string): CompiledOperation | undefined => {
    let op = operations.get(id);
    const entry = table[id];
    if (!op && entry) operations.set(id, (op = compileOperation(check, doc, entry)));
    return op;
  };
  return {
    variant,
    doc,
    operation,
    compileAll: () => {
      for (const id of Object.keys(table)) operation(id);
    },
  };
}

const contracts = new Map<Variant, CompiledContract>();
const derived = new Map<Variant, WeakMap<(doc: Json) => Json, CompiledContract>>();

/**
 * The compiled contract of `variant`, made at the first call and shared: over the bundled
 * document, or over `derive(bundled)` (one compilation per variant and function).
 */
export function compiledContract(variant: Variant, derive?: (doc: Json) => Json): CompiledContract {
  if (!derive) {
    let c = contracts.get(variant);
    if (!c) contracts.set(variant, (c = compileContract(variant)));
    return c;
  }
  let byFn = derived.get(variant);
  if (!byFn) derived.set(variant, (byFn = new WeakMap()));
  let c = byFn.get(derive);
  if (!c) byFn.set(derive, (c = compileContract(variant, derive(loadBundledDocument(variant)))));
  return c;
}

/** ajv's text of an error, with an enum's allowed values (as the test oracle words it, and the answers did). */
function messageOf(e: ErrorObject): string {
  const allowed = e.keyword === 'enum' ? (e.params as { allowedValues?: unknown[] }).allowedValues : undefined;
  return allowed ? `${e.message}: ${allowed.join(', ')}` : (e.message ?? 'is invalid');
}

/** The failures of an ajv run, each at the member it names (a missing or unknown member's own path) under `prefix`. */
export function failuresOf(errors: readonly ErrorObject[] | null | undefined, prefix: string): RequestFailure[] {
  return (errors ?? []).map((e) => {
    const p = e.params as { missingProperty?: string; additionalProperty?: string; unevaluatedProperty?: string };
    const member = p.missingProperty ?? p.additionalProperty ?? p.unevaluatedProperty;
    return { path: `${prefix}${e.instancePath}${member !== undefined ? `/${member}` : ''}`, message: messageOf(e) };
  });
}

/** ajv's `coerceTypes` for a declared query parameter's text: a number or boolean when the text is one. */
function coerced(value: unknown, type: 'integer' | 'number' | 'boolean'): unknown {
  if (typeof value !== 'string') return value;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (value !== '' && Number(value) === Number(value) && (type === 'number' || Number(value) % 1 === 0)) return Number(value);
  return value;
}

/**
 * The failures of a request's parameters and body, in the order the answer ranks ties by:
 * an undeclared or empty query parameter alone (ADR-022), else query, headers, path, body.
 */
export function requestFailures(op: CompiledOperation, parts: RequestParts): RequestFailure[] {
  const failures: RequestFailure[] = [];
  for (const loc of op.locations) {
    const data = (loc.where === 'query' ? parts.query : loc.where === 'headers' ? parts.headers : parts.params) ?? {};
    let empty = true;
    for (const name in data) {
      empty = false;
      if (loc.where !== 'query') break;
      if (!loc.names.has(name)) return [{ path: `/query/${name}`, message: `Unknown query parameter '${name}'` }];
      if (data[name] === '') return [{ path: `/query/${name}`, message: `Empty value found for query parameter '${name}'` }];
      const type = loc.coerce.get(name);
      if (type) data[name] = coerced(data[name], type);
    }
    if (!(empty && loc.emptyPasses) && !loc.validate(data)) failures.push(...failuresOf(loc.validate.errors, `/${loc.where}`));
  }
  if (op.body && !op.body(parts.body)) failures.push(...failuresOf(op.body.errors, '/body'));
  return failures;
}

function operationOf(contract: CompiledContract, operationId: string): CompiledOperation {
  const op = contract.operation(operationId);
  if (!op) throw new Error(`${operationId} is not an operation of Variant ${contract.variant}`);
  return op;
}

/**
 * The declared refusal of a request (400 with the code `x-error-precedence` ranks first among
 * the failing members' `x-error-code`s, ADR-002/057), or null when the contract accepts it.
 * `members`: refusals of member rules the schema cannot state (e.g. `x-amount-range`), ranked
 * with the schema's. Query values of declared numbers and booleans are converted in place.
 * @rule ADR-022
 */
export function validateRequest(
  variant: Variant,
  operationId: string,
  parts: RequestParts,
  members: readonly Refusal[] = [],
  contract: CompiledContract = compiledContract(variant),
): ApiError | null {
  const refusal = requestRefusal(contract, operationId, parts, members);
  return refusal && ApiError.of(refusal);
}

/** `validateRequest`'s refusal as a plain value, for those who compare it and never throw it (the judge). */
export function requestRefusal(
  contract: CompiledContract,
  operationId: string,
  parts: RequestParts,
  members: readonly Refusal[] = [],
): Refusal | null {
  const op = operationOf(contract, operationId);
  const failures = requestFailures(op, parts);
  if (failures.length === 0 && members.length === 0) return null;
  return refusalOf(failures, contract.doc, op.requestSchema, members);
}

/** The check of a declared status: the exact status, else its class (`4XX`), else `default`. */
function responseCheck(op: CompiledOperation, status: number): ValidateFunction | null | 'other' | undefined {
  if (op.byStatus.has(status)) return op.byStatus.get(status);
  const r = op.responses;
  const check = r.get(String(status)) ?? r.get(`${String(status)[0]}XX`) ?? r.get('default');
  op.byStatus.set(status, check);
  return check;
}

/**
 * Why a response breaks the contract (an undeclared status, a body where none is declared or
 * none where one is, a body not of the declared schema), or null. A non-JSON content (a
 * stream) is not checked.
 */
export function validateResponse(
  variant: Variant,
  operationId: string,
  status: number,
  body: unknown,
  contract: CompiledContract = compiledContract(variant),
): ResponseFailure | null {
  return responseFailure(operationOf(contract, operationId), status, body);
}

/** `validateResponse` of a compiled operation (the router's, which holds its operations compiled). */
export function responseFailure(op: CompiledOperation, status: number, body: unknown): ResponseFailure | null {
  const check = responseCheck(op, status);
  let message: string;
  let errors: RequestFailure[] = [];
  if (check === undefined) message = `no schema defined for status code '${status}' in the openapi spec`;
  else if (check === 'other') return null;
  else if (check === null) {
    if (body === undefined) return null;
    message = 'response should NOT have a body';
  } else if (body === undefined || body === null) message = 'response body required.';
  else if (check(body)) return null;
  else {
    errors = failuresOf(check.errors, '/response');
    message = errors.map((e) => `${e.path} ${e.message}`).join(', ');
  }
  return { operationId: op.entry.operationId, status, message, errors };
}
