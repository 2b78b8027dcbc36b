/**
 * The rule index: every rule of the seed (`spec/rules.yaml`) and every decision (`spec/DECISIONS.md`),
 * each with where the spec states it, the one function that enforces it and the checks that exercise it.
 *
 * Enforcing sites and checks are found by tags in doc comments:
 *   `@rule <id>`   on the one function of `reference-server/`, `server/`, `sdk/` or `lib/` (not a test) that enforces the rule;
 *   `@checks <id>` on a conformance command or check (`conformance/`, not a test), or, for rules whose
 *                  `checks` is `tests`, in a `*.test.ts` file.
 * `npm run generate` writes the index to `spec/RULES.md`; `npm run lint` reports `ruleProblems`.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT, SPEC_DIR } from './paths.ts';

export const RULES_INDEX = path.join(SPEC_DIR, 'RULES.md');

/** Where the tags are looked for. */
const ENFORCING_DIRS = ['reference-server', 'server', 'sdk', 'lib'];
const CHECK_DIRS = ['conformance', 'reference-server', 'server', 'sdk', 'scripts', 'lib'];

export interface Rule {
  id: string;
  /** The rule in the seed's words, or the decision's title. */
  text: string;
  kind: 'seed' | 'decision';
  /** Spec locations: `file` under spec/ with an optional `#/pointer`, or `file:line` for a decision's mark. */
  spec: string[];
  checks: 'conformance' | 'tests';
}

export interface Site {
  file: string;
  line: number;
  symbol: string;
}

export interface RuleIndexEntry extends Rule {
  enforcedBy: Site[];
  checkedBy: Site[];
}

interface RulesFile {
  rules: Array<{ id: string; seed: string; spec: string; checks?: 'conformance' | 'tests' }>;
  decisions?: Record<string, { checks?: 'conformance' | 'tests' }>;
}

