/**
 * `paylater diff [--base REF] [--format text|json|markdown] [--changelog]` (and `npm run diff`):
 * the contract's changes between REF and the working tree, rated for version bumps.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../lib/paths.ts';
import { diffTrees, loadTree } from './engine.ts';
import { readChangelog } from './gate.ts';
import { changelogHeading, renderJson, renderMarkdown, renderText, withChangelogSection } from './report.ts';
import { defaultBaseRef, treeAtRef, workingTree } from './tree.ts';

export const DIFF_USAGE = `Usage: paylater diff [--base REF] [--format text|json|markdown] [--changelog] [--check-version]

Compares the contract of the working tree (spec/: both variants' OpenAPI documents and the
AsyncAPI document) with the one committed at REF, using Redocly's diff (recommended rules) and
the contract's own rules. Each change shows its impact (major/minor/patch), its side (request,
response, event, behaviour, decision), its place in spec/ and whom it breaks.

Options:
  --base REF         what to compare with (default: the merge base of HEAD with main, i.e. where
                     the branch started; on main itself HEAD, so only uncommitted edits show)
  --format FORMAT    text (default), json or markdown
  --changelog        write the section of the current versions into CHANGELOG.md
  --check-version    exit 1 when a document's info.version is not bumped to match its changes
  -h, --help         this help
`;

export async function runDiff(
  argv: string[],
  repoDir: string = ROOT,
  write: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        base: { type: 'string' },
        format: { type: 'string', default: 'text' },
        changelog: { type: 'boolean', default: false },
        'check-version': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    process.stderr.write(`paylater diff: ${(e as Error).message}\n${DIFF_USAGE}`);
    return 2;
  }
  if (values.help) {
    write(DIFF_USAGE);
    return 0;
  }
  const render = { text: renderText, json: renderJson, markdown: renderMarkdown }[values.format as 'text'];
  if (!render) {
    process.stderr.write(`paylater diff: unknown format '${values.format}'\n${DIFF_USAGE}`);
    return 2;
  }
  const baseTree = treeAtRef(repoDir, values.base ?? defaultBaseRef(repoDir));
  if ('error' in baseTree) {
    process.stderr.write(`paylater diff: ${baseTree.error}\n`);
    return 2;
  }
  try {
    const result = await diffTrees(await loadTree(baseTree), await loadTree(workingTree(repoDir)));
    write(render(result));
    if (values.changelog) {
      writeFileSync(path.join(repoDir, 'CHANGELOG.md'), withChangelogSection(readChangelog(repoDir), result));
      process.stderr.write(`CHANGELOG.md: section "${changelogHeading(result).slice(3)}" written\n`);
    }
    if (result.errors.length > 0) return 1;
    if (values['check-version'] && result.documents.some((d) => !d.bumped)) return 1;
    return 0;
  } finally {
    baseTree.dispose();
  }
}
