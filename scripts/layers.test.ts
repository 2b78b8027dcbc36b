/**
 * The layer rules of eslint.config.js (docs/architecture.md) do report a breach: each case
 * lints a real file of the tree with one import added, through ESLint's Node API and the
 * project's own config, and expects the rule that must refuse it. The same files as committed
 * report nothing, so a report below comes from the added line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from './lib/paths.ts';

const LAYER_RULES = new Set(['import-x/no-restricted-paths', 'import-x/no-cycle', 'no-restricted-imports']);
/**
 * The project's config with only `rules` run, and without type information: the rules tested here
 * read import paths and line counts, and the typed project typescript-eslint would load for the
 * others was most of this file's time.
 */
const untyped = (rules: ReadonlySet<string>) =>
  new ESLint({
    cwd: ROOT,
    ruleFilter: ({ ruleId }) => rules.has(ruleId),
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
  });
const eslint = untyped(LAYER_RULES);

/** The layer rules' messages for `file` (relative to the root) with `added` put after its imports. */
async function layerMessages(file: string, added = ''): Promise<Linter.LintMessage[]> {
  const filePath = path.join(ROOT, file);
  const text = `${readFileSync(filePath, 'utf8')}\n${added}\n`;
  const [result] = await eslint.lintText(text, { filePath });
  return result!.messages.filter((m) => m.ruleId !== null && LAYER_RULES.has(m.ruleId));
}

const summary = (ms: Linter.LintMessage[]) => ms.map((m) => `${m.ruleId}: ${m.message}`);

describe('layer rules (eslint.config.js)', () => {
  it('the files used below are clean as committed', async () => {
    for (const file of [
      'reference-server/domain/limits.ts',
      'reference-server/http/errors.ts',
      'conformance/http.ts',
      'judge/index.ts',
      'reference-server/app.ts',
      'reference-server/checkout/demo-shop.ts',
    ])
      expect(summary(await layerMessages(file)), file).toEqual([]);
  }, 120_000);

  it('a lower layer importing a higher one is reported, type-only imports too', async () => {
    const value = summary(await layerMessages('reference-server/domain/limits.ts', "export { notFound } from '../http/errors.ts';"));
    expect(value).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/http\/errors\.ts".*layer "domain"/)]);
    const typeOnly = summary(
      await layerMessages('reference-server/domain/limits.ts', "export type { MerchantConfig } from '../config.ts';"),
    );
    expect(typeOnly).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*"\.\.\/config\.ts".*layer "domain"/)]);
  }, 60_000);

  it('an import cycle is reported', async () => {
    // handlers/partner.ts imports domain/limits.ts: limits.ts importing it back closes a cycle
    // (and points up a layer: both rules report it).
    const ms = await layerMessages('reference-server/domain/limits.ts', "export { handlers } from '../handlers/partner.ts';");
    expect(ms.map((m) => m.ruleId).sort()).toEqual(['import-x/no-cycle', 'import-x/no-restricted-paths']);
    // Within one layer only the cycle rule can see it: http/errors.ts is imported by auth-throttle.ts.
    const sameLayer = summary(
      await layerMessages('reference-server/http/errors.ts', "export { createAuthThrottle } from './auth-throttle.ts';"),
    );
    expect(sameLayer).toEqual([expect.stringMatching(/^import-x\/no-cycle: Dependency cycle detected/)]);
  }, 60_000);

  it('conformance/ importing the reference server, the demo shop going past the SDK entry, production importing test support or vitest are reported', async () => {
    const conformance = summary(await layerMessages('conformance/http.ts', "export { startServer } from '../reference-server/index.ts';"));
    expect(conformance).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*must not import reference-server\//)]);
    const testSupport = summary(
      await layerMessages('reference-server/app.ts', "export { startCluster } from './test-support/pg-cluster.ts';"),
    );
    expect(testSupport).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*never imports test support/)]);
    const demo = summary(
      await layerMessages('reference-server/checkout/demo-shop.ts', "export { SESSION_TOKEN_SCHEME } from '../../sdk/client/auth.ts';"),
    );
    expect(demo).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*public entry sdk\/client\/index\.ts/)]);
    const vitest = summary(await layerMessages('reference-server/app.ts', "export { it } from 'vitest';"));
    expect(vitest).toEqual([expect.stringMatching(/^no-restricted-imports: .*vitest/)]);
  }, 60_000);

  it('judge/ importing conformance/ (or the proxy) is reported: the one judge lies below both', async () => {
    // conformance/ imports the judge, so this import also closes a cycle (import-x/no-cycle); the layer rule names it
    const suite = summary(await layerMessages('judge/index.ts', "export { runSuite } from '../conformance/run.ts';"));
    expect(suite).toContainEqual(expect.stringMatching(/^import-x\/no-restricted-paths: .*judge\/ sits below conformance\/ and proxy\//));
    const proxy = summary(await layerMessages('judge/index.ts', "export type { Recorder } from '../proxy/report.ts';"));
    expect(proxy).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*judge\/ sits below conformance\/ and proxy\//)]);
  }, 60_000);

  it('proxy/ or judge/ importing recorded/ is reported: recorded traffic is judged and replayed above both', async () => {
    for (const file of ['proxy/server.ts', 'judge/index.ts']) {
      const up = summary(await layerMessages(file, "export { runJudge } from '../recorded/judge-cli.ts';"));
      expect(up, file).toContainEqual(expect.stringMatching(/^import-x\/no-restricted-paths: .*recorded\/ sits above proxy\/ and judge\//));
    }
  }, 60_000);

  it('a source file past 450 lines is reported (max-lines); a test file is not', async () => {
    const lengthOnly = untyped(new Set(['max-lines']));
    const padded = async (file: string, lines: number) => {
      const filePath = path.join(ROOT, file);
      const text = readFileSync(filePath, 'utf8').replace(/\n*$/, '\n');
      const pad = Math.max(0, lines - text.split('\n').length + 1);
      const [result] = await lengthOnly.lintText(text + '// filler\n'.repeat(pad), { filePath });
      return summary(result!.messages);
    };
    expect(await padded('model/rate.ts', 450)).toEqual([]);
    expect(await padded('model/rate.ts', 451)).toEqual([expect.stringMatching(/^max-lines: File has too many lines \(451\)/)]);
    expect(await padded('model/rate.test.ts', 600)).toEqual([]);
  }, 60_000);
});
