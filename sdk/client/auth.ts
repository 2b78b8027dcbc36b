/**
 * Which header carries which credential, per operation, read from the contract: the
 * operation's `security` (generated/contract.ts facts) and the scheme's header name
 * (`components.securitySchemes` of the bundled document). Nothing is typed per path here.
 */
import type { Middleware } from 'openapi-fetch';
import { loadBundledDocument, variants, type Variant } from '../../generated/index.ts';

/** The security scheme whose credential is the session token; every other scheme takes the API key. */
export const SESSION_TOKEN_SCHEME = 'SessionToken';

export interface Credentials {
  apiKey?: string;
  sessionToken?: string;
}

export interface OperationAuth {
  operationId: string;
  method: string;
  path: string;
  scheme: string;
  header: string;
  credential: 'apiKey' | 'sessionToken';
}

const cache = new Map<Variant, Map<string, OperationAuth>>();

function key(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** Every operation of a variant, keyed by `METHOD /path/{template}`, with its auth header. */
export function operationAuthTable(variant: Variant): Map<string, OperationAuth> {
  const hit = cache.get(variant);
  if (hit) return hit;
  const doc = loadBundledDocument(variant) as {
    components?: { securitySchemes?: Record<string, { type?: string; in?: string; name?: string }> };
  };
  const schemes = doc.components?.securitySchemes ?? {};
  const ops = variants[variant === 1 ? 'v1' : 'v2'].operations as Record<
    string,
    { method: string; path: string; security: readonly string[] }
  >;
  const table = new Map<string, OperationAuth>();
  for (const [operationId, op] of Object.entries(ops)) {
    const scheme = op.security[0];
    if (scheme === undefined) continue;
    const def = schemes[scheme];
    if (!def || def.type !== 'apiKey' || def.in !== 'header' || typeof def.name !== 'string') {
      throw new Error(`security scheme ${scheme} of ${operationId} is not an apiKey header scheme`);
    }
    table.set(key(op.method, op.path), {
      operationId,
      method: op.method,
      path: op.path,
      scheme,
      header: def.name,
      credential: scheme === SESSION_TOKEN_SCHEME ? 'sessionToken' : 'apiKey',
    });
  }
  cache.set(variant, table);
  return table;
}

export function operationAuth(variant: Variant, method: string, schemaPath: string): OperationAuth | undefined {
  return operationAuthTable(variant).get(key(method, schemaPath));
}

/**
 * openapi-fetch middleware: sets the operation's auth header from `credentials` (when the
 * credential it needs is present and the caller did not set the header already).
 */
export function authMiddleware(variant: Variant, credentials: Credentials): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const auth = operationAuth(variant, request.method, schemaPath);
      if (!auth) return undefined;
      const value = credentials[auth.credential];
      if (value === undefined || request.headers.has(auth.header)) return undefined;
      request.headers.set(auth.header, value);
      return request;
    },
  };
}
