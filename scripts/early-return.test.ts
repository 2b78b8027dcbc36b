/**
 * A test that returns before asserting anything passes green with zero assertions: no `it`/`test` body of the repository may return from an `if` before its first
 * `expect`. A test that cannot run where it is started says so by skipping itself through vitest's test context, with its reason.
 * (An `if (…) return;` after an `expect` that already failed for the other branch, used to narrow
 * a type, is allowed.)
 */
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './lib/paths.ts';

/** `file:line` of each early return of a test body in `source`. */
function earlyReturns(file: string, source: string): string[] {
  const src = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const returns = (n: ts.Node): boolean => ts.isReturnStatement(n) || (!ts.isFunctionLike(n) && ts.forEachChild(n, returns) === true);
  const expects = (n: ts.Node): boolean =>
    (ts.isIdentifier(n) && n.text === 'expect') || (!ts.isFunctionLike(n) && ts.forEachChild(n, expects) === true);
  const visit = (n: ts.Node): void => {
    if (
      ts.isCallExpression(n) &&
      /^(it|test)(\.(each|for|concurrent|sequential|fails))*$/.test(n.expression.getText(src).replace(/\(.*$/s, ''))
    ) {
      for (const fn of n.arguments) {
        if (!(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) || !ts.isBlock(fn.body)) continue;
        for (const st of fn.body.statements) {
          if (expects(st)) break;
          if ((ts.isIfStatement(st) && returns(st)) || ts.isReturnStatement(st)) {
            if (ts.isReturnStatement(st) && st.expression && st === fn.body.statements.at(-1)) continue; // `return promise`: the body's result
            found.push(`${file}:${src.getLineAndCharacterOfPosition(st.getStart(src)).line + 1}`);
          }
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found;
}

describe('tests never return before asserting', () => {
  it('finds an early return, and not one after an expect or a final return', () => {
    const source = `
it('a', async () => {
  if (process.env.X) return;
  expect(1).toBe(1);
});
it('b', async () => {
  expect(ev.event).toBe('x');
  if (ev.event !== 'x') return;
  expect(ev.data).toBeDefined();
});
it('c', () => {
  const p = work();
  return expect(p).resolves.toBe(1);
});
test('d', () => {
  return;
});`;
    expect(earlyReturns('x.test.ts', source)).toEqual(['x.test.ts:3', 'x.test.ts:16']);
  });

  it('no test file of the repository has one', async () => {
    const files = execFileSync('git', ['ls-files', '*.test.ts'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    const found: string[] = [];
    for (const f of files) found.push(...earlyReturns(f, await readFile(path.join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });
});
