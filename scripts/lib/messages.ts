/**
 * One source for error messages: the server's catalogue (lib/error-messages.ts) is what the
 * documents may show.
 *  - every error example of the spec matches a template of its code in the catalogue;
 *  - every error body quoted in the guides and READMEs (`"code": …, "message": …`) matches a
 *    template of its code, or, for a code the catalogue does not template (schema
 *    validation), equals one of the spec's examples of that code (a guide read with the facts it
 *    quotes as `{{file#/pointer}}` filled in, each naming a number or string of spec/);
 *  - the README links only files inside the repository (or the local server).
 * Each check returns human-readable problems; an empty list means consistent.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { matchesCatalogue } from '../../lib/error-messages.ts';
import { ROOT, SPEC_DIR } from './paths.ts';
import { fillSpecValues } from './rule-spec.ts';

type Json = Record<string, unknown>;

/** Every `{ error: { code, message } }` example value in a bundled document, with where it is. */
export function errorExamples(doc: Json): Array<{ where: string; code: string; message: string }> {
  const out: Array<{ where: string; code: string; message: string }> = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${where}/${i}`));
    else if (node && typeof node === 'object') {
      const error = ((node as Json).value as Json | undefined)?.error as Json | undefined;
      if (error && typeof error.code === 'string' && typeof error.message === 'string')
        out.push({ where, code: error.code, message: error.message });
      for (const [k, v] of Object.entries(node as Json)) walk(v, `${where}/${k}`);
    }
  };
  walk(doc.paths, '#/paths');
  walk(doc.components, '#/components');
  return out;
}

export function checkExampleMessages(variant: number, doc: Json): string[] {
  return errorExamples(doc)
    .filter((e) => matchesCatalogue(e.code, e.message) === false)
    .map(
      (e) =>
        `Variant ${variant} ${e.where}: example ${e.code} message "${e.message}" is not a message the server sends (lib/error-messages.ts)`,
    );
}

/** The Markdown files that show error bodies or quote facts to merchants: the guides, the decisions and every README. */
async function documentFiles(): Promise<string[]> {
  const guides = (await readdir(path.join(SPEC_DIR, 'guides')))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(SPEC_DIR, 'guides', f));
  guides.push(path.join(SPEC_DIR, 'DECISIONS.md'));
  const readmes: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.') || e.name === 'dist') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name === 'README.md') readmes.push(p);
    }
  };
  await walk(ROOT);
  return [...guides, ...readmes];
}

const ERROR_BODY = /"code"\s*:\s*"([A-Z_]+)"\s*,\s*"message"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/** `docs`: the bundled documents of both variants (their examples are the fallback catalogue). */
export async function checkDocumentMessages(docs: Json[], files?: Array<{ rel: string; text: string }>): Promise<string[]> {
  const examples = new Map<string, Set<string>>();
  for (const d of docs)
    for (const e of errorExamples(d)) (examples.get(e.code) ?? examples.set(e.code, new Set()).get(e.code)!).add(e.message);
  const problems: string[] = [];
  // a guide quotes facts as {{file#/pointer}} (ADR-086): its bodies are checked as the docs show them
  const read = async (f: string) => {
    const { text, unresolved } = await fillSpecValues(ROOT, await readFile(f, 'utf8'));
    for (const u of unresolved) problems.push(`${path.relative(ROOT, f)}: {{${u}}} names no number or string in spec/`);
    return { rel: path.relative(ROOT, f), text };
  };
  const inputs = files ?? (await Promise.all((await documentFiles()).map(read)));
  for (const { rel, text } of inputs) {
    for (const m of text.matchAll(ERROR_BODY)) {
      const code = m[1]!;
      const message = JSON.parse(`"${m[2]!}"`) as string;
      const line = text.slice(0, m.index).split('\n').length;
      const ok = matchesCatalogue(code, message) ?? examples.get(code)?.has(message) ?? false;
      if (!ok)
        problems.push(
          `${rel}:${line}: ${code} message "${message}" is not a message the server sends (lib/error-messages.ts or the spec's examples of ${code})`,
        );
    }
  }
  return problems;
}

/**
 * Links of one Markdown file of the repository (`rel`, e.g. `README.md` or `docs/merchants.md`):
 * a relative target, resolved from the file's folder, must be a file of the repository; an
 * absolute one only the local server.
 */
export function linkProblems(rel: string, text: string): string[] {
  const problems: string[] = [];
  const dir = path.dirname(path.join(ROOT, rel));
  for (const m of text.matchAll(/\]\(([^)\s]+)\)|<(https?:\/\/[^>]+)>/g)) {
    const target = (m[1] ?? m[2])!;
    if (/^https?:\/\//.test(target)) {
      if (!/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(target)) problems.push(`${rel}: link ${target} leaves the repository`);
      continue;
    }
    if (target.startsWith('#')) continue;
    const file = path.resolve(dir, target.split('#')[0]!);
    if (!file.startsWith(ROOT + path.sep) || !existsSync(file)) problems.push(`${rel}: link ${target} is not a file of the repository`);
  }
  return problems;
}

/** Links of README.md: a relative target must be a file of the repository; an absolute one only the local server. */
export async function checkReadmeLinks(text?: string): Promise<string[]> {
  return linkProblems('README.md', text ?? (await readFile(path.join(ROOT, 'README.md'), 'utf8')));
}

/** Links of every page under docs/, as `linkProblems` checks them. */
export async function checkDocsLinks(): Promise<string[]> {
  const pages = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  const problems: string[] = [];
  for (const f of pages) problems.push(...linkProblems(`docs/${f}`, await readFile(path.join(ROOT, 'docs', f), 'utf8')));
  return problems;
}
