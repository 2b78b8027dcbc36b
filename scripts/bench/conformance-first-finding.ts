/**
 * Figure: the conformance suite's median time to its first finding over the mutant catalogue
 * (target < 1 s), each mutant a proxy in front of one sandbox reference server.
 */
import { runMutantSelfTest } from '../../conformance/mutants/selftest.ts';
import { startTestServer } from '../../reference-server/testing.ts';
import { median, type Figure } from './tools.ts';

export const conformanceFirstFinding: Figure = {
  id: 'conformance-first-finding',
  title: 'Conformance: median time to first finding over the mutants (s)',
  target: '< 1',
  pass: (r) => r < 1,
  async run(ctx) {
    const results = await runMutantSelfTest({
      startServer: (merchants) => startTestServer({ merchants, mode: 'sandbox' }),
      log: (l) => ctx.log(`  ${l}`),
    });
    const missed = results.filter((m) => m.firstFindingMs === null);
    if (missed.length) throw new Error(`not found: ${missed.map((m) => m.name).join(', ')}`);
    const bySearch = results.filter((m) => m.phase === 'property');
    return {
      ratio: median(results.map((m) => m.firstFindingMs!)) / 1000,
      detail: `${results.length} mutants, ${bySearch.length} found by the random search (median shrunk length ${median(bySearch.map((m) => m.shrunkLength))}), ${results.length - bySearch.length} by the coverage tour`,
    };
  },
};
