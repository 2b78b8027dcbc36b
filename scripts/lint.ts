/**
 * `npm run lint` — the contract's gate, 0 errors and 0 warnings required:
 *  1. `redocly lint` on every API of redocly.yaml (recommended + the stricter rules there);
 *  2. spec/asyncapi.yaml parsed and validated by @asyncapi/parser (informational hints aside);
 *  3. the consistency checks of scripts/lib/consistency.ts, the one-fact-one-place checks of
 *     scripts/lib/facts.ts (every copy of a fact that a tool or reader needs agrees with the fact) and those of
 *     scripts/lib/messages.ts (the error messages of the spec, guides and READMEs are the server's;
 *     README and docs/ links stay in the repository);
 *  4. the rule index (scripts/lib/rules.ts): every rule stated in spec/, enforced by one function, checked;
 *  5. generated/ and spec/RULES.md up to date with spec/ (what `npm run generate` would write);
 *  6. the OpenAPI `links` name existing operations and parameters (scripts/lib/links.ts);
 *  7. the version gate (scripts/diff/gate.ts): against the merge base with `main`, `info.version`
 *     bumped to match the changes, CHANGELOG.md's section written, no stale mention of removed names.
 * `npm run lint -- --fix` first writes what is derived from the facts (ADR-071): every copy of a fact
 * in spec/ that disagrees with it (scripts/lib/facts.ts), then generated/ and spec/RULES.md as
 * `npm run generate` does; then it lints.
 */
import path from 'node:path';
import { getLineColLocation, getTotals, lint as redocly, loadConfig } from '@redocly/openapi-core';
import { REDOCLY_CONFIG, ROOT, SPEC_DIR } from './lib/paths.ts';
import { bundleApi, listApis, parseAsyncApi, type ApiEntry } from './lib/spec.ts';
import {
  checkDecisionsAndExtensions,
  checkErrorExamples,
  checkStateMachine,
  checkValidationErrorDeclared,
  checkWebhooksAgainstAsyncApi,
  type AsyncMessage,
} from './lib/consistency.ts';
import { checkFactStatementsInSpec, checkPatternQuotes, factCopies, type FactCopy } from './lib/facts.ts';
import { copyWrites, where, writeCopies } from './lib/fact-sources.ts';
import { checkDocsLinks, checkDocumentMessages, checkExampleMessages, checkReadmeLinks } from './lib/messages.ts';
import { staleGenerated, writeGenerated } from './generate.ts';
import { checkLinks } from './lib/links.ts';
import { versionGate } from './diff/gate.ts';
import { ruleProblems } from './lib/rules.ts';

const INFO = 2; // Spectral severities: 0 error, 1 warning, 2 information, 3 hint

/**
 * `redocly lint` of one API of redocly.yaml, run by @redocly/openapi-core's `lint` in this process
 * (what the CLI calls, with the API's own configuration): one problem a line, `file:line:col`.
 */
async function redoclyLint(api: ApiEntry): Promise<{ errors: number; warnings: number; output: string }> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const problems = await redocly({ ref: api.root, config: config.forAlias?.(api.name) ?? config });
  const totals = getTotals(problems);
  const output = problems
    .map((p) => {
      const at = p.location[0] ? getLineColLocation(p.location[0]) : undefined;
      const where = at ? `${path.relative(ROOT, at.source.absoluteRef)}:${at.start.line}:${at.start.col}` : api.root;
      return `${where} ${p.severity} ${p.ruleId}: ${p.message}`;
    })
    .join('\n');
  return { errors: totals.errors, warnings: totals.warnings, output };
}

/** Every copy of a fact in both variants' bundles, with the problems no derived value fixes. */
async function copiesOf(apis: ApiEntry[]): Promise<{ copies: FactCopy[]; problems: string[]; roots: Record<number, string> }> {
  const out = { copies: [] as FactCopy[], problems: [] as string[], roots: {} as Record<number, string> };
  for (const api of apis) {
    const check = factCopies(api.variant, await bundleApi(api));
    out.copies.push(...check.copies);
    out.problems.push(...check.problems);
    out.roots[api.variant] = api.root;
  }
  return out;
}

/**
 * `--fix`: writes every copy of a fact that disagrees with it into its spec/ file, then generated/
 * (what `npm run generate` writes). What it cannot fix, the lint that follows reports.
 */
