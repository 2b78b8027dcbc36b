/**
 * express-openapi-validator 5.6 finds the operation of each request by compiling every
 * route of the document with `path-to-regexp` on every request (openapi.metadata.js
 * `lookupRoute`): ~20 regex compilations per request. `pathToRegexp` is a pure function of
 * (path, options), so we memoise it on the module instance the validator uses. Results are
 * only read (the regexps have no `g` flag, so they carry no state). The lookup allocates
 * nothing (no composite key string per call: the validator calls it once per route per
 * request, so a key string was ~20 garbage strings per request). Measured by
 * `npm run bench` (figure 1).
 */
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => unknown;

const SIMPLE_OPTIONS = new Set(['sensitive', 'strict', 'end', 'trailing', 'delimiter']);

interface Entry {
  sensitive: unknown;
  strict: unknown;
  end: unknown;
  trailing: unknown;
  delimiter: unknown;
  value: unknown;
}

let installed = false;
export function memoisePathToRegexp(): void {
  if (installed) return;
  installed = true;
  const req = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const mod = req('path-to-regexp') as { pathToRegexp?: PathToRegexp };
  const original = mod.pathToRegexp;
  if (typeof original !== 'function') return;
  const cache = new Map<string, Entry[]>();
  let size = 0;
  mod.pathToRegexp = (path, options) => {
    if (typeof path !== 'string') return original(path, options);
    if (options) for (const k in options) if (!SIMPLE_OPTIONS.has(k)) return original(path, options);
    const sensitive = options?.sensitive;
    const strict = options?.strict;
    const end = options?.end;
    const trailing = options?.trailing;
    const delimiter = options?.delimiter;
    let list = cache.get(path);
    if (list) {
      for (const e of list) {
        if (e.sensitive === sensitive && e.strict === strict && e.end === end && e.trailing === trailing && e.delimiter === delimiter) return e.value;
      }
    }
    const value = original(path, options);
    if (size < 10_000) {
      if (!list) cache.set(path, (list = []));
      list.push({ sensitive, strict, end, trailing, delimiter, value });
      size++;
    }
    return value;
  };
}
