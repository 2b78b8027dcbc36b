/**
 * The rule index: every rule of the seed (`spec/rules.yaml`) and every decision (`spec/DECISIONS.md`),
 * each with where the spec states it, the one function that enforces it and the checks that exercise it.
 *
 * Enforcing sites and checks are found by tags in doc comments:
 *   `@rule <id>`   on the one function of `reference-server/`, `server/`, `sdk/` or `lib/` (not a test) that
 *                  decides the rule: the one that answers, not a predicate it calls;
 *   `@guard <id> <file>:<name>` beside it: what stands under the decision where the decider alone is
 *                  not the whole story (a database's unique index, the mapping of its violation); lint
 *                  checks that `<file>` exists and names `<name>`;
 *   `@checks <id>` on a conformance command or check (`conformance/`, not a test), or, for rules whose
 *                  `checks` is `tests`, in a `*.test.ts` file.
 * A seed rule's text (`spec/rules.yaml`) takes the spec's numbers through `{{file#/pointer}}`, never typed.
 * `npm run generate` writes the index to `spec/RULES.md`; `npm run lint` reports `ruleProblems`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT, SPEC_DIR } from './paths.ts';
import { type Rule, type RulesFile, PLACEHOLDER, checkLocation, decisions, specValue, withSpecValues } from './rule-spec.ts';
import { BINDING_DIRS, JUDGE_DIRS, filesOnPath, listTs, pathProblems } from './rule-paths.ts';

export type { Rule };

export const RULES_INDEX = path.join(SPEC_DIR, 'RULES.md');

/** Where the tags are looked for. */
const ENFORCING_DIRS = ['model', 'reference-server', 'server', 'sdk', 'lib', 'scripts'];
const CHECK_DIRS = ['conformance', 'reference-server', 'server', 'sdk', 'scripts', 'lib'];

export interface Site {
  file: string;
  line: number;
  symbol: string;
}

export interface RuleIndexEntry extends Rule {
  /** The text as written in spec/rules.yaml, `{{…}}` not yet replaced. */
  written: string;
  enforcedBy: Site[];
  /** `@guard` tags: `file:name` under the decision. */
  guards: Array<Site & { target: string }>;
  checkedBy: Site[];
  /** `@binds` tags: the server's functions that apply the model's decision (storage, HTTP), `@judges`: the judge's. */
  binds: Site[];
  judgedBy: Site[];
  /** Every hand-written file on the rule's path (`rule-paths.ts`): spec files, decider, guards, bindings, checks, judge. */
  files: string[];
}

const TAG = /@(rule|checks|binds|judges)\s+([A-Za-z0-9-]+(?:\s*,\s*[A-Za-z0-9-]+)*)/g;
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
export async function scanTags(
  root: string,
  dirs: string[],
  tag: 'rule' | 'checks' | 'binds' | 'judges',
  tests: boolean,
): Promise<Map<string, Site[]>> {
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

/** `@guard <id> <file>:<name>` tags under `dirs` (not tests). */
async function scanGuards(root: string, dirs: string[]): Promise<Map<string, Array<Site & { target: string }>>> {
  const out = new Map<string, Array<Site & { target: string }>>();
  for (const dir of dirs) {
    for (const file of await listTs(root, dir)) {
      if (file.endsWith('.test.ts')) continue;
      const text = await readFile(path.join(root, file), 'utf8');
      if (!text.includes('@guard')) continue;
      const lines = text.split('\n');
      lines.forEach((l, i) => {
        const m = /^\s*(?:\*|\/\/|\/\*\*?)\s*@guard\s+([A-Za-z0-9-]+)\s+(\S+)/.exec(l);
        if (!m) return;
        if (!out.has(m[1]!)) out.set(m[1]!, []);
        out.get(m[1]!)!.push({ file, ...symbolAfter(lines, i), target: m[2]! });
      });
    }
  }
  return out;
}

/** The index, with the sites found for each rule, for the package at `root`. */
export async function ruleIndex(root = ROOT): Promise<RuleIndexEntry[]> {
  const file = await readRulesFile(root);
  const seed: Rule[] = file.rules.map((r) => ({
    id: r.id,
    text: r.seed,
    kind: 'seed',
    spec: [r.spec],
    checks: r.checks ?? 'conformance',
    ...(r.reads === undefined ? {} : { reads: r.reads }),
  }));
  const rules = [...seed, ...(await decisions(root, file.decisions))];
  const enforcing = await scanTags(root, ENFORCING_DIRS, 'rule', false);
  const guards = await scanGuards(root, ENFORCING_DIRS);
  const conformance = await scanTags(root, ['conformance'], 'checks', false);
  const tests = await scanTags(root, CHECK_DIRS, 'checks', true);
  const binds = await scanTags(root, BINDING_DIRS, 'binds', false);
  const judges = await scanTags(root, JUDGE_DIRS, 'judges', false);
  const out: RuleIndexEntry[] = [];
  for (const r of rules) {
    const e = {
      ...r,
      written: r.text,
      text: r.kind === 'seed' ? await withSpecValues(root, r.text) : r.text,
      enforcedBy: enforcing.get(r.id) ?? [],
      guards: guards.get(r.id) ?? [],
      checkedBy: (r.checks === 'tests' ? tests : conformance).get(r.id) ?? [],
      binds: binds.get(r.id) ?? [],
      judgedBy: judges.get(r.id) ?? [],
    };
    out.push({ ...e, files: filesOnPath(e) });
  }
  return out;
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
    problems.push(...(await hopProblems(root, r)));
    problems.push(...(await pathProblems(root, r)));
  }
  const tagged = [
    ...(await scanTags(root, ENFORCING_DIRS, 'rule', false)).keys(),
    ...(await scanTags(root, CHECK_DIRS, 'checks', false)).keys(),
    ...(await scanTags(root, CHECK_DIRS, 'checks', true)).keys(),
    ...(await scanTags(root, BINDING_DIRS, 'binds', false)).keys(),
    ...(await scanTags(root, JUDGE_DIRS, 'judges', false)).keys(),
  ];
  for (const id of new Set(tagged)) if (!ids.has(id)) problems.push(`tag names an unknown rule ${id}`);
  return problems;
}

