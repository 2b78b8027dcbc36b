/**
 * Guides and descriptions follow the contract: a field, enum value, code, header or event that the
 * diff says is gone (and that the revision has nowhere else) must not be mentioned any more in the
 * guides and docs of `spec/` (Markdown), nor in a description or example of its YAML files.
 * spec/DECISIONS.md is left out: a decision may tell what was before.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ContractDocument } from './documents.ts';
import { isJson, textOf } from '../../lib/json.ts';
import type { Change } from './model.ts';

/** Every name the resolved documents still define: object keys and the values of `enum`, `const`, `name` (examples and prose aside). */
const PROSE = new Set(['example', 'examples', 'description', 'summary', 'title']);

function namesIn(docs: readonly ContractDocument[]): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown, parent = ''): void => {
    if (Array.isArray(node)) node.forEach((n) => walk(n));
    else if (isJson(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (PROSE.has(k) && parent !== 'properties') continue;
        names.add(k);
        if (k === 'enum' && Array.isArray(v)) v.forEach((x) => names.add(String(x)));
        if ((k === 'const' || k === 'name') && typeof v !== 'object') names.add(textOf(v));
        walk(v, k);
      }
    }
  };
  docs.forEach((d) => walk(d.resolved));
  return names;
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(full));
    else if (/\.(md|ya?ml)$/.test(e.name) && e.name !== 'DECISIONS.md') out.push(full);
  }
  return out.sort();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A mention: quoted or in backticks; bare too when the name cannot be an ordinary word (camelCase, CODE_CASE, dotted). */
function mentionPattern(name: string): RegExp {
  const quoted = `[\`"']${escape(name)}[\`"']`;
  const distinctive = /[A-Z_.]/.test(name) && name.length >= 4;
  return new RegExp(distinctive ? `${quoted}|(?<![\\w.])${escape(name)}(?![\\w])` : quoted);
}

export interface StaleMention {
  name: string;
  place: string;
}

/** Mentions in the revision's `spec/` of names that the changes removed. */
export function staleMentions(changes: readonly Change[], revisionDocs: readonly ContractDocument[], revisionDir: string): StaleMention[] {
  const still = namesIn(revisionDocs);
  const gone = [...new Set(changes.flatMap((c) => c.removedNames ?? []))].filter((n) => n && !still.has(n));
  if (gone.length === 0) return [];
  const out: StaleMention[] = [];
  const specDir = path.join(revisionDir, 'spec');
  for (const file of files(specDir)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const name of gone) {
      const re = mentionPattern(name);
      lines.forEach((line, i) => {
        if (re.test(line)) out.push({ name, place: `${path.relative(revisionDir, file).split(path.sep).join('/')}:${i + 1}` });
      });
    }
  }
  return out;
}
