/**
 * `npm run lint` — the contract's gate, 0 errors and 0 warnings required:
 *  1. `redocly lint` on every API of redocly.yaml (recommended + the stricter rules there);
 *  2. spec/asyncapi.yaml parsed and validated by @asyncapi/parser (informational hints aside);
 *  3. the consistency checks of scripts/lib/consistency.ts, the one-fact-one-place checks of
 *     scripts/lib/facts.ts (every copy of a fact that a tool needs agrees with the fact) and those of
 *     scripts/lib/messages.ts (the error messages of the spec, guides and READMEs are the server's;
 *     README and docs/ links stay in the repository);
 *  4. the rule index (scripts/lib/rules.ts): every rule stated in spec/, enforced by one function, checked;
 *  5. generated/ and spec/RULES.md up to date with spec/ (what `npm run generate` would write);
 *  6. the OpenAPI `links` name existing operations and parameters (scripts/lib/links.ts);
 *  7. the version gate (scripts/diff/gate.ts): against the merge base with `main`, `info.version`
 *     bumped to match the changes, CHANGELOG.md's section written, no stale mention of removed names.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './lib/paths.ts';
import { bundleApi, listApis, parseAsyncApi } from './lib/spec.ts';
import {
  checkDecisionsAndExtensions,
  checkErrorExamples,
  checkStateMachine,
  checkValidationErrorDeclared,
  checkWebhooksAgainstAsyncApi,
  type AsyncMessage,
} from './lib/consistency.ts';
import {
  checkAmountRangeCopies,
  checkBodyLimitCopies,
  checkFactStatementsInSpec,
  checkPatternQuotes,
  checkRateLimitCopies,
  checkTokenLifetimeCopies,
} from './lib/facts.ts';
import { checkDocsLinks, checkDocumentMessages, checkExampleMessages, checkReadmeLinks } from './lib/messages.ts';
import { staleGenerated } from './generate.ts';
import { checkLinks } from './lib/links.ts';
import { versionGate } from './diff/gate.ts';
import { ruleProblems } from './lib/rules.ts';

const INFO = 2; // Spectral severities: 0 error, 1 warning, 2 information, 3 hint

function redoclyLint(apiName: string): { errors: number; warnings: number; output: string } {
  const bin = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const run = spawnSync(process.execPath, [bin, 'lint', apiName, '--format=json'], { cwd: ROOT, encoding: 'utf8' });
  const json = run.stdout.slice(run.stdout.indexOf('{'));
  let totals: { errors: number; warnings: number };
  try {
    totals = (JSON.parse(json) as { totals: { errors: number; warnings: number } }).totals;
  } catch {
    return { errors: 1, warnings: 0, output: `redocly lint ${apiName} did not produce a report:\n${run.stdout}\n${run.stderr}` };
  }
  let output = '';
  if (totals.errors + totals.warnings > 0) {
    output = spawnSync(process.execPath, [bin, 'lint', apiName, '--format=stylish'], { cwd: ROOT, encoding: 'utf8' }).stdout;
  }
  return { ...totals, output };
}

export async function lintContract(log: (line: string) => void = console.log): Promise<string[]> {
  const problems: string[] = [];
  const apis = await listApis();
  for (const api of apis) {
    const result = redoclyLint(api.name);
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
    consistency.push(...checkAmountRangeCopies(api.variant, doc));
    consistency.push(...checkTokenLifetimeCopies(api.variant, doc));
    consistency.push(...checkRateLimitCopies(api.variant, doc));
    consistency.push(...checkBodyLimitCopies(api.variant, doc));
    consistency.push(...checkPatternQuotes(api.variant, doc));
    consistency.push(...checkLinks(api.variant, doc));
  }
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

  const stale = await staleGenerated();
  log(`generated/ up to date: ${stale.length === 0 ? 'yes' : `no (${stale.join(', ')})`}`);
  if (stale.length > 0) problems.push(`generated/ is out of date with spec/, run \`npm run generate\`: ${stale.join(', ')}`);

  const gate = await versionGate(ROOT);
  log(gate.summary);
  problems.push(...gate.problems);
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = await lintContract();
  if (problems.length > 0) {
    console.error(`\n${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log('contract lint: 0 errors, 0 warnings');
}
