/**
 * Which operation a live request is: its method and path matched against the variant's operations
 * (generated/), a literal path segment winning over a parameter (`/vendor/{ref}` before `/{id}`).
 */
import { variants, type Variant } from '../generated/index.ts';

export interface Route {
  opId: string;
  /** The path parameters, percent-decoded (the raw segment when it does not decode). */
  params: Record<string, string>;
}

interface Compiled {
  opId: string;
  method: string;
  re: RegExp;
  names: string[];
  literals: number;
}

/** Per variant, per method, the operations in matching order. */
const compiled = new Map<Variant, Map<string, Compiled[]>>();

function routes(variant: Variant, method: string): Compiled[] {
  let byMethod = compiled.get(variant);
  if (!byMethod) {
    byMethod = new Map();
    for (const r of allRoutes(variant)) byMethod.set(r.method, [...(byMethod.get(r.method) ?? []), r]);
    compiled.set(variant, byMethod);
  }
  return byMethod.get(method) ?? [];
}

function allRoutes(variant: Variant): Compiled[] {
  const list = Object.entries((variant === 1 ? variants.v1 : variants.v2).operations).map(([opId, o]) => {
    const names: string[] = [];
    const segments = o.path.split('/').slice(1);
    const re = new RegExp(
      '^/' +
        segments
          .map((s) => {
            const m = /^\{([^}]+)\}$/.exec(s);
            if (!m) return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            names.push(m[1]!);
            return '([^/]+)';
          })
          .join('/') +
        '$',
    );
    return { opId, method: o.method, re, names, literals: segments.filter((s) => !s.startsWith('{')).length };
  });
  list.sort((a, b) => b.literals - a.literals);
  return list;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The operation of `method pathname` in the variant, or undefined (no operation: a probe, a typo, another API). */
export function routeOf(variant: Variant, method: string, pathname: string): Route | undefined {
  for (const r of routes(variant, method)) {
    const m = r.re.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < r.names.length; i++) {
      const v = m[i + 1]!;
      params[r.names[i]!] = v.includes('%') ? decode(v) : v;
    }
    return { opId: r.opId, params };
  }
  return undefined;
}

/** The header an operation takes its credential in (lower case), or null (no credential). */
export function authHeaderOf(variant: Variant, opId: string): string | null {
  const o = (variant === 1 ? variants.v1 : variants.v2).operations as Record<string, { authHeader: string | null }>;
  return o[opId]?.authHeader?.toLowerCase() ?? null;
}

/** Every header name any operation takes a credential in (lower case): masked in every report. */
export function credentialHeaders(): string[] {
  const out = new Set<string>(['authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'webhook-signature']);
  for (const v of [variants.v1, variants.v2])
    for (const o of Object.values(v.operations) as { authHeader: string | null }[]) if (o.authHeader) out.add(o.authHeader.toLowerCase());
  return [...out];
}
