/**
 * Which operation a request is: the contract's route table (server/routes.ts, compiled once per
 * variant and shared with the contract router and the reference server), and the headers that
 * carry credentials.
 */
import { VARIANTS, type Variant } from '../generated/index.ts';
import { routeTable } from '../server/routes.ts';

export interface Route {
  opId: string;
  /** The path parameters, percent-decoded (the raw segment when it does not decode). */
  params: Record<string, string>;
}

/** The operation of `method pathname` in the variant, or undefined (no operation: a probe, a typo, another API). */
export function routeOf(variant: Variant, method: string, pathname: string): Route | undefined {
  // the table matches HEAD as GET; a HEAD answer has no body to judge: a request no operation describes
  if (method === 'HEAD') return undefined;
  const m = routeTable(variant).match(method, pathname);
  return m ? { opId: m.entry.operationId, params: m.params } : undefined;
}

/** The path parameters of `pathname` for operation `opId` of the variant (an ear that named the operation). */
export function paramsOf(variant: Variant, opId: string, pathname: string): Record<string, string> | undefined {
  const entry = routeTable(variant).byId.get(opId);
  if (!entry) return undefined;
  return routeTable(variant).match(entry.method, pathname, (e) => e.operationId === opId)?.params ?? {};
}

/** The header an operation takes its credential in (lower case), or null (no credential). */
export function authHeaderOf(variant: Variant, opId: string): string | null {
  return routeTable(variant).byId.get(opId)?.auth?.header.toLowerCase() ?? null;
}

/** The security scheme of a session token (the one `x-token-lifetime-seconds` is read from), as the route table names it. */
const SESSION_SCHEME = 'SessionToken';
/** The headers (lower case) the operations take a session token in, read from the route tables. */
const SESSION_TOKEN_HEADERS: ReadonlySet<string> = new Set(
  VARIANTS.flatMap((v) => routeTable(v).entries.flatMap((e) => (e.auth?.scheme === SESSION_SCHEME ? [e.auth.header.toLowerCase()] : []))),
);
/** Whether a credential header (lower case) carries a session token, not a merchant's key. */
export const isSessionTokenHeader = (header: string): boolean => SESSION_TOKEN_HEADERS.has(header);

/** Every header name any operation takes a credential in (lower case): masked in every report. */
export function credentialHeaders(): string[] {
  const out = new Set<string>(['authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'webhook-signature']);
  for (const v of VARIANTS) for (const e of routeTable(v).entries) if (e.auth) out.add(e.auth.header.toLowerCase());
  return [...out];
}

/** The path prefixes of the contract's operations: a path under one is an API path. */
export const API_PREFIXES: readonly string[] = [
  ...new Set(VARIANTS.flatMap((v) => routeTable(v).entries.map((e) => e.path.split('/').slice(0, 3).join('/') + '/'))),
].filter((p) => p.length > 2);
