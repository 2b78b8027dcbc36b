/**
 * express-openapi-validator 5.6 finds the operation of each request by compiling every
 * route of the document with `path-to-regexp` on every request (openapi.metadata.js
 * `lookupRoute`): ~20 regex compilations per request. `pathToRegexp` is a pure function of
 * (path, options), so we memoise it on the module instance the validator uses. Results are
 * only read (the regexps have no `g` flag, so they carry no state). Measured by
 * `npm run bench` (figure 1).
 */
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => unknown;

const SIMPLE_OPTIONS = new Set(['sensitive', 'strict', 'end', 'trailing', 'delimiter']);
let installed = false;
export function memoisePathToRegexp(): void {
  if (installed) return;
  installed = true;
  const req = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const mod = req('path-to-regexp') as { pathToRegexp?: PathToRegexp };
  const original = mod.pathToRegexp;
  if (typeof original !== 'function') return;
  const cache = new Map<string, unknown>();
  mod.pathToRegexp = (path, options) => {
    if (typeof path !== 'string' || (options && Object.keys(options).some((k) => !SIMPLE_OPTIONS.has(k)))) return original(path, options);
    const key = options ? `${path}\u0000${options.sensitive}\u0000${options.strict}\u0000${options.end}\u0000${options.trailing}\u0000${options.delimiter}` : path;
    let v = cache.get(key);
    if (v === undefined) {
      v = original(path, options);
      if (cache.size < 10_000) cache.set(key, v);
    }
    return v;
  };
}