async function listTs(root: string, dir: string): Promise<string[]> {
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

const TAG = /@(rule|checks)\s+([A-Za-z0-9-]+(?:\s*,\s*[A-Za-z0-9-]+)*)/g;
const SYMBOL = [
  /^\s*(?:it|test|describe)\(\s*(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|`((?:\\.|[^`\\])*)`)/,
  /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z0-9_$]+)/,
  /^\s*(?:export\s+)?(?:const|let)\s+([A-Za-z0-9_$]+)/,
  /^\s*(?:export\s+)?(?:abstract\s+)?class\s+([A-Za-z0-9_$]+)/,
  /^\s*(?:(?:public|private|protected|static|readonly|async|override)\s+)*([A-Za-z0-9_$]+)\s*(?:<[^>]*>)?\(/,
  /^\s*([A-Za-z0-9_$]+)\s*:/,
];

/** The symbol declared by the first code line after a tag's comment (line index `from`). */
function symbolAfter(lines: string[], from: number): { symbol: string; line: number } {
  let i = from;
  while (i < lines.length && /^\s*(\*|\/\/|\/\*)/.test(lines[i]!) && !/\*\/\s*\S/.test(lines[i]!)) {
    if (/\*\/\s*$/.test(lines[i]!)) {
      i++;
      break;
    }
    i++;
  }
  while (i < lines.length && (lines[i]!.trim() === '' || /^\s*\/\//.test(lines[i]!))) i++;
  const code = lines[i] ?? '';
  for (const re of SYMBOL) {
    const m = re.exec(code);
    // a test's name is one of three quoted forms (groups 1–3), escapes undone
    if (m) return { symbol: (m[1] ?? m[2] ?? m[3]!).replace(/\\(.)/g, '$1'), line: i + 1 };
  }
  return { symbol: '?', line: i + 1 };
}

/** Every `@rule`/`@checks` tag under `dirs`; `tests` picks test files only, or non-test files only. */
async function scanTags(root: string, dirs: string[], tag: 'rule' | 'checks', tests: boolean): Promise<Map<string, Site[]>> {
  const out = new Map<string, Site[]>();
  for (const dir of dirs) {
    for (const file of await listTs(root, dir)) {
      if (file.endsWith('.test.ts') !== tests) continue;
      const text = await readFile(path.join(root, file), 'utf8');
      if (!text.includes(`@${tag}`)) continue;
      const lines = text.split('\n');
      lines.forEach((l, i) => {
        if (!/^\s*(\*|\/\/|\/\*)/.test(l)) return; // tags live in comments only
        for (const m of l.matchAll(TAG)) {
          if (m[1] !== tag) continue;
          const site = { file, ...symbolAfter(lines, i) };
          for (const id of m[2]!.split(',').map((s) => s.trim())) {
            if (!out.has(id)) out.set(id, []);
            out.get(id)!.push(site);
          }
        }
      });
    }
  }
  return out;
}

async function readRulesFile(root: string): Promise<RulesFile> {
  return YAML.parse(await readFile(path.join(root, 'spec', 'rules.yaml'), 'utf8')) as RulesFile;
}

/** The decisions of DECISIONS.md with the `file:line` of each `x-decision` mark in spec/ (else of each mention), rules.yaml aside. */
async function decisions(root: string, overrides: RulesFile['decisions']): Promise<Rule[]> {
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
async function checkLocation(root: string, loc: string): Promise<string | null> {
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

/** The index, with the sites found for each rule, for the package at `root`. */
export async function ruleIndex(root = ROOT): Promise<RuleIndexEntry[]> {
  const file = await readRulesFile(root);
  const seed: Rule[] = file.rules.map((r) => ({ id: r.id, text: r.seed, kind: 'seed', spec: [r.spec], checks: r.checks ?? 'conformance' }));
  const rules = [...seed, ...(await decisions(root, file.decisions))];
  const enforcing = await scanTags(root, ENFORCING_DIRS, 'rule', false);
  const conformance = await scanTags(root, ['conformance'], 'checks', false);
  const tests = await scanTags(root, CHECK_DIRS, 'checks', true);
  return rules.map((r) => ({
    ...r,
    enforcedBy: enforcing.get(r.id) ?? [],
    checkedBy: (r.checks === 'tests' ? tests : conformance).get(r.id) ?? [],
  }));
}

/** What lint reports: unresolved locations, missing or several enforcing sites, no check, unknown tags. */
export async function ruleProblems(root = ROOT): Promise<string[]> {
  const index = await ruleIndex(root);
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const r of index) {
    if (ids.has(r.id)) problems.push(`rule ${r.id} is listed twice`);
    ids.add(r.id);
    if (r.spec.length === 0) problems.push(`rule ${r.id}: no place in spec/ states it`);
    for (const loc of r.spec) {
      const p = await checkLocation(root, loc);
      if (p) problems.push(`rule ${r.id}: ${p}`);
    }
    if (r.enforcedBy.length === 0) problems.push(`rule ${r.id}: no enforcing function (tag one with @rule ${r.id})`);
    if (r.enforcedBy.length > 1)
      problems.push(
        `rule ${r.id}: ${r.enforcedBy.length} enforcing functions (${r.enforcedBy.map(siteText).join(', ')}); one rule, one function`,
      );
    if (r.checkedBy.length === 0)
      problems.push(`rule ${r.id}: no ${r.checks === 'tests' ? 'test' : 'conformance check'} (tag it with @checks ${r.id})`);
  }
  const tagged = [
    ...(await scanTags(root, ENFORCING_DIRS, 'rule', false)).keys(),
    ...(await scanTags(root, CHECK_DIRS, 'checks', false)).keys(),
    ...(await scanTags(root, CHECK_DIRS, 'checks', true)).keys(),
  ];
  for (const id of new Set(tagged)) if (!ids.has(id)) problems.push(`tag names an unknown rule ${id}`);
  return problems;
}

function siteText(s: Site): string {
  return `${s.file}:${s.line} ${s.symbol}`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** spec/RULES.md. */
export async function renderRuleIndex(header: string[], root = ROOT): Promise<string> {
  const index = await ruleIndex(root);
  const table = (kind: Rule['kind']) => {
    const rows = index
      .filter((r) => r.kind === kind)
      .map((r) => {
        const spec = r.spec.map((l) => `\`${l}\``).join('<br>') || '—';
        const by = r.enforcedBy.map((s) => `\`${s.file}:${s.symbol}\``).join('<br>') || '**none**';
        const checks = r.checkedBy.map((s) => `\`${s.file}:${s.symbol}\``).join('<br>') || '**none**';
        return `| \`${r.id}\` | ${cell(r.text)} | ${spec} | ${by} | ${checks} |`;
      });
    return ['| Rule | What | Stated in spec/ | Enforced by | Checked by |', '|---|---|---|---|---|', ...rows].join('\n');
  };
  return [
    `<!-- ${header.join(' ')} -->`,
    '# Rule index',
    '',
    'Every rule of the seed and every decision: where `spec/` states it, the one function that enforces it',
    '(tagged `@rule <id>`) and the checks that exercise it (tagged `@checks <id>`: conformance commands for the',
    'merchant-facing contract; tests for the browser SDK and `x-internal` operations). Written by',
    '`npm run generate` from `spec/rules.yaml`, `spec/DECISIONS.md` and the tags; `npm run lint` fails when a rule',
    'has no enforcing function, more than one, or no check.',
    '',
    '## Rules of the seed',
    '',
    table('seed'),
    '',
    '## Decisions',
    '',
    table('decision'),
    '',
  ].join('\n');
}
