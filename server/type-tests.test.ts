/**
 * The generated handler types refuse what the document does not declare: each
 * `@ts-expect-error` of the fixtures in server/type-tests/, taken away, leaves exactly one
 * compile error on the line it marked, and the fixtures as written compile without error
 * (a handler of every Variant 1 operation among them).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIXTURES = ['server/type-tests/handlers.v1.ts', 'server/type-tests/handlers.v2.ts'].map((f) => path.join(ROOT, f));
const DIRECTIVE = /^\s*\/\/ @ts-expect-error .*$/;

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

/** The diagnostics of `files`, with `replace` standing in for some files' text. */
function diagnostics(replace: Map<string, string>): ts.Diagnostic[] {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => replace.get(path.resolve(f)) ?? read(f);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, onError) => {
    const text = replace.get(path.resolve(f));
    return text !== undefined ? ts.createSourceFile(f, text, lang) : getSourceFile(f, lang, onError);
  };
  const program = ts.createProgram(FIXTURES, options, host);
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file && FIXTURES.includes(path.resolve(d.file.fileName)));
}

function lineOf(d: ts.Diagnostic): string {
  const { line } = d.file!.getLineAndCharacterOfPosition(d.start!);
  return `${path.basename(d.file!.fileName)}:${line + 1}`;
}

describe('generated handler types (generated/v<n>/server.ts)', () => {
  it('the fixtures compile as written', () => {
    expect(diagnostics(new Map()).map((d) => `${lineOf(d)} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)).toEqual([]);
  }, 60_000);

  it('each @ts-expect-error marks a real error: without the directives, exactly the marked lines fail', () => {
    const replace = new Map<string, string>();
    const expected: string[] = [];
    for (const f of FIXTURES) {
      const lines = readFileSync(f, 'utf8').split('\n');
      lines.forEach((l, i) => {
        if (DIRECTIVE.test(l)) expected.push(`${path.basename(f)}:${i + 2}`);
      });
      replace.set(f, lines.map((l) => (DIRECTIVE.test(l) ? '' : l)).join('\n'));
    }
    expect(expected.length).toBeGreaterThanOrEqual(8);
    const found = [...new Set(diagnostics(replace).map(lineOf))].sort();
    expect(found).toEqual(expected.sort());
  }, 60_000);
});
