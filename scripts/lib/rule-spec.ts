/**
 * What the rule index reads from spec/: the rules' type, rules.yaml's shape, the decisions of
 * DECISIONS.md with their marks, and `file#/pointer` locations and values (split from rules.ts).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { specTable } from './spec-tables.ts';

export interface Rule {
  id: string;
  /** The rule in the seed's words, or the decision's title. */
  text: string;
  kind: 'seed' | 'decision';
  /** Spec locations: `file` under spec/ with an optional `#/pointer`, or `file:line` for a decision's mark. */
  spec: string[];
  checks: 'conformance' | 'tests';
  /**
   * The name the check reads the spec's statement of the rule by (a generated export, an `x-`
   * extension key, an error code): a checking file must hold code naming it, so the expectation is
   * computed where the check is, not in a shared helper one hop away.
   */
  reads?: string;
}

export interface RulesFile {
  rules: Array<{ id: string; seed: string; spec: string; checks?: 'conformance' | 'tests'; reads?: string }>;
  decisions?: Record<string, { checks?: 'conformance' | 'tests' }>;
}

/** The decisions of DECISIONS.md with the `file:line` of each `x-decision` mark in spec/ (else of each mention), rules.yaml aside. */
export async function decisions(root: string, overrides: RulesFile['decisions']): Promise<Rule[]> {
  const specDir = path.join(root, 'spec');
  const text = await readFile(path.join(specDir, 'DECISIONS.md'), 'utf8');
  const marks = new Map<string, string[]>();
  const mentions = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, id: string, at: string) => {
    if (!map.has(id)) map.set(id, []);
    map.get(id)!.push(at);
  };
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(path.join(specDir, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(rel);
      else if (e.name.endsWith('.yaml') && rel !== 'rules.yaml') {
        (await readFile(path.join(specDir, rel), 'utf8')).split('\n').forEach((l, i) => {
          for (const m of l.matchAll(/\b(?:x-decision|decision):\s*(ADR-\d{3})\b/g)) add(marks, m[1]!, `${rel}:${i + 1}`);
          for (const m of l.matchAll(/\bADR-\d{3}\b/g)) add(mentions, m[0], `${rel}:${i + 1}`);
        });
      }
    }
  };
  await walk('');
  return [...text.matchAll(/^## (ADR-\d{3}) — (.+)$/gm)].map((m) => ({
    id: m[1]!,
    text: m[2]!.trim(),
    kind: 'decision' as const,
    spec: marks.get(m[1]!) ?? mentions.get(m[1]!) ?? [],
    checks: overrides?.[m[1]!]?.checks ?? 'conformance',
  }));
}

/** Resolves `file#/json/pointer` against spec/; returns a problem or null. */
export async function checkLocation(root: string, loc: string): Promise<string | null> {
  const [file, pointer] = loc.split('#') as [string, string | undefined];
  const text = await readFile(path.join(root, 'spec', file.replace(/:\d+$/, '')), 'utf8').catch(() => null);
  if (text === null) return `${loc}: no such file under spec/`;
  if (!pointer) return null;
  let node: unknown = YAML.parse(text);
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(key)] : (node as Record<string, unknown> | null)?.[key];
    if (node === undefined) return `${loc}: the pointer does not resolve`;
  }
  return null;
}

/** The value at `file#/pointer` under spec/, or undefined. */
export async function specValue(root: string, loc: string): Promise<unknown> {
  const [file, pointer = ''] = loc.split('#') as [string, string | undefined];
  const text = await readFile(path.join(root, 'spec', file), 'utf8').catch(() => null);
  if (text === null) return undefined;
  let node: unknown = YAML.parse(text);
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = Array.isArray(node) ? node[Number(key)] : (node as Record<string, unknown> | null)?.[key];
  }
  return node;
}

export const PLACEHOLDER = /\{\{\s*([^}\s]+)\s*\}\}/g;

/** A seed rule's text with each `{{file#/pointer}}` replaced by the spec's value (a number or string); unresolved ones stay. */
export async function withSpecValues(root: string, text: string): Promise<string> {
  return (await fillSpecValues(root, text)).text;
}

/**
 * A text (a rule of spec/rules.yaml, a guide) with each `{{file#/pointer}}` replaced by the spec's
 * value there (a number or string: a fact quoted, never typed, ADR-086) and each `{{table:NAME}}` by
 * the table spec-tables.ts builds from spec/, and the placeholders that name none, which stay as written.
 */
export async function fillSpecValues(root: string, text: string): Promise<{ text: string; unresolved: string[] }> {
  const unresolved: string[] = [];
  let out = text;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const table = m[1]!.startsWith('table:') ? await specTable(m[1]!.slice('table:'.length), (loc) => specValue(root, loc)) : undefined;
    if (table !== undefined) {
      out = out.replace(m[0], table);
      continue;
    }
    const v = await specValue(root, m[1]!);
    if (typeof v === 'number' || typeof v === 'string') out = out.replace(m[0], String(v));
    else unresolved.push(m[1]!);
  }
  return { text: out, unresolved };
}
