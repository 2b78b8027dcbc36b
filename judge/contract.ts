/**
 * Everything the suite and the judge know about the contract, read from generated/ (bundled OpenAPI
 * documents and the machine-readable contract) — never typed again by hand: each operation's
 * declared answers compiled into validators, its request schema, its parameters, its arrays' order.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { loadBundledDocument, variants, type Variant } from '../generated/index.ts';
import { centimesFromNumber, isMad } from '../lib/money.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;
export type OperationId = string;

export interface OperationInfo {
  method: string;
  path: string;
  sandbox: boolean;
  internal: boolean;
  security: readonly string[];
  errors: Record<string, readonly string[]>;
  successStatus: number;
}

export function makeAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('mad', { type: 'number', validate: (n: number) => isMad(n) });
  return ajv;
}

function ptr(...parts: string[]): string {
  return parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

export interface HeaderSpec {
  name: string;
  required: boolean;
  validate: ValidateFunction;
  type: string | undefined;
}

export interface ResponseSpec {
  contentTypes: string[];
  validate: Map<string, ValidateFunction>;
  headers: HeaderSpec[];
}

const contracts = new Map<Variant, Contract>();

/** What an operation's `x-simulate` header parameter says (ADR-052). */
export interface Simulation {
  /** The header's name as declared. */
  name: string;
  statuses: string[];
  /** The wait of a simulated 429 that names none (null: the spec states none). */
  retryAfterSeconds: number | null;
}

export class Contract {
  /** One compiled contract per variant per process (ajv compilation is the expensive part). */
  static for(variant: Variant): Contract {
    let c = contracts.get(variant);
    if (!c) contracts.set(variant, (c = new Contract(variant)));
    return c;
  }

  readonly variant: Variant;
  readonly doc: Json;
  readonly ops: Record<string, OperationInfo>;
  readonly rateLimits: Record<string, { limit: number; windowSeconds: number }>;
  private readonly ajv: Ajv2020;
  private readonly responseCache = new Map<string, ResponseSpec | null>();
  private readonly requestCache = new Map<string, ValidateFunction>();
  private readonly simulationCache = new Map<string, Simulation | null>();

  /** `doc`: the variant's bundled document, or a copy of it edited by the caller (default: generated/). */
  constructor(variant: Variant, doc: Json = loadBundledDocument(variant)) {
    this.variant = variant;
    this.doc = doc;
    const v = variant === 1 ? variants.v1 : variants.v2;
    this.ops = v.operations;
    this.rateLimits = v.rateLimits;
    this.ajv = makeAjv();
    this.ajv.addSchema(this.doc, 'openapi');
  }

  /** Compiles every response and request validator now (once per process), so no run pays for it. */
  warm(): this {
    for (const [opId, o] of Object.entries(this.ops)) {
      const opObj = ((this.doc.paths as Json)[o.path] as Json | undefined)?.[o.method.toLowerCase()] as Json | undefined;
      if (!opObj) continue;
      for (const status of Object.keys(opObj.responses ?? {})) if (/^\d{3}$/.test(status)) this.response(opId, Number(status));
      if (opObj.requestBody) this.requestValidator(opId);
    }
    return this;
  }

  op(opId: string): OperationInfo {
    const o = this.ops[opId];
    if (!o) throw new Error(`operation ${opId} is not in variant ${this.variant}`);
    return o;
  }

  has(opId: string): boolean {
    return opId in this.ops;
  }

  private scenarios: { phones: Set<string>; totals: Set<number> } | undefined;
  /**
   * The magic values of the operations' `x-sandbox-scenarios` (ADR-043): customer phones that
   * schedule a customer's action without a call, totals answered a business rule's 422.
   */
  sandboxScenarios(): { phones: Set<string>; totals: Set<number> } {
    if (this.scenarios) return this.scenarios;
    const phones = new Set<string>();
    const totals = new Set<number>();
    for (const item of Object.values(this.doc.paths as Json))
      for (const op of Object.values(this.deref(item))) {
        const sc = op !== null && typeof op === 'object' ? (op as Json)['x-sandbox-scenarios'] : undefined;
        if (!sc) continue;
        const s = this.deref(sc) as { customerPhones?: { customerPhone: string }[]; amounts?: { total: number }[] };
        for (const p of s.customerPhones ?? []) phones.add(p.customerPhone);
        for (const a of s.amounts ?? []) totals.add(centimesFromNumber(a.total)!);
      }
    return (this.scenarios = { phones, totals });
  }

