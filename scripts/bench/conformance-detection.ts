/**
 * Figures: (1) per mutant of the catalogue, the share of 5 seeds on which the suite finds it with
 * its default settings (the ratio is the lowest share; target 1.0), with the controls (the plain
 * server, the server behind the latency relay) required to give 0 findings on every seed. The
 * plain control's run times are shared with `conformance-full-run`.
 * Every (mutant, seed) gets its own merchant pair, so no run inherits another's rate-limit window.
 */
import { DEFAULT_RUNS } from '../../conformance/cli.ts';
import { controls } from '../../conformance/mutants/controls.ts';
import { mutants } from '../../conformance/mutants/catalog.ts';
import { prepareMutantSelfTest } from '../../conformance/mutants/selftest.ts';
import { startTestServer } from '../../reference-server/testing.ts';
import { median, type Figure } from './tools.ts';

export const SEEDS = [1, 2, 3, 4, 5];

export const conformanceDetection: Figure = {
  id: 'conformance-detection',
  title: 'Conformance: lowest share of 5 seeds finding a mutant',
  target: '= 1.0',
  pass: (r) => r >= 1,
  async run(ctx) {
    const list = [...mutants, ...controls];
    const shares: number[] = [];
    const dirty: string[] = [];
    const fullRunMs: number[] = [];
    for (const m of list) {
      // one server per mutant (its webhook relay ports are picked just before they are listened on)
      const st = await prepareMutantSelfTest(
        (merchants) => startTestServer({ merchants, mode: 'sandbox' }),
        SEEDS.map(() => m),
      );
      const isControl = controls.includes(m);
      let found = 0;
      try {
        for (const [si, seed] of SEEDS.entries()) {
          const r = await st.run(si, DEFAULT_RUNS, { seed, webhookTimeoutMs: isControl ? 3000 : undefined });
          if (r.findings > 0) found++;
          if (isControl) {
            if (r.findings > 0) dirty.push(`${m.name}, seed ${seed}: ${r.message}`);
            if (m.profile === 'sandbox' && !m.onWebhook) fullRunMs.push(r.result.durationMs);
          }
        }
      } finally {
        await st.close();
      }
      if (!isControl) shares.push(found / SEEDS.length);
      ctx.log(
        `  ${m.name}: ${isControl ? `${found}/${SEEDS.length} seeds with findings (control: must be 0)` : `found on ${found}/${SEEDS.length} seeds`}`,
      );
    }
    ctx.shared.set('conformanceFullRunMs', fullRunMs);
    if (dirty.length) throw new Error(`findings on a control: ${dirty.join('; ')}`);
    return {
      ratio: Math.min(...shares),
      detail: `${shares.filter((s) => s === 1).length}/${shares.length} mutants found on every seed; controls clean; full sandbox run (plain server) median ${(median(fullRunMs) / 1000).toFixed(1)} s`,
    };
  },
};
