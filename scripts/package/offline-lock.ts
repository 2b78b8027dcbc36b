/**
 * A package-lock.json for a fresh project that installs this package's tarball, pinned to the
 * versions this repository's own lock resolved: `npm ci --offline` then installs it from the
 * local npm cache alone (after `npm ci` here, every tarball it needs is cached; the registry's
 * package listings are not, so a plain `npm install --offline <tgz>` cannot resolve ranges).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

export interface PackageLock {
  name: string;
  version: string;
  lockfileVersion: number;
  requires: boolean;
  packages: Record<string, LockEntry>;
}

/** Where Node's resolution finds `name` from the lock entry at `from` ('' is the root), or null. */
export function resolveInLock(packages: Record<string, LockEntry>, from: string, name: string): string | null {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The lock entries `roots` need, transitively (optional and optional-peer ones when the lock has them). */
export function closureOf(packages: Record<string, LockEntry>, roots: readonly string[]): Map<string, LockEntry> {
  const out = new Map<string, LockEntry>();
  const queue: Array<[string, string]> = roots.map((r) => ['', r]);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, name] = next;
    const at = resolveInLock(packages, from, name);
    if (at === null) {
      throw new Error(`${name} (needed by ${from || 'the root'}) is not in the lock`);
    }
    if (out.has(at)) continue;
    const entry = packages[at]!;
    if (entry.link) throw new Error(`${at} is a link: not installable from the cache`);
    out.set(at, entry);
    const required = { ...entry.dependencies, ...entry.peerDependencies };
    for (const dep of Object.keys(required)) {
      if (entry.peerDependenciesMeta?.[dep]?.optional && !resolveInLock(packages, at, dep)) continue;
      queue.push([at, dep]);
    }
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
      if (resolveInLock(packages, at, dep)) queue.push([at, dep]);
    }
  }
  return out;
}

export interface ConsumerProject {
  packageJson: Record<string, unknown>;
  lock: PackageLock;
}

/**
 * The consumer's package.json and lock: `paylater-contract` from `tarball` (relative to the
 * project), its dependencies and `devDependencies` (names from this repository's lock, e.g.
 * typescript, @types/node) at this repository's versions.
 */
export function consumerProject(
  repoLockFile: string,
  tarball: { file: string; relative: string },
  devDependencies: readonly string[],
): ConsumerProject {
  const repo = JSON.parse(readFileSync(repoLockFile, 'utf8')) as PackageLock;
  const self = repo.packages['']!;
  const runtime = Object.keys(self.dependencies ?? {});
  /** The repository's dev/peer flags say nothing about the consumer's tree: npm works them out again. */
  const strip = (entry: LockEntry): LockEntry =>
    Object.fromEntries(Object.entries(entry).filter(([k]) => !['dev', 'devOptional', 'peer'].includes(k)));
  const packages: Record<string, LockEntry> = {};
  for (const [at, entry] of closureOf(repo.packages, [...runtime, ...devDependencies])) {
    packages[at] = strip(entry);
  }
  const devVersions = Object.fromEntries(devDependencies.map((d) => [d, packages[`node_modules/${d}`]?.version ?? '*']));
  const spec = `file:${tarball.relative}`;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball.file)).digest('base64')}`;
  packages['node_modules/paylater-contract'] = {
    version: String(self.version ?? repo.version),
    resolved: spec,
    integrity,
    license: self.license,
    dependencies: self.dependencies,
    bin: self.bin,
    engines: self.engines,
  };
  const root = { name: 'consumer', version: '1.0.0', dependencies: { 'paylater-contract': spec }, devDependencies: devVersions };
  packages[''] = root;
  return {
    packageJson: { ...root, private: true, type: 'module' },
    lock: { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages },
  };
}
