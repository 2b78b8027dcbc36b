/**
 * The Node-version gate of the `paylater` command: the package needs a Node whose `node:sqlite`
 * loads without a flag (22.13.0 on the 22 line, 23.4.0 on the 23 line, per Node's changelog), as
 * package.json `engines.node` states. An older Node would die on the import with a stack trace
 * (ERR_UNKNOWN_BUILTIN_MODULE); the gate says instead, in one line, which Node is needed and which
 * one was found. It imports nothing that an old Node lacks: it runs before the import graph of
 * any command loads (ESM links every static import, node:sqlite included, before running a line).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../lib/package-root.ts';

type Version = [number, number, number];

function parse(v: string): Version {
  const [major = 0, minor = 0, patch = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  return [major, minor, patch];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * True when `version` satisfies `range`, in the subset of npm's range grammar `engines` uses:
 * alternatives joined by `||`, each a space-separated list of `>=`, `>`, `<=`, `<` or `=` comparators.
 */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((comparator) => {
        const m = /^(>=|<=|>|<|=)?\s*v?([\d.]+)$/.exec(comparator);
        if (!m) throw new Error(`engines.node: cannot read the comparator '${comparator}' of '${range}'`);
        const c = compare(v, parse(m[2]!));
        switch (m[1]) {
          case '>=':
            return c >= 0;
          case '>':
            return c > 0;
          case '<=':
            return c <= 0;
          case '<':
            return c < 0;
          default:
            return c === 0;
        }
      }),
  );
}

/** The package's `engines.node` (package.json: one place for the floor). */
export function nodeRange(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { engines: { node: string } };
  return pkg.engines.node;
}

/** The one line to print when this Node is too old for the package, or null when it will do. */
export function unsupportedNode(version = process.versions.node): string | null {
  const range = nodeRange();
  if (satisfies(version, range)) return null;
  return `paylater-contract needs Node ${range} (node:sqlite without a flag); this is Node v${version} (${process.execPath})`;
}

/**
 * For an entry point that cannot run on an older Node (the reference server needs `node:sqlite`):
 * prints the one line and exits 2 there, instead of a stack trace from deep in the store.
 */
export function exitOnUnsupportedNode(): void {
  const refused = unsupportedNode();
  if (refused === null) return;
  process.stderr.write(`${refused}\n`);
  process.exit(2);
}
