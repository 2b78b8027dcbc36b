/**
 * `packageRoot()`: the folder holding this package's package.json. Modules find their assets
 * (the built browser bundles and docs in `dist/`) from it, so the same code works from the
 * TypeScript sources (`lib/`) and from the compiled JavaScript (`dist/js/lib/`), in this
 * repository or installed under `node_modules/paylater-contract`. Node only.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'paylater-contract';
let cached: string | undefined;

function isThisPackage(dir: string): boolean {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) return false;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isThisPackage(dir)) return (cached = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${PACKAGE_NAME}: no package.json named ${PACKAGE_NAME} above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** `<package>/dist`: where `npm run build` and `npm run docs` write the browser bundles and the docs. */
export function assetsDir(): string {
  return path.join(packageRoot(), 'dist');
}
