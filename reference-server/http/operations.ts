/**
 * The operations of a variant, read from its bundled OpenAPI document: method, path
 * template, security scheme (and its header), request body schema, sandbox flag, rate limit.
 */
import { variants } from '../../generated/contract.ts';
import type { Variant } from '../../generated/index.ts';

export { nearestExtension, resolveRef } from '../../server/schema.ts';

type Json = Record<string, unknown>;

export type AuthKind = 'apiKey' | 'sessionToken';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  regex: RegExp;
  /** The names of the path template's parameters, in order (the regex's capture groups). */
  paramNames: string[];
  /** The variant whose document declares it. */
  variant: Variant;
  /** `security: []`: no key (the service probes); such an operation has no caller and no rate limit. */
  open: boolean;
  /** `header` in lower case (for matching); `title` as the contract spells it (`authHeader`), for messages. */
  auth: { scheme: string; header: string; title: string; kind: AuthKind } | null;
  hasBody: boolean;
  sandbox: boolean;
  /** `x-internal`: called by the browser SDK or the hosted page (cross-origin from the merchant's page). */
  internal: boolean;
  rateLimit: RateLimit | null;
  /** The request body schema (may be a $ref). */
  requestSchema: Json | null;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function buildOperations(doc: Json, variant: Variant): OperationInfo[] {
  const meta = variants[`v${variant}`].operations as Record<string, { sandbox: boolean; internal: boolean; authHeader: string | null }>;
  const schemes = ((doc.components as Json)?.securitySchemes ?? {}) as Record<string, { name?: string; in?: string }>;
  const out: OperationInfo[] = [];
  for (const [p, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const m of METHODS) {
      const op = item[m] as Json | undefined;
      if (!op) continue;
      const operationId = op.operationId as string;
      const sec = (op.security as Array<Record<string, unknown>> | undefined)?.[0];
      const schemeName = sec ? Object.keys(sec)[0] : undefined;
      let auth: OperationInfo['auth'] = null;
      if (schemeName) {
        const s = schemes[schemeName];
        if (!s || s.in !== 'header' || !s.name) throw new Error(`${operationId}: security scheme ${schemeName} is not a header API key`);
        // A scheme whose header carries the session token authenticates the session; the others the merchant key.
        const header = s.name.toLowerCase();
        auth = {
          scheme: schemeName,
          header,
          title: meta[operationId]?.authHeader ?? s.name,
          kind: header === 'x-session-token' ? 'sessionToken' : 'apiKey',
        };
      }
      const rl = op['x-rate-limit'] as RateLimit | undefined;
      const body = ((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined;
      const names: string[] = [];
      const re = p
        .replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`))
        .replace(/\{([^}]+)\}/g, (_, n: string) => {
          names.push(n);
          return '([^/]+)';
        });
      out.push({
        operationId,
        method: m.toUpperCase(),
        path: p,
        regex: new RegExp(`^${re}$`),
        paramNames: names,
        variant,
        open: Array.isArray(op.security) && op.security.length === 0,
        auth,
        hasBody: Boolean(body),
        sandbox: Boolean(meta[operationId]?.sandbox ?? op['x-sandbox']),
        internal: Boolean(meta[operationId]?.internal ?? op['x-internal']),
        rateLimit: rl ? { limit: rl.limit, windowSeconds: rl.windowSeconds } : null,
        requestSchema: (body?.schema as Json) ?? null,
      });
    }
  }
  return out;
}
