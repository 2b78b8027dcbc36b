/**
 * Figure: median time (s) of a full sandbox-profile run (default runs, webhooks checked) against
 * the reference server (target < 10); reuses the plain control's runs of `conformance-detection`
 * when that figure ran first.
 */
import { DEFAULT_RUNS } from '../../conformance/cli.ts';
import { plainServer } from '../../conformance/mutants/controls.ts';
import { prepareMutantSelfTest } from '../../conformance/mutants/selftest.ts';
import { startTestServer } from '../../reference-server/testing.ts';
import { SEEDS } from './conformance-detection.ts';
import { median, type Figure } from './tools.ts';

export const conformanceFullRun: Figure = {
  id: 'conformance-full-run',
  title: 'Conformance: full sandbox-profile run, reference server (s)',
  target: '< 10',
  pass: (r) => r < 10,
  async run(ctx) {
    let ms = ctx.shared.get('conformanceFullRunMs') as number[] | undefined;
    if (!ms?.length) {
      const st = await prepareMutantSelfTest(
        (merchants) => startTestServer({ merchants, mode: 'sandbox' }),
        SEEDS.map(() => plainServer),
      );
      try {
        ms = [];
        for (const [i, seed] of SEEDS.entries()) {
          const r = await st.run(i, DEFAULT_RUNS, { seed, webhookTimeoutMs: 3000 });
          if (r.findings) throw new Error(`the plain server gave ${r.findings} finding(s) on seed ${seed}: ${r.message}`);
          ms.push(r.result.durationMs);
        }
      } finally {
        await st.close();
      }
    }
    return {
      ratio: median(ms) / 1000,
      detail: `median of ${ms.length} seeds: ${ms.map((x) => (x / 1000).toFixed(1)).join('/')} s (runs ${DEFAULT_RUNS}, webhooks checked)`,
    };
  },
};
