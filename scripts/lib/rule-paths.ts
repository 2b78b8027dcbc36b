/**
 * Files per rule, counted strictly: every hand-written file on a rule's path —
 * its spec files, the deciding function's file (the model's, for the contract's rules), each
 * `@guard` target, each server binding (`@binds`), each check (`@checks`) and the judge's
 * (`@judges <id>`: a function of `judge/`, or one of `model/` that judge/ calls). Lint keeps the list true: a file outside `model/` that
 * calls a rule's model function is on the rule's path, so it must carry a tag for the rule.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/** A tagged function: its file and name. */
interface Site {
  file: string;
  symbol: string;
}

/** The `.ts` files under `dir` (not declarations, not node_modules/dist/fixtures). */
export async function listTs(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist' && e.name !== 'fixtures') out.push(...(await listTs(root, rel)));
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/**
 * Where `@binds` (the server's bindings) and `@judges` (the judge's) tags are looked for. A judge
 * may be a function of `model/` that the judge (`judge/`, which the suite, the proxy and the HAR
 * reader all call) calls with what it observed: the rule is then interpreted in that one place, and
 * the judge's calling file only keeps its bounded memory, so it is not on the rule's path (lint
 * checks that judge/ calls it).
 */
export const BINDING_DIRS = ['reference-server', 'server'];
export const JUDGE_DIRS = ['judge', 'model'];
/** The folders whose production files may call a model function: each such file is on that rule's path. */
const CALLER_DIRS = ['reference-server', 'server', 'conformance', 'judge', 'proxy', 'recorded'];

interface Entry {
  id: string;
  spec: string[];
  enforcedBy: Site[];
  guards: Array<{ target: string }>;
  checkedBy: Site[];
  binds: Site[];
  judgedBy: Site[];
}

/** The hand-written files on a rule's path, each once: `spec/…` files first, then code files. */
export function filesOnPath(r: Entry): string[] {
  const spec = r.spec.map((l) => `spec/${l.split('#')[0]!.replace(/:\d+$/, '')}`);
  const code = [
    ...r.enforcedBy.map((s) => s.file),
    ...r.guards.map((g) => g.target.split(/:(?=[^:]+$)/)[0]!),
    ...r.binds.map((s) => s.file),
    ...r.checkedBy.map((s) => s.file),
    ...r.judgedBy.map((s) => s.file),
  ];
  return [...new Set([...spec, ...code])];
}

const callersOf = new Map<string, Promise<Array<{ file: string; code: string }>>>();
function productionCode(root: string): Promise<Array<{ file: string; code: string }>> {
  let c = callersOf.get(root);
  if (!c) {
    c = (async () => {
      const out: Array<{ file: string; code: string }> = [];
      for (const dir of CALLER_DIRS)
        for (const file of await listTs(root, dir)) {
          if (file.endsWith('.test.ts') || file.includes('/test-support/') || file.includes('/mutants/')) continue;
          const text = await readFile(path.join(root, file), 'utf8');
          // code only: comment lines and trailing comments do not call anything
          const code = text
            .split('\n')
            .filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l))
            .map((l) => l.replace(/\/\/.*$/, ''))
            .join('\n');
          out.push({ file, code });
        }
      return out;
    })();
    callersOf.set(root, c);
  }
  return c;
}

/** What lint reports about a rule's path: callers of its model function off the list, a judge in two files. */
export async function pathProblems(root: string, r: Entry & { files: string[] }): Promise<string[]> {
  const problems: string[] = [];
  const deciders: Site[] = r.enforcedBy.filter((d) => d.file.startsWith('model/') && d.symbol !== '?');
  for (const d of deciders) {
    const call = new RegExp(`(?<![\\w$])${d.symbol.replace(/\$/g, '\\$')}\\(`);
    for (const { file, code } of await productionCode(root))
      if (!r.files.includes(file) && call.test(code))
        problems.push(
          `rule ${r.id}: ${file} calls its model function ${d.symbol}, so it is on the rule's path: tag the caller (@binds in the server, @checks in the suite, @judges in the judge)`,
        );
  }
  // a judge outside judge/ is the judge's only if judge/ calls it (as a function or a method)
  const judgeCode = (await productionCode(root)).filter((f) => f.file.startsWith('judge/'));
  for (const j of r.judgedBy.filter((s) => !s.file.startsWith('judge/'))) {
    const call = new RegExp(`(?<![\\w$])${j.symbol.replace(/\$/g, '\\$')}\\(`);
    if (!judgeCode.some((f) => call.test(f.code)))
      problems.push(`rule ${r.id}: its judge ${j.file}:${j.symbol} lies outside judge/ and no file of judge/ calls it`);
  }
  const judgeFiles = new Set(r.judgedBy.map((s) => s.file));
  if (judgeFiles.size > 1) problems.push(`rule ${r.id}: judged in ${judgeFiles.size} files (${[...judgeFiles].join(', ')}); one judge`);
  return problems;
}
