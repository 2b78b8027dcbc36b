/**
 * Spec edits in a scratch copy, as an API designer makes them: the package's sources copied to a
 * temporary folder (its tests too, which the rule index reads; no build output; `node_modules` linked), one edit made in one place of
 * its spec/, then `npm run lint -- --fix` (the copy's own lint: the facts' copies written into spec/,
 * generated/ written, the contract linted). The copy's server, suite, proxy, dashboard and docs are
 * then imported into this process from the copy's own files (a module graph of their own, reading
 * the copy's generated/), beside this package's unedited ones.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/paths.ts';
import type * as LintModule from '../lint.ts';
import type * as TestingModule from '../../reference-server/testing.ts';
import type * as RunModule from '../../conformance/run.ts';
import type * as PairsModule from '../../conformance/merchant-pairs.ts';
import type * as ProxyModule from '../../proxy/server.ts';
import type * as DashboardModule from '../../reference-server/dashboard/router.ts';
import type * as LimitsModule from '../docs/limits.ts';
import type * as ErrorsModule from '../docs/errors.ts';
import type * as DiagramModule from '../docs/state-diagram.ts';
import type * as BuildModule from '../docs/build.ts';
import type * as GeneratedModule from '../../generated/index.ts';
import type * as ProtocolModule from '../../lib/checkout-protocol.ts';
import type { SuiteOptions, SuiteResult } from '../../conformance/run.ts';

/** What a scratch copy leaves out: build output, the repository, local data. */
const SKIP = new Set(['node_modules', 'dist', '.git', '.artifacts', 'data', '.helpers', 'coverage']);

export interface Scratch {
  dir: string;
  dispose(): void;
}

/** A copy of the package's sources in a temporary folder, `node_modules` linked to this one's. */
export function scratchCopy(label: string): Scratch {
  const dir = mkdtempSync(path.join(os.tmpdir(), `paylater-edit-${label}-`));
  cpSync(ROOT, dir, {
    recursive: true,
    filter: (src) => {
      const name = path.basename(src);
      return src === ROOT || !SKIP.has(name);
    },
  });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Edits one file of the copy (`rel` under its root); the edit must change it. */
export function editFile(dir: string, rel: string, edit: (text: string) => string): void {
  const file = path.join(dir, rel);
  const before = readFileSync(file, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`the edit of ${rel} changed nothing`);
  writeFileSync(file, after);
}

/** `npm run lint -- --fix` in the copy, with its own modules: the lines it logged and what it still refuses. */
export async function lintFix(dir: string): Promise<{ problems: string[]; log: string[] }> {
  const lint = (await import(path.join(dir, 'scripts', 'lint.ts'))) as typeof LintModule;
  const log: string[] = [];
  const problems = await lint.lintContract((l) => log.push(l), { fix: true });
  return { problems, log };
}

/** The parts of a package (this one, or a scratch copy after its generated/ was written) that judge or serve. */
export interface Parts {
  testing: typeof TestingModule;
  run: typeof RunModule;
  pairs: typeof PairsModule;
  proxy: typeof ProxyModule;
  dashboard: typeof DashboardModule;
  limits: typeof LimitsModule;
  errors: typeof ErrorsModule;
  diagram: typeof DiagramModule;
  docs: typeof BuildModule;
  generated: typeof GeneratedModule;
  /** The hosted checkout page's checks of what it is handed. */
  protocol: typeof ProtocolModule;
}

/** Imports the parts of the package at `dir` (default: this one) from its own files. */
export async function partsOf(dir: string = ROOT): Promise<Parts> {
  const load = <T>(rel: string): Promise<T> => import(path.join(dir, rel)) as Promise<T>;
  const [testing, run, pairs, proxy, dashboard, limits, errors, diagram, docs, generated, protocol] = await Promise.all([
    load<Parts['testing']>('reference-server/testing.ts'),
    load<Parts['run']>('conformance/run.ts'),
    load<Parts['pairs']>('conformance/merchant-pairs.ts'),
    load<Parts['proxy']>('proxy/server.ts'),
    load<Parts['dashboard']>('reference-server/dashboard/router.ts'),
    load<Parts['limits']>('scripts/docs/limits.ts'),
    load<Parts['errors']>('scripts/docs/errors.ts'),
    load<Parts['diagram']>('scripts/docs/state-diagram.ts'),
    load<Parts['docs']>('scripts/docs/build.ts'),
    load<Parts['generated']>('generated/index.ts'),
    load<Parts['protocol']>('lib/checkout-protocol.ts'),
  ]);
  return { testing, run, pairs, proxy, dashboard, limits, errors, diagram, docs, generated, protocol };
}

/**
 * The judge of traffic on a suite run: the run's requests go through it to `upstream`, and what it
 * found comes back with the suite's result. Today the judge is `paylater proxy`'s engine
 * (`startLiveProxy` of the parts' proxy/server.ts, its state tracker and exchange judge); this is the
 * one place to put another judge of the same traffic.
 */
export async function judgedRun(
  parts: Parts,
  upstream: string,
  run: (baseUrl: string) => Promise<SuiteResult>,
): Promise<{ result: SuiteResult; judged: string[] }> {
  const proxy = await parts.proxy.startLiveProxy({ upstream });
  try {
    const result = await run(proxy.url);
    const report = proxy.recorder.report() as { findingList: Array<{ message: string }> };
    return { result, judged: report.findingList.map((f) => f.message) };
  } finally {
    await proxy.close();
  }
}

/** A suite run's options for one merchant pair of a server (sandbox profile unless told). */
export function suiteOptions(
  baseUrl: string,
  pair: { variant: 1 | 2; main: string; other: string; port: number },
  secret: string,
  over: Partial<SuiteOptions> = {},
): SuiteOptions {
  const profile = over.profile ?? 'sandbox';
  return {
    baseUrl,
    apiKey: pair.main,
    otherApiKey: pair.other,
    variant: pair.variant,
    profile,
    runs: 1,
    seed: 1,
    maxCommands: 6,
    webhookPort: profile === 'sandbox' ? pair.port : undefined,
    webhookSecret: profile === 'sandbox' ? secret : undefined,
    webhookGraceMs: 60,
    ...over,
  };
}

/** A finding's first line, for a failing assertion's message. */
export function findingLines(r: SuiteResult): string[] {
  return r.findings.map((f) => `[${f.phase}] ${f.message.split('\n')[0]!}`);
}
