/**
 * Extracts the machine-readable facts of the contract from a bundled OpenAPI document:
 * the state machine, the error catalogue, each operation's error codes per status, the
 * rate limit, the webhook delivery rules, the token lifetime and the amount range. `npm run generate`
 * writes them to `generated/contract.ts` so that the server and the conformance suite
 * read them instead of typing them again.
 */
import { centimesOf, formatCentimes } from '../../lib/money.ts';

type Json = Record<string, unknown>;

function resolve(doc: Json, node: unknown): Json {
  let current = node as Json;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    if (!ref.startsWith('#/')) throw new Error(`external $ref left in bundle: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((acc, key) => (acc as Json)?.[key], doc) as Json;
    if (current === undefined) throw new Error(`unresolved $ref ${ref}`);
  }
  return current;
}

export interface ErrorCatalogEntry {
  status: number;
  description: string;
}

export interface OperationFacts {
  method: string;
  path: string;
  tags: string[];
  sandbox: boolean;
  internal: boolean;
  security: string[];
  /** The header that carries the operation's credential, as its security scheme names it (e.g. `X-API-Key`). */
  authHeader: string | null;
  /** status → error codes that status may carry */
  errors: Record<string, string[]>;
  successStatus: number;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function errorCatalog(doc: Json): Record<string, ErrorCatalogEntry> {
  const schemas = (doc.components as Json).schemas as Json;
  const codeSchema = resolve(doc, schemas.ErrorCode);
  const out: Record<string, ErrorCatalogEntry> = {};
  for (const branch of codeSchema.oneOf as Json[]) {
    out[branch.const as string] = { status: branch['x-status'] as number, description: branch.description as string };
  }
  return out;
}

function codesOfResponse(doc: Json, response: Json): string[] {
  const content = (response.content as Json | undefined)?.['application/json'] as Json | undefined;
  if (!content) return [];
  const schema = resolve(doc, content.schema);
  for (const part of (schema.allOf as Json[] | undefined) ?? []) {
    const p = resolve(doc, part);
    const code = (((p.properties as Json | undefined)?.error as Json | undefined)?.properties as Json | undefined)?.code as
      Json | undefined;
    if (code?.enum) return code.enum as string[];
  }
  return [];
}

export function operations(doc: Json): Record<string, OperationFacts> {
  const out: Record<string, OperationFacts> = {};
  for (const [p, itemRef] of Object.entries(doc.paths as Json)) {
    const item = resolve(doc, itemRef);
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const errors: Record<string, string[]> = {};
      let successStatus = 0;
      for (const [status, respRef] of Object.entries(op.responses as Json)) {
        const n = Number(status);
        if (n >= 200 && n < 300 && successStatus === 0) successStatus = n;
        if (n >= 400) errors[status] = codesOfResponse(doc, resolve(doc, respRef));
      }
      out[op.operationId as string] = {
        method: method.toUpperCase(),
        path: p,
        tags: (op.tags as string[]) ?? [],
        sandbox: op['x-sandbox'] === true,
        internal: op['x-internal'] === true,
        security: ((op.security as Json[] | undefined) ?? []).flatMap((s) => Object.keys(s)),
        authHeader: authHeaderOf(doc, op),
        errors,
        successStatus,
      };
    }
  }
  return out;
}

/** The header of the operation's (first) security scheme, or null for an operation without one. */
function authHeaderOf(doc: Json, op: Json): string | null {
  const name = ((op.security as Json[] | undefined) ?? []).flatMap((s) => Object.keys(s))[0];
  if (name === undefined) return null;
  const schemes = ((doc.components as Json).securitySchemes ?? {}) as Json;
  const scheme = schemes[name] ? resolve(doc, schemes[name]) : undefined;
  if (!scheme || scheme.in !== 'header' || typeof scheme.name !== 'string')
    throw new Error(`security scheme ${name} is not a header API key`);
  return scheme.name;
}

/**
 * ADR-008: how each transaction status is reported by the checkout verifications (A2, A3):
 * `x-reported-as` of `CheckoutStatus`, checked to cover every status of `TransactionStatus`.
 */
export function checkoutStatusOf(doc: Json): Record<string, string> {
  const schemas = (doc.components as Json).schemas as Json;
  const checkout = resolve(doc, schemas.CheckoutStatus);
  const mapping = checkout['x-reported-as'] as Record<string, string> | undefined;
  if (!mapping) throw new Error('CheckoutStatus has no x-reported-as');
  const statuses = resolve(doc, schemas.TransactionStatus).enum as string[];
  const reported = checkout.enum as string[];
  for (const s of statuses)
    if (!reported.includes(mapping[s] ?? '')) throw new Error(`x-reported-as: ${s} is not mapped to a CheckoutStatus value`);
  for (const s of Object.keys(mapping)) if (!statuses.includes(s)) throw new Error(`x-reported-as: ${s} is not a TransactionStatus`);
  return mapping;
}

export function stateMachine(doc: Json): Json {
  const schemas = (doc.components as Json).schemas as Json;
  const status = resolve(doc, schemas.TransactionStatus);
  const sm = status['x-state-machine'] as Json | undefined;
  if (!sm) throw new Error('TransactionStatus has no x-state-machine');
  return sm;
}

export function rateLimits(doc: Json): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const itemRef of Object.values(doc.paths as Json)) {
    const item = resolve(doc, itemRef);
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (op?.['x-rate-limit']) out[op.operationId as string] = op['x-rate-limit'] as Json;
    }
  }
  return out;
}

export function webhookDelivery(doc: Json): Json {
  const schemas = (doc.components as Json).schemas as Json;
  const headers = resolve(doc, schemas.WebhookHeaders);
  return headers['x-webhook-delivery'] as Json;
}

/** The session token lifetime: `x-token-lifetime-seconds` of the one security scheme that states it (`SessionToken`). */
export function tokenLifetimeSeconds(doc: Json): number {
  const schemes = ((doc.components as Json).securitySchemes ?? {}) as Json;
  const found = Object.values(schemes)
    .map((s) => resolve(doc, s)['x-token-lifetime-seconds'])
    .filter((v) => v !== undefined);
  const [lifetime] = found;
  if (found.length !== 1 || typeof lifetime !== 'number')
    throw new Error('exactly one security scheme must state x-token-lifetime-seconds (a number)');
  return lifetime;
}

/** The amount range (`x-amount-range`, ADR-006) and the rule text of its out-of-range answers. */
export interface AmountRange {
  minimum: number;
  maximum: number;
  currency: string;
  /** `must be between 500.00 and 15000.00 MAD`: the detail message; the error message is `<property> <rule>`. */
  rule: string;
}

/** Every `x-amount-range` of the document, with the JSON pointer of the schema that carries it. */
export function amountRangeUses(doc: Json): Array<{ pointer: string; schema: Json; range: Json }> {
  const out: Array<{ pointer: string; schema: Json; range: Json }> = [];
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${pointer}/${i}`));
    else if (node && typeof node === 'object') {
      const obj = node as Json;
      if (obj['x-amount-range'] !== undefined) out.push({ pointer, schema: obj, range: resolve(doc, obj['x-amount-range']) });
      for (const [k, v] of Object.entries(obj))
        if (k !== 'x-amount-range') visit(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  visit(doc, '#');
  return out;
}

/** The one amount range: every `x-amount-range` of the document is the same object (the bundler inlines one `$ref`). */
export function amountRange(doc: Json): AmountRange {
  const uses = amountRangeUses(doc);
  const first = uses[0]?.range;
  if (!first) throw new Error('no x-amount-range in the document');
  for (const u of uses) {
    if (JSON.stringify(u.range) !== JSON.stringify(first))
      throw new Error(`x-amount-range at ${u.pointer} differs from the one at ${uses[0]!.pointer}: state it once and $ref it`);
  }
  const { minimum, maximum, currency } = first;
  const min = typeof minimum === 'number' ? centimesOf(minimum) : null;
  const max = typeof maximum === 'number' ? centimesOf(maximum) : null;
  if (min === null || max === null || min > max || typeof currency !== 'string')
    throw new Error('x-amount-range needs numbers minimum <= maximum (at most two decimals) and a currency');
  return {
    minimum: minimum as number,
    maximum: maximum as number,
    currency,
    rule: `must be between ${formatCentimes(min)} and ${formatCentimes(max)} ${currency}`,
  };
}

/** Error precedence (`x-error-precedence` of `ErrorCode`, ADR-057): the stages in order, and the order of the members' codes. */
export interface ErrorPrecedence {
  stages: Array<{ name: string; codes: string[] }>;
  members: string[];
}

/** `x-error-precedence` of `ErrorCode`, each code checked against the catalogue. */
export function errorPrecedence(doc: Json): ErrorPrecedence {
  const schemas = (doc.components as Json).schemas as Json;
  const p = resolve(doc, schemas.ErrorCode)['x-error-precedence'] as Json | undefined;
  if (!p || !Array.isArray(p.stages) || !Array.isArray(p.members))
    throw new Error('ErrorCode needs x-error-precedence with stages and members');
  const catalog = errorCatalog(doc);
  const known = (code: unknown, where: string): string => {
    if (typeof code !== 'string' || !(code in catalog))
      throw new Error(`x-error-precedence ${where}: ${String(code)} is not a code of ErrorCode`);
    return code;
  };
  const stages = (p.stages as Json[]).map((s) => ({
    name: String(s.name),
    codes: (s.codes as unknown[]).map((c) => known(c, `stage ${String(s.name)}`)),
  }));
  const members = (p.members as unknown[]).map((c) => known(c, 'members'));
  if (new Set(members).size !== members.length) throw new Error('x-error-precedence members: a code is listed twice');
  return { stages, members };
}

/** The request body limit: `x-max-body-bytes` of the `PayloadTooLarge` response. */
export function maxBodyBytes(doc: Json): number {
  const responses = (doc.components as Json).responses as Json | undefined;
  const tooLarge = responses?.PayloadTooLarge ? resolve(doc, responses.PayloadTooLarge) : undefined;
  const limit = tooLarge?.['x-max-body-bytes'];
  if (typeof limit !== 'number') throw new Error('no x-max-body-bytes on the PayloadTooLarge response');
  return limit;
}

/** The most `error.details` entries an error body carries: `maxItems` of the `Error` schema's `details`. */
export function maxErrorDetails(doc: Json): number {
  const schemas = (doc.components as Json).schemas as Json | undefined;
  const error = schemas?.Error ? resolve(doc, schemas.Error) : undefined;
  const body = ((error?.properties as Json | undefined)?.error ?? {}) as Json;
  const max = ((body.properties as Json | undefined)?.details as Json | undefined)?.maxItems;
  if (typeof max !== 'number') throw new Error("no maxItems on the Error schema's error.details");
  return max;
}

/**
 * The longest URL the hosted checkout page goes to: the most characters `PaymentIntentRequest` takes
 * in its `redirect_url` or its `origin` (`maxLength`), the only URLs the page is handed back.
 */
export function maxPaymentIntentUrlLength(doc: Json): number {
  const schemas = (doc.components as Json).schemas as Json | undefined;
  const request = schemas?.PaymentIntentRequest ? resolve(doc, schemas.PaymentIntentRequest) : undefined;
  const props = (request?.properties ?? {}) as Json;
  const lengths = ['redirect_url', 'origin'].map((p) => (props[p] ? resolve(doc, props[p]) : undefined)?.maxLength);
  if (!lengths.every((n): n is number => typeof n === 'number'))
    throw new Error('no maxLength on PaymentIntentRequest redirect_url and origin');
  return Math.max(...lengths);
}

export function webhookEvents(doc: Json): string[] {
  return Object.keys((doc.webhooks as Json | undefined) ?? {}).sort();
}

export { resolve as resolveRef };

/** One row of the operation table the contract router compiles its routes from (server/types.ts `OperationEntry`). */
export interface ServerOperationFacts {
  operationId: string;
  method: string;
  path: string;
  pathParams: string[];
  auth: { scheme: string; header: string } | null;
  requestBody: 'required' | 'optional' | null;
  sandbox: boolean;
  internal: boolean;
  rateLimit: { limit: number; windowSeconds: number } | null;
  successStatus: number;
}

/** The operation table of generated/v<n>/server.ts, in document order. */
export function serverOperations(doc: Json): ServerOperationFacts[] {
  const facts = operations(doc);
  const out: ServerOperationFacts[] = [];
  for (const [p, itemRef] of Object.entries(doc.paths as Json)) {
    const item = resolve(doc, itemRef);
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const id = op.operationId as string;
      const f = facts[id]!;
      const scheme = f.security[0];
      const body = op.requestBody ? resolve(doc, op.requestBody) : null;
      const json = (body?.content as Json | undefined)?.['application/json'];
      if (body && !json) throw new Error(`${id}: a request body other than application/json`);
      const rl = op['x-rate-limit'] ? resolve(doc, op['x-rate-limit']) : null;
      out.push({
        operationId: id,
        method: f.method,
        path: p,
        pathParams: [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        auth: scheme !== undefined && f.authHeader !== null ? { scheme, header: f.authHeader } : null,
        requestBody: json ? (body!.required === true ? 'required' : 'optional') : null,
        sandbox: f.sandbox,
        internal: f.internal,
        rateLimit: rl ? { limit: rl.limit as number, windowSeconds: rl.windowSeconds as number } : null,
        successStatus: f.successStatus,
      });
    }
  }
  return out;
}