  private deref(node: unknown): Json {
    let n = node as Json;
    for (let i = 0; i < 10 && n && typeof n.$ref === 'string'; i++) {
      const parts = n.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      let cur: unknown = this.doc;
      for (const p of parts) cur = (cur as Json)[p];
      n = cur as Json;
    }
    return n;
  }

  /** The parameters an operation declares (its own and its path item's), resolved: name, location and schema. */
  parameters(opId: string): { name: string; in: string; schema: unknown }[] {
    const o = this.op(opId);
    const item = this.deref((this.doc.paths as Json)[o.path]);
    const params = [
      ...((item.parameters as unknown[]) ?? []),
      ...((this.deref(item[o.method.toLowerCase()]).parameters as unknown[]) ?? []),
    ];
    return params.map((p) => this.deref(p)).map((p) => ({ name: String(p.name), in: String(p.in), schema: p.schema }));
  }

  /**
   * The header parameter of `opId` carrying `x-simulate` (ADR-052): its name, the statuses it may
   * ask for, and the wait a simulated 429 answers when none is named; null when it declares none.
   * Read once per operation.
   */
  simulation(opId: string): Simulation | null {
    let s = this.simulationCache.get(opId);
    if (s === undefined) {
      s = null;
      for (const p of this.parameters(opId)) {
        const ext = (p.schema as Json | undefined)?.['x-simulate'] as { statuses?: unknown[]; retryAfterSeconds?: unknown } | undefined;
        if (p.in === 'header' && ext?.statuses) {
          const wait = ext.retryAfterSeconds;
          s = { name: p.name, statuses: ext.statuses.map(String), retryAfterSeconds: typeof wait === 'number' ? wait : null };
          break;
        }
      }
      this.simulationCache.set(opId, s);
    }
    return s;
  }

  /** The query parameters an operation declares (its own and its path item's). */
  queryParameters(opId: string): string[] {
    return this.parameters(opId)
      .filter((p) => p.in === 'query')
      .map((p) => p.name);
  }

  /** Whether an operation declares a JSON request body. */
  hasRequestBody(opId: string): boolean {
    const o = this.op(opId);
    return this.deref(((this.doc.paths as Json)[o.path] as Json)[o.method.toLowerCase()]).requestBody !== undefined;
  }

  /** A JSON Schema (resolved one level) of a component, e.g. `PartnerTransactionCreateRequest`. */
  schema(name: string): Json {
    return this.deref((this.doc.components as Json & { schemas: Json }).schemas[name]);
  }

  /**
   * The order an array property of a component schema keeps (`x-array-order`, ADR-048): e.g.
   * `request`, `newest-first`; undefined when the array is a set (its order means nothing).
   */
  arrayOrder(schemaName: string, property: string): string | undefined {
    const p = (this.schema(schemaName).properties as Json | undefined)?.[property];
    const order = p === undefined ? undefined : this.deref(p)['x-array-order'];
    return typeof order === 'string' ? order : undefined;
  }

  /**
   * What an ordered array's order is by (`x-array-order-by`, ADR-081): `insertion` (the order the
   * server made its items) or the item member it is by; undefined when not stated.
   */
  arrayOrderBy(schemaName: string, property: string): string | undefined {
    const p = (this.schema(schemaName).properties as Json | undefined)?.[property];
    const by = p === undefined ? undefined : this.deref(p)['x-array-order-by'];
    return typeof by === 'string' ? by : undefined;
  }

