/**
 * Which operation a request is: the contract's route table (server/routes.ts, compiled once per
 * variant and shared with the contract router and the reference server), and the headers that
 * carry credentials.
 */
import { VARIANTS, type Variant } from '../generated/index.ts';
import { memoized } from '../lib/memo.ts';
import { routeTable } from '../server/routes.ts';

export interface Route {
  readonly opId: string;
  /** The path parameters, percent-decoded (the raw segment when it does not decode). */
  readonly params: Readonly<Record<string, string>>;
}

/** The most `METHOD path` routes remembered per variant, then started afresh. */
const ROUTES_KEPT = 1000;
/** The longest `METHOD path` remembered: a longer one (a probe, an attack) is matched each time. */
const ROUTE_KEPT_LENGTH = 512;
/** Per variant, the route of a `METHOD path` (null: none), remembered for the paths asked lately: a polling client asks for the same path again and again. */
const routesAsked = new Map(
  VARIANTS.map((v) => [
    v,
    memoized(
      ROUTES_KEPT,
      (methodAndPath: string): Route | null => {
        const space = methodAndPath.indexOf(' ');
        const m = routeTable(v).match(methodAndPath.slice(0, space), methodAndPath.slice(space + 1));
        return m ? Object.freeze({ opId: m.entry.operationId, params: Object.freeze(m.params) }) : null;
      },
      ROUTE_KEPT_LENGTH,
    ),
  ]),
);

/** The operation of `method pathname` in the variant, or undefined (no operation: a probe, a typo, another API); frozen, shared by every exchange of that path. */
export function routeOf(variant: Variant, method: string, pathname: string): Route | undefined {
  // the table matches HEAD as GET; a HEAD answer has no body to judge: a request no operation describes
  if (method === 'HEAD') return undefined;
  return routesAsked.get(variant)!(`${method} ${pathname}`) ?? undefined;
}

/** The path parameters of `pathname` for operation `opId` of the variant (an ear that named the operation). */
export function paramsOf(variant: Variant, opId: string, pathname: string): Record<string, string> | undefined {
  const entry = routeTable(variant).byId.get(opId);
  if (!entry) return undefined;
  return routeTable(variant).match(entry.method, pathname, (e) => e.operationId === opId)?.params ?? {};
}

/** Per variant, each operation's credential header in lower case (null: none), read from its route table once. */
const AUTH_HEADERS = new Map<Variant, ReadonlyMap<string, string | null>>(
  VARIANTS.map((v) => [v, new Map(routeTable(v).entries.map((e) => [e.operationId, e.auth?.header.toLowerCase() ?? null]))]),
);

/** The header an operation takes its credential in (lower case), or null (no credential, or no such operation). */
export function authHeaderOf(variant: Variant, opId: string): string | null {
  return AUTH_HEADERS.get(variant)!.get(opId) ?? null;
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
