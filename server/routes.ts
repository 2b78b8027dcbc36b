/**
 * The route table of a variant: method + path template → operation, compiled once per
 * variant from generated/v<n>/server.ts `operationTable` and shared by every part that matches a
 * request (the contract router, the reference server's API log and failures-on-demand, the
 * proxy). A request is matched once; the match (its operation and percent-decoded path
 * parameters) travels with it.
 *
 * Matching walks the path's segments: a literal segment wins over a parameter at the same
 * position (`/vendor/{vendorReference}` before `/{transactionId}`), HEAD is matched as GET.
 */
import type { Variant } from '../generated/index.ts';
import { operationTable as operationsV1 } from '../generated/v1/server.ts';
import { operationTable as operationsV2 } from '../generated/v2/server.ts';
import type { OperationEntry } from './types.ts';

/** The operation tables of the variants. */
export const operationTables: { readonly [V in Variant]: Readonly<Record<string, OperationEntry>> } = {
  1: operationsV1,
  2: operationsV2,
};

/** A request matched to an operation. */
export interface RouteMatch {
  readonly entry: OperationEntry;
  /** The path parameters, percent-decoded (a parameter that does not decode keeps its raw text and is named in `malformed`). */
  readonly params: Record<string, string>;
  /** The first path parameter whose percent-encoding is invalid, or null. */
  readonly malformed: string | null;
}

/** Which operations a caller of the table serves (default: all); the others are unknown to it. */
export type Serves = (entry: OperationEntry) => boolean;

export interface RouteTable {
  readonly variant: Variant;
  /** Every operation, in document order. */
  readonly entries: readonly OperationEntry[];
  readonly byId: ReadonlyMap<string, OperationEntry>;
  /** The operation `method` `path` (a path without its query) calls, or null. */
  match(method: string, path: string, serves?: Serves): RouteMatch | null;
  /** The methods served at `path` (HEAD with GET), sorted: a 405's `Allow` (ADR-024); empty when no operation is there. */
  allowedAt(path: string, serves?: Serves): string[];
}

/** A compiled template: its segments (`/a/{b}` → '', `a`, null), `null` for a parameter. */
interface Compiled {
  entry: OperationEntry;
  segments: readonly (string | null)[];
}

function compile(entry: OperationEntry): Compiled {
  return { entry, segments: entry.path.split('/').map((s) => (s.startsWith('{') && s.endsWith('}') ? null : s)) };
}

/** Orders templates so that, position by position, a literal comes before a parameter. */
function specificity(a: Compiled, b: Compiled): number {
  const n = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const x = a.segments[i] === null ? 1 : 0;
    const y = b.segments[i] === null ? 1 : 0;
    if (x !== y) return x - y;
  }
  return 0;
}

function matches(c: Compiled, parts: readonly string[]): boolean {
  const segs = c.segments;
  if (segs.length !== parts.length) return false;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    const p = parts[i]!;
    if (s === null ? p.length === 0 : s !== p) return false;
  }
  return true;
}

function matchOf(c: Compiled, parts: readonly string[]): RouteMatch {
  const params: Record<string, string> = {};
  let malformed: string | null = null;
  const names = c.entry.pathParams;
  let k = 0;
  for (let i = 0; i < c.segments.length; i++) {
    if (c.segments[i] !== null) continue;
    const name = names[k++]!;
    const raw = parts[i]!;
    if (!raw.includes('%')) params[name] = raw;
    else
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        params[name] = raw;
        malformed ??= name;
      }
  }
  return { entry: c.entry, params, malformed };
}

function build(variant: Variant): RouteTable {
  const entries = Object.values(operationTables[variant]);
  // by method and segment count, most specific first: a request compares only the templates of its shape
  const byShape = new Map<string, Compiled[]>();
  const all = entries.map(compile);
  for (const c of all) {
    const key = `${c.entry.method} ${c.segments.length}`;
    byShape.set(key, [...(byShape.get(key) ?? []), c]);
  }
  for (const list of byShape.values()) list.sort(specificity);
  return {
    variant,
    entries,
    byId: new Map(entries.map((e) => [e.operationId, e])),
    match(method, path, serves) {
      const parts = path.split('/');
      const list = byShape.get(`${method === 'HEAD' ? 'GET' : method} ${parts.length}`);
      if (!list) return null;
      for (const c of list) if (matches(c, parts) && (!serves || serves(c.entry))) return matchOf(c, parts);
      return null;
    },
    allowedAt(path, serves) {
      const parts = path.split('/');
      const out = new Set<string>();
      for (const c of all) {
        if (!matches(c, parts) || (serves && !serves(c.entry))) continue;
        out.add(c.entry.method);
        if (c.entry.method === 'GET') out.add('HEAD');
      }
      return [...out].sort();
    },
  };
}

const tables = new Map<Variant, RouteTable>();

/** The route table of `variant`, built at its first call and shared by every later one. */
export function routeTable(variant: Variant): RouteTable {
  let t = tables.get(variant);
  if (!t) tables.set(variant, (t = build(variant)));
  return t;
}

const MATCHED = Symbol('paylater-contract/server route match');

/** A request that carries its matches (set by `matchRequest`), per variant, for one path. */
interface Carrier {
  [MATCHED]?: { path: string; byVariant: { [V in Variant]?: RouteMatch | null } };
}

/**
 * The match of request `req` (method and `path`, its path without the query) in `variant`'s
 * table: made at the first call for the request and kept on it, so that every part the request
 * goes through (the failures-on-demand simulator, the router, the API log) matches it once.
 */
export function matchRequest(req: { method?: string | undefined }, path: string, variant: Variant, serves?: Serves): RouteMatch | null {
  const carrier = req as Carrier;
  let memo = carrier[MATCHED];
  if (!memo || memo.path !== path) carrier[MATCHED] = memo = { path, byVariant: {} };
  let m = memo.byVariant[variant];
  if (m === undefined) memo.byVariant[variant] = m = routeTable(variant).match(req.method ?? 'GET', path);
  // an operation the caller does not serve may hide one it does (a literal before a parameter)
  return !m || !serves || serves(m.entry) ? m : routeTable(variant).match(req.method ?? 'GET', path, serves);
}
