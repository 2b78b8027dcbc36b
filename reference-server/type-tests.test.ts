/**
 * The reference server's handlers are typed by the contract (handlers/context.ts, from the
 * generated `HandlersOf<…>`): the handlers compile as written, and each mistake below, made in a
 * real handler (an undeclared status, a body of the wrong shape, a body missing a required
 * member, a request member the operation does not declare), fails `tsc` there: on its line or
 * on the first line of the handler holding it (where tsc reports a handler whose answer does not
 * match), and nowhere else.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const HANDLERS = path.join(ROOT, 'reference-server/handlers');
const ENTRY = path.join(HANDLERS, 'index.ts');

/** [handler file, text in it, the mistake put in its place]. */
const MISTAKES: Array<[file: string, from: string, to: string]> = [
  // an undeclared status
  [
    'partner.ts',
    'return { status: 200, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };\n  },\n\n  async getPartnerTransactionByVendorReference',
    'return { status: 299, body: partnerView(await readFresh(core, tx), core.view(ctx.merchant)) };\n  },\n\n  async getPartnerTransactionByVendorReference',
  ],
  // a member of the wrong type
  [
    'checkout.ts',
    'body: verificationView(await readFresh(core, tx))',
    "body: { ...verificationView(await readFresh(core, tx)), amount: '12.50' }",
  ],
  // a required member missing
  ['service.ts', "body: { status: 'ok' }", "body: { state: 'ok' }"],
  // a declared status with another status's body
  [
    'checkout.ts',
    'return { status: 200, body: statusRecordView(t, core.view(ctx.merchant)) };',
    'return { status: 404, body: statusRecordView(t, core.view(ctx.merchant)) };',
  ],
  // a request member the operation does not declare
  ['sandbox.ts', 'const id = ctx.params.deliveryId;', 'const id = ctx.params.transactionId;'],
];

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

/** The diagnostics in reference-server/handlers/ of a program rooted at handlers/index.ts, `replace` standing in for some files' text. */
function diagnostics(replace: Map<string, string>): string[] {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, onError) => {
    const text = replace.get(path.resolve(f));
    return text !== undefined ? ts.createSourceFile(f, text, lang) : getSourceFile(f, lang, onError);
  };
  const program = ts.createProgram([ENTRY], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && path.resolve(d.file.fileName).startsWith(HANDLERS))
    .map((d) => `${path.basename(d.file!.fileName)}:${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}`);
}

describe("the reference server's handlers, typed by the contract", () => {
  it('compile as written; each mistake fails in its handler, and nothing else does', () => {
    expect(diagnostics(new Map())).toEqual([]);
    const texts = new Map<string, string>();
    /** Per mistake, where its error may be reported: its line, and its handler's first line. */
    const expected: string[][] = [];
    for (const [file, from, to] of MISTAKES) {
      const f = path.join(HANDLERS, file);
      const text = texts.get(f) ?? readFileSync(f, 'utf8');
      const at = text.indexOf(from);
      expect(at, `${file}: ${from}`).toBeGreaterThanOrEqual(0);
      expect(text.indexOf(from, at + 1), `${file}: ${from} is not unique`).toBe(-1);
      texts.set(f, text.slice(0, at) + to + text.slice(at + from.length));
      const before = text.slice(0, at).split('\n');
      const handlerLine = before.findLastIndex((l) => /^ {2}(async )?\w+(\(|: )/.test(l)) + 1;
      expect(handlerLine, `${file}: the handler of ${from}`).toBeGreaterThan(0);
      expected.push([`${file}:${before.length}`, `${file}:${handlerLine}`]);
    }
    const found = new Set(diagnostics(texts));
    for (const places of expected)
      expect(
        places.some((p) => found.has(p)),
        places.join(' or '),
      ).toBe(true);
    expect([...found].filter((p) => !expected.flat().includes(p))).toEqual([]);
  }, 120_000);
});
