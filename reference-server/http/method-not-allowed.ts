/**
 * 405 with `Allow` for the page routes (the hosted checkout page, the SDK files, the demo shop,
 * the dashboard, the landing page, the docs), as the API router answers for its operations
 * (ADR-024): a path some route serves, called with a method none serves there.
 */
import type express from 'express';
import { methodNotAllowed, sendError } from '../../server/errors.ts';

/** What an express router's stack holds (the `router` package): routes with their methods, matched by path. */
interface Layer {
  route?: { methods: Record<string, boolean | undefined> };
  match(path: string): unknown;
}

/**
 * The methods `router`'s routes serve at `path`, sorted (HEAD with GET, as express answers it);
 * null when a route there takes every method (`router.all`).
 */
export function routeMethods(router: express.Router, path: string): string[] | null {
  const out = new Set<string>();
  for (const layer of router.stack as unknown as Layer[]) {
    if (!layer.route || !layer.match(path)) continue;
    for (const [m, on] of Object.entries(layer.route.methods)) {
      if (!on) continue;
      if (m === '_all') return null;
      out.add(m.toUpperCase());
      if (m === 'get') out.add('HEAD');
    }
  }
  return [...out].sort();
}

/**
 * The last middleware of a page router: a request that reached it on a path one of the router's
 * routes serves, with a method none serves there, answers 405 with `Allow`; anything else
 * goes on (404 when nothing else serves it). OPTIONS is express's own (it lists `Allow`).
 */
export function answerMethodNotAllowed(router: express.Router): express.RequestHandler {
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    const allow = routeMethods(router, req.path);
    if (!allow || allow.length === 0 || allow.includes(req.method)) return next();
    sendError(res, methodNotAllowed(req.method, req.path, allow));
  };
}

/** The same for a read-only tree (the docs): `exists(path)` tells whether it serves `path` at all. */
export function readOnlyTree(exists: (path: string) => boolean): express.RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || !exists(req.path)) return next();
    sendError(res, methodNotAllowed(req.method, req.originalUrl.split('?')[0]!, ['GET', 'HEAD']));
  };
}
