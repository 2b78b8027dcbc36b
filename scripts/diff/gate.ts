/**
 * The contract's version gate, run by `npm run lint`: against the base (default: the merge base
 * of HEAD with `main`, see tree.ts), each document's `info.version` is bumped to match the impact
 * of its changes, CHANGELOG.md holds the section of the new versions as `paylater diff --changelog`
 * writes it, and no guide, description or example still mentions a name the changes removed.
 * On a clean checkout of `main` the base is HEAD: no change, nothing to bump, the gate passes.
 * Outside a git repository (e.g. an installed package) there is no base and the gate is skipped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { diffTrees, loadTree, type DiffResult } from './engine.ts';
import { staleMentions } from './mentions.ts';
import { changelogUpToDate } from './report.ts';
import { defaultBaseRef, isGitRepo, treeAtRef, workingTree } from './tree.ts';

export interface GateResult {
  /** One line for the lint log. */
  summary: string;
  problems: string[];
  diff?: DiffResult;
}

export function readChangelog(dir: string): string | undefined {
  try {
    return readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8');
  } catch {
    return undefined;
  }
}

export async function versionGate(repoDir: string, baseRef?: string): Promise<GateResult> {
  if (!isGitRepo(repoDir)) return { summary: 'version gate: skipped (not a git checkout, no base to compare with)', problems: [] };
  const ref = baseRef ?? defaultBaseRef(repoDir);
  const baseTree = treeAtRef(repoDir, ref);
  if ('error' in baseTree) return { summary: `version gate: no base (${baseTree.error})`, problems: [`version gate: ${baseTree.error}`] };
  try {
    const [base, rev] = [await loadTree(baseTree), await loadTree(workingTree(repoDir))];
    const diff = await diffTrees(base, rev);
    const problems = [...diff.errors.map((e) => `paylater diff: ${e}`)];
    for (const d of diff.documents) {
      if (!d.bumped)
        problems.push(
          `${d.key}: info.version is ${d.revisionVersion}, but its ${d.impact} changes against ${diff.base} need ${d.requiredVersion} or later (see \`npm run diff\`)`,
        );
    }
    const changed = diff.documents.some((d) => d.impact !== 'none');
    if (changed && !changelogUpToDate(readChangelog(repoDir), diff)) {
      problems.push(
        'CHANGELOG.md does not hold the section of the current versions as the diff says it: run `npx paylater diff --changelog` and commit it',
      );
    }
    for (const m of staleMentions(diff.changes, rev.docs, repoDir)) {
      problems.push(`${m.place}: still mentions \`${m.name}\`, which the contract no longer has`);
    }
    const impacts = diff.documents
      .map((d) => `${d.key} ${d.impact === 'none' ? 'unchanged' : `${d.impact} → ${d.revisionVersion}`}`)
      .join(', ');
    return { summary: `version gate against ${diff.base}: ${impacts}; ${problems.length} problems`, problems, diff };
  } finally {
    baseTree.dispose();
  }
}