export async function fixContract(log: (line: string) => void = console.log): Promise<void> {
  const { copies, roots } = await copiesOf(await listApis());
  const { writes } = copyWrites(SPEC_DIR, roots, copies);
  await writeCopies(writes);
  for (const w of writes) log(`fixed spec/${where(SPEC_DIR, w)}: ${JSON.stringify(w.from)} → ${JSON.stringify(w.to)}`);
  log(`--fix: ${writes.length} copies of facts written into spec/`);
  log(await writeGenerated());
}

export async function lintContract(log: (line: string) => void = console.log, options: { fix?: boolean } = {}): Promise<string[]> {
  if (options.fix) await fixContract(log);
  const problems: string[] = [];
  const apis = await listApis();
  for (const api of apis) {
    const result = await redoclyLint(api);
    log(`redocly lint ${api.name}: ${result.errors} errors, ${result.warnings} warnings`);
    if (result.errors + result.warnings > 0)
      problems.push(`redocly lint ${api.name}: ${result.errors} errors, ${result.warnings} warnings\n${result.output}`);
  }

  const { document, diagnostics } = await parseAsyncApi();
  const serious = diagnostics.filter((d) => d.severity < INFO);
  log(
    `@asyncapi/parser spec/asyncapi.yaml: ${serious.filter((d) => d.severity === 0).length} errors, ${serious.filter((d) => d.severity === 1).length} warnings`,
  );
  for (const d of serious)
    problems.push(`asyncapi.yaml ${d.severity === 0 ? 'error' : 'warning'} ${d.code}: ${d.message} at ${d.path.join('.')}`);
  const messages: AsyncMessage[] = document
    .messages()
    .all()
    .map((m) => ({
      name: String(m.name()),
      payload: (m.payload()?.json() as { schema: unknown }).schema,
      headers: (m.headers()?.json() as { schema: unknown }).schema,
    }));

  const consistency: string[] = [];
  const docs: Array<Record<string, unknown>> = [];
  for (const api of apis) {
    const doc = await bundleApi(api);
    docs.push(doc);
    consistency.push(...checkExampleMessages(api.variant, doc));
    consistency.push(...checkWebhooksAgainstAsyncApi(api.variant, doc, messages));
    consistency.push(...checkStateMachine(api.variant, doc));
    consistency.push(...checkErrorExamples(api.variant, doc));
    consistency.push(...checkValidationErrorDeclared(api.variant, doc));
    consistency.push(...checkPatternQuotes(api.variant, doc));
    consistency.push(...checkLinks(api.variant, doc));
  }
  consistency.push(...(await copyProblems(apis)));
  consistency.push(...(await checkDecisionsAndExtensions()));
  consistency.push(...(await checkFactStatementsInSpec()));
  consistency.push(...(await checkDocumentMessages(docs)));
  consistency.push(...(await checkReadmeLinks()), ...(await checkDocsLinks()));
  log(
    `consistency (webhooks ↔ AsyncAPI, state machine, error examples, 400 on every operation, copies of each fact, decisions, extensions, links, messages against the server's catalogue, README and docs/ links): ${consistency.length} problems`,
  );
  problems.push(...consistency);

  const rules = await ruleProblems();
  log(`rule index (spec/rules.yaml + DECISIONS.md: a place in spec/, one deciding function, one hop, a check): ${rules.length} problems`);
  problems.push(...rules);

  // --fix has just written generated/ from spec/: rendering it again would compare it with itself
  const stale = options.fix ? [] : await staleGenerated();
  log(`generated/ up to date: ${options.fix ? 'yes (written by --fix)' : stale.length === 0 ? 'yes' : `no (${stale.join(', ')})`}`);
  if (stale.length > 0) problems.push(`generated/ is out of date with spec/, run \`npm run generate\`: ${stale.join(', ')}`);

  const gate = await versionGate(ROOT);
  log(gate.summary);
  problems.push(...gate.problems);
  return problems;
}

/** The copies of facts that disagree, each named by its place in spec/ (once for both variants), and what no derived value fixes. */
async function copyProblems(apis: ApiEntry[]): Promise<string[]> {
  const { copies, problems, roots } = await copiesOf(apis);
  const fixable = copyWrites(SPEC_DIR, roots, copies);
  const out = [...new Set(problems), ...fixable.problems];
  for (const w of fixable.writes)
    out.push(
      `spec/${where(SPEC_DIR, w)}: ${JSON.stringify(w.from)}, the fact makes it ${JSON.stringify(w.to)} (${w.reason}); \`npm run lint -- --fix\` writes it`,
    );
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = await lintContract(console.log, { fix: process.argv.includes('--fix') });
  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log('contract lint: 0 errors, 0 warnings');
}