/** The declaration of the function at `site`, from its line to the `{` or `=>` that opens its body. */
async function declarationAt(root: string, site: Site): Promise<string> {
  const lines = (await readFile(path.join(root, site.file), 'utf8')).split('\n');
  const out: string[] = [];
  for (let i = site.line - 1; i < lines.length && out.length < 12; i++) {
    out.push(lines[i]!);
    if (/\{|=>/.test(lines[i]!)) break;
  }
  const text = out.join(' ');
  const open = /\{|=>/.exec(text);
  return open ? text.slice(0, open.index + open[0].length) : text;
}

/** Production files of the enforcing folders, read once per lint run. */
const sourcesOf = new Map<string, Promise<Array<{ file: string; lines: string[] }>>>();
function sources(root: string): Promise<Array<{ file: string; lines: string[] }>> {
  let s = sourcesOf.get(root);
  if (!s) {
    s = (async () => {
      const out: Array<{ file: string; lines: string[] }> = [];
      for (const dir of ENFORCING_DIRS)
        for (const file of await listTs(root, dir))
          if (!file.endsWith('.test.ts')) out.push({ file, lines: (await readFile(path.join(root, file), 'utf8')).split('\n') });
      return out;
    })();
    sourcesOf.set(root, s);
  }
  return s;
}

/**
 * The error catalogue as spec/ states it (`ErrorCode`'s branches, each with its `x-status`): read from
 * the source, not generated/, so the lint of an edited spec never judges by the catalogue of before.
 * A root without one (a test's fixture) is judged by the package's.
 */
async function catalogOf(root: string): Promise<Record<string, { status: number }>> {
  const file = (r: string) => path.join(r, 'spec', 'components', 'schemas', 'ErrorCode.yaml');
  const text = await readFile(file(root), 'utf8').catch(() => readFile(file(ROOT), 'utf8'));
  const schema = YAML.parse(text) as {
    oneOf: Array<{ const: string; 'x-status': number }>;
  };
  return Object.fromEntries(schema.oneOf.map((b) => [b.const, { status: b['x-status'] }]));
}

/** Code that drives a server or a page: a test of this kind reaches the decider through the API, not by name. */
const DRIVES_SERVER = /\b(?:server|sharedServer|startTestServer|startServer|createApp|fetch|api|call)\(|\bpage\.goto\(/;

/**
 * One hop per rule, where it can be told mechanically:
 *  - a row's text has no number typed by hand: the spec's values come through `{{file#/pointer}}`
 *    (a status is allowed, and `<status> <CODE>` must be the code's status);
 *  - the decider is a function (a symbol was found), and not a predicate (`: boolean`, `x is T`)
 *    called from one place only: that caller answers, so it carries the tag;
 *  - each guard's file exists and names what the tag says;
 *  - a check is a symbol; a test check calls the decider by name or drives a server or page;
 *  - a rule with `reads` (rules.yaml): its checks lie in one file, and that file holds code
 *    (comments aside) naming the fact it reads, so the rule is seen in three files (spec, decider,
 *    check), not computed one hop away.
 * Not checked: that the decider's body is the whole rule, that everything a check's expectation
 * calls lives in its file (shared machinery — the HTTP client, the model's state and time
 * intervals — is called from there), that a test driving a server reaches this rule.
 */
async function hopProblems(root: string, r: RuleIndexEntry): Promise<string[]> {
  const problems: string[] = [];
  if (r.kind === 'seed') {
    for (const m of r.written.matchAll(PLACEHOLDER))
      if (!['number', 'string'].includes(typeof (await specValue(root, m[1]!))))
        problems.push(`rule ${r.id}: {{${m[1]}}} is no number or string in spec/`);
    const typed = r.written
      .replace(PLACEHOLDER, '')
      .replace(/\bADR-\d{3}\b/g, '')
      .replace(/\b[A-C]\d\b/g, 'Op')
      .replace(/\bVariant [12]\b/g, '')
      .replace(/\b[234]x\b/g, '');
    const errorCatalog = await catalogOf(root);
    for (const m of typed.matchAll(/\d[\d,.]*/g)) {
      const n = m[0].replace(/[.,]$/, '');
      const statuses = new Set<number>([200, 201, 204]);
      for (const e of Object.values(errorCatalog)) statuses.add(e.status);
      // a status reads as one: followed by a code, or after "gives", "gets", "answers", "otherwise", "(" or an operation
      const before = typed.slice(0, m.index);
      const after = typed.slice(m.index + m[0].length);
      const asStatus = /^\s+[A-Z][A-Z_]+[A-Z]\b/.test(after) || /(?:gives|gets|answers|otherwise|\(|\bOp)\s*$/.test(before);
      const status = /^[1-5]\d\d$/.test(n) && asStatus ? Number(n) : null;
      if (status === null || !statuses.has(status)) {
        problems.push(`rule ${r.id}: "${n}" is typed in spec/rules.yaml; take it from the spec with {{file#/pointer}}`);
        continue;
      }
      const code = /^\s+([A-Z][A-Z_]+[A-Z])\b/.exec(after)?.[1];
      if (code && code in errorCatalog && errorCatalog[code]!.status !== status)
        problems.push(`rule ${r.id}: ${status} ${code}, but ${code} is ${errorCatalog[code]!.status} in ErrorCode`);
    }
  }
  for (const d of r.enforcedBy) {
    if (d.symbol === '?') {
      problems.push(`rule ${r.id}: the @rule tag at ${d.file}:${d.line} is on no function`);
      continue;
    }
    // a model function is a predicate by design: the server, the suite and the judge all call it
    if (d.file.startsWith('model/')) continue;
    const decl = await declarationAt(root, d);
    if (!/\)\s*:\s*(?:boolean|[A-Za-z_$][\w$]*\s+is\s+[^{=]+)\s*(?:\{|=>)/.test(decl)) continue;
    const call = new RegExp(`(?<![\\w$.])${d.symbol.replace(/\$/g, '\\$')}\\(`);
    const callers: string[] = [];
    for (const { file, lines } of await sources(root))
      lines.forEach((l, i) => {
        if (file === d.file && i === d.line - 1) return;
        if (/^\s*(\*|\/\/|\/\*|import\b)/.test(l) || /\bfunction\s/.test(l)) return;
        if (call.test(l)) callers.push(`${file}:${i + 1}`);
      });
    if (callers.length === 1)
      problems.push(
        `rule ${r.id}: @rule is on ${d.symbol}, a predicate called only at ${callers[0]}: tag the function there, which answers`,
      );
  }
  for (const g of r.guards) {
    const [file, name] = g.target.split(/:(?=[^:]+$)/) as [string, string | undefined];
    const text = await readFile(path.join(root, file), 'utf8').catch(() => null);
    if (text === null) problems.push(`rule ${r.id}: @guard at ${g.file}:${g.line} names ${file}, which does not exist`);
    else if (!name || !text.includes(name))
      problems.push(`rule ${r.id}: @guard at ${g.file}:${g.line}: ${file} does not name ${name ?? '(nothing)'}`);
  }
  for (const c of r.checkedBy) {
    if (c.symbol === '?') {
      problems.push(`rule ${r.id}: the @checks tag at ${c.file}:${c.line} is on no function, class or test`);
      continue;
    }
    if (r.checks !== 'tests') continue;
    const text = await readFile(path.join(root, c.file), 'utf8');
    const callsDecider = r.enforcedBy.some((d) => new RegExp(`(?<![\\w$])${d.symbol.replace(/\$/g, '\\$')}\\b`).test(text));
    if (!callsDecider && !DRIVES_SERVER.test(text))
      problems.push(
        `rule ${r.id}: the test ${c.file}:${c.symbol} neither calls ${r.enforcedBy.map((d) => d.symbol).join(', ') || 'the decider'} nor drives a server or page`,
      );
  }
  if (r.reads !== undefined && r.checkedBy.length > 0) {
    const names = codeNaming(r.reads);
    const checkFiles = [...new Set(r.checkedBy.map((c) => c.file))];
    if (checkFiles.length > 1)
      problems.push(
        `rule ${r.id}: checked in ${checkFiles.length} files (${checkFiles.join(', ')}); a rule with reads: is checked in one file (spec, decider, check)`,
      );
    // the fact, or a function of the model file that interprets it (spec, model, check), or the rule's
    // judge (judge/: the one judge of the rule, which the check calls for its expectation)
    const model: Array<(text: string) => boolean> = [];
    for (const f of new Set(r.enforcedBy.filter((d) => d.file.startsWith('model/')).map((d) => d.file)))
      for (const m of (await readFile(path.join(root, f), 'utf8')).matchAll(/^export function ([A-Za-z0-9_$]+)/gm))
        model.push(codeNaming(m[1]!));
    for (const j of r.judgedBy) if (j.file.startsWith('judge/')) model.push(codeNaming(j.symbol));
    const inCheck = await Promise.all(
      checkFiles.map(async (f) => {
        const text = await readFile(path.join(root, f), 'utf8');
        return names(text) || model.some((n) => n(text));
      }),
    );
    if (!inCheck.some(Boolean)) {
      const elsewhere: string[] = [];
      for (const file of await listTs(root, 'conformance'))
        if (!file.endsWith('.test.ts') && !checkFiles.includes(file) && names(await readFile(path.join(root, file), 'utf8')))
          elsewhere.push(file);
      problems.push(
        `rule ${r.id}: no checking file (${checkFiles.join(', ')}) reads ${r.reads} in its code${
          elsewhere.length ? `; ${elsewhere.join(', ')} ${elsewhere.length > 1 ? 'do' : 'does'}: move the expectation into the check` : ''
        }`,
      );
    }
  }
  return problems;
}

/** Whether a file's code (comment lines aside) names `name` (a whole name: `-`, `$`, letters and digits around it break none). */
function codeNaming(name: string): (text: string) => boolean {
  const re = new RegExp(`(?<![\\w$-])${name.replace(/[.*+?^${}()|[\]\\$]/g, '\\$&')}(?![\\w$-])`);
  return (text) => text.split('\n').some((l) => !/^\s*(\*|\/\/|\/\*)/.test(l) && re.test(l.replace(/\/\/.*$/, '')));
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
        const by =
          [
            ...r.enforcedBy.map((s) => `\`${s.file}:${s.symbol}\``),
            ...r.guards.map((g) => `guard: \`${g.target}\``),
            ...r.binds.map((s) => `binds: \`${s.file}:${s.symbol}\``),
          ].join('<br>') || '**none**';
        const checks =
          [...r.checkedBy.map((s) => `\`${s.file}:${s.symbol}\``), ...r.judgedBy.map((s) => `judge: \`${s.file}:${s.symbol}\``)].join(
            '<br>',
          ) || '**none**';
        return `| \`${r.id}\` | ${cell(r.text)} | ${spec} | ${by} | ${checks} | ${r.files.length} |`;
      });
    return ['| Rule | What | Stated in spec/ | Enforced by | Checked by | Files |', '|---|---|---|---|---|---|', ...rows].join('\n');
  };
  return [
    `<!-- ${header.join(' ')} -->`,
    '# Rule index',
    '',
    'Every rule of the seed and every decision: where `spec/` states it, the one function that decides it',
    '(tagged `@rule <id>`: the function that answers, not a predicate it calls; `guard:` what stands under it,',
    'tagged `@guard`) and the checks that exercise it (tagged `@checks <id>`: conformance commands for the',
    'merchant-facing contract; tests for the browser SDK and `x-internal` operations). Written by',
    '`npm run generate` from `spec/rules.yaml` (its numbers read from the spec), `spec/DECISIONS.md` and the tags;',
    '`npm run lint` fails when a rule has no deciding function or more than one, when the decider is a predicate',
    'with one caller, a guard names nothing, a number is typed instead of read from the spec, a test check neither',
    'calls the decider nor drives a server or page, a rule has no check, or, for a rule naming with `reads:` in',
    'rules.yaml the fact its check reads, its checks lie in more than one file or none reads that fact in its code',
    "(the expectation computed in the check, the model function it calls or the rule's judge, not one hop away).",
    '',
    "`Files` counts every hand-written file on the rule's path, strictly: its spec files, the deciding",
    "function's (for the contract's rules, in `model/`), each `@guard` target, each server binding (`@binds`: a",
    'function of `reference-server/` or `server/` that applies the decision to storage or HTTP), each check and',
    "the judge's (`@judges <id>`: a function of `judge/`, the one judge the suite, `paylater proxy` and",
    '`paylater judge` call, or of `model/` that `judge/` calls with what it observed; the calling file then',
    "keeps only the judge's bounded memory and is not on the path). Lint fails when a file outside `model/`",
    "calls a rule's model function without a tag for that rule (every file on the path is listed), the judge",
    'lies in more than one file, or a judge outside `judge/` is called by no file of `judge/`.',
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
