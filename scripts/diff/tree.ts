/**
 * The contract trees a diff compares: the working tree, or `spec/` + `redocly.yaml` as committed at a
 * git ref, extracted with `git archive` into a temporary folder.
 *
 * The default base is the merge base of `HEAD` with `main` (else `origin/main`): on a branch that
 * is the commit the branch started from; on `main` itself (a clean CI checkout) it is `HEAD`, so
 * the diff compares the working tree with the last commit — no change on a clean checkout.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface ContractTree {
  /** The folder that holds `spec/` (and `redocly.yaml`). */
  dir: string;
  /** What the tree is, for reports: `working tree` or the ref. */
  label: string;
  /** Removes a temporary extraction (nothing for the working tree). */
  dispose(): void;
}

function git(cwd: string, args: string[], input?: Buffer): { ok: boolean; out: string; raw: Buffer; err: string } {
  const run = spawnSync('git', args, { cwd, input, maxBuffer: 256 * 1024 * 1024 });
  return {
    ok: run.status === 0,
    out: String(run.stdout ?? '').trim(),
    raw: run.stdout ?? Buffer.alloc(0),
    err: String(run.stderr ?? '').trim(),
  };
}

export function isGitRepo(dir: string): boolean {
  return git(dir, ['rev-parse', '--is-inside-work-tree']).out === 'true';
}

/** The merge base of HEAD with `main` (or `origin/main`); `HEAD` when neither exists. */
export function defaultBaseRef(dir: string): string {
  for (const branch of ['main', 'origin/main']) {
    const base = git(dir, ['merge-base', 'HEAD', branch]);
    if (base.ok && base.out) return base.out;
  }
  return 'HEAD';
}

/** The commit a ref names, or an error message. */
export function resolveRef(dir: string, ref: string): { commit: string } | { error: string } {
  const run = git(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  return run.ok && run.out ? { commit: run.out } : { error: `not a commit: ${ref}` };
}

export function workingTree(dir: string): ContractTree {
  return { dir, label: 'working tree', dispose: () => undefined };
}

/** `spec/` and `redocly.yaml` as committed at `ref` (of the repository at `repoDir`), in a temp folder. */
export function treeAtRef(repoDir: string, ref: string): ContractTree | { error: string } {
  const resolved = resolveRef(repoDir, ref);
  if ('error' in resolved) return resolved;
  const prefix = git(repoDir, ['rev-parse', '--show-prefix']).out;
  const paths = ['spec', 'redocly.yaml'].map((p) => `${prefix}${p}`);
  const listed = git(repoDir, ['ls-tree', '--name-only', resolved.commit, '--', ...paths])
    .out.split('\n')
    .filter(Boolean);
  if (!listed.some((p) => p.endsWith('spec'))) return { error: `${ref} has no spec/` };
  const archive = git(repoDir, ['archive', '--format=tar', resolved.commit, '--', ...listed]);
  if (!archive.ok) return { error: `git archive ${ref}: ${archive.err}` };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'paylater-diff-'));
  const untar = spawnSync('tar', ['-x', '-C', tmp], { input: archive.raw });
  if (untar.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    return { error: `tar: ${String(untar.stderr)}` };
  }
  return {
    dir: path.join(tmp, prefix),
    label: ref === resolved.commit ? ref.slice(0, 12) : `${ref} (${resolved.commit.slice(0, 12)})`,
    dispose: () => rmSync(tmp, { recursive: true, force: true }),
  };
}