  /** Declared response of an operation for a status, or null when the status is not declared. */
  response(opId: string, status: number): ResponseSpec | null {
    const key = `${opId} ${status}`;
    const known = this.responseCache.get(key);
    if (known !== undefined) return known;
    const o = this.op(opId);
    const opObj = ((this.doc.paths as Json)[o.path] as Json)[o.method.toLowerCase()] as Json;
    const responses = opObj.responses as Json;
    const statusKey = String(status) in responses ? String(status) : 'default' in responses ? 'default' : null;
    if (!statusKey) {
      this.responseCache.set(key, null);
      return null;
    }
    const raw = responses[statusKey];
    const resp = this.deref(raw);
    const base =
      typeof (raw as Json).$ref === 'string'
        ? `openapi#/${(raw as Json).$ref as string}`.replace('#/#/', '#/')
        : `openapi#/${ptr('paths', o.path, o.method.toLowerCase(), 'responses', statusKey)}`;
    const content = (resp.content ?? {}) as Json;
    const validate = new Map<string, ValidateFunction>();
    for (const ct of Object.keys(content)) {
      validate.set(ct, this.ajv.getSchema(`${base}/${ptr('content', ct, 'schema')}`)!);
    }
    const headers: HeaderSpec[] = [];
    for (const [name, h] of Object.entries((resp.headers ?? {}) as Json)) {
      const hd = this.deref(h);
      const hBase = typeof (h as Json).$ref === 'string' ? `openapi${(h as Json).$ref as string}` : `${base}/${ptr('headers', name)}`;
      const schema = this.deref(hd.schema);
      headers.push({
        name,
        required: hd.required === true,
        validate: this.ajv.getSchema(`${hBase}/schema`)!,
        type: typeof schema.type === 'string' ? schema.type : undefined,
      });
    }
    const spec = { contentTypes: Object.keys(content), validate, headers };
    this.responseCache.set(key, spec);
    return spec;
  }

  /** The validator of an operation's JSON request body. */
  requestValidator(opId: string): ValidateFunction {
    let v = this.requestCache.get(opId);
    if (!v) {
      const o = this.op(opId);
      v = this.ajv.getSchema(
        `openapi#/${ptr('paths', o.path, o.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`,
      )!;
      this.requestCache.set(opId, v);
    }
    return v;
  }

  /** The request body schema (resolved) of an operation. */
  requestSchema(opId: string): Json {
    const o = this.op(opId);
    const opObj = ((this.doc.paths as Json)[o.path] as Json)[o.method.toLowerCase()] as Json;
    const rb = this.deref(opObj.requestBody);
    return this.deref(((rb.content as Json)['application/json'] as Json).schema);
  }

  /** `x-error-code` of a top-level request property (following $ref/allOf), default VALIDATION_ERROR. */
  errorCodeOf(opId: string, property: string | undefined): string {
    if (property === undefined) return 'VALIDATION_ERROR';
    const props = (this.requestSchema(opId).properties ?? {}) as Json;
    let node: Json | undefined = props[property] as Json | undefined;
    for (let i = 0; node && i < 5; i++) {
      if (typeof node['x-error-code'] === 'string') return node['x-error-code'];
      const r = this.deref(node);
      if (typeof r['x-error-code'] === 'string') return r['x-error-code'];
      node = Array.isArray(r.allOf) ? (r.allOf[0] as Json) : r !== node ? r : undefined;
    }
    return 'VALIDATION_ERROR';
  }

  /**
   * The codes of the members of a request body its schema refuses: each failing member's
   * `x-error-code` (`errorCodeOf`), in the validator's order; empty when the schema accepts the body.
   * The rules the schema cannot state (`x-amount-range` on a decimal string, `x-amount-consistency`,
   * business rules) and which code answers (ADR-057) are decided by the check that exercises them
   * (`commands/createSession.ts:classifyBody`).
   */
  schemaFailures(opId: string, body: unknown): Set<string> {
    const validate = this.requestValidator(opId);
    const failing = new Set<string>();
    if (validate(body)) return failing;
    for (const e of validate.errors as ErrorObject[]) {
      let prop = e.instancePath.split('/')[1];
      if (prop === undefined && e.keyword === 'required') prop = (e.params as { missingProperty: string }).missingProperty;
      if (prop !== undefined) prop = prop.replace(/~1/g, '/').replace(/~0/g, '~');
      failing.add(this.errorCodeOf(opId, prop));
    }
    return failing;
  }
}
