/**
 * Mutation self-test: every injected fault is reported by the suite with its default number of
 * runs. For each it prints who found it (the random model-based search or the coverage tour), the
 * time to the first finding and the shrunk length; what the search finds must shrink small.
 *
 * The catalogue is checked in parts, one test file each (`mutants-N.test.ts`), so the parts run
 * beside the other test files instead of one ten-minute file at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { median } from '../bench.ts';
import { DEFAULT_RUNS } from '../cli.ts';
import { mutants } from '../mutants/catalog.ts';
import { describeResult, prepareMutantSelfTest, type MutantResult, type StartServer } from '../mutants/selftest.ts';

/**
 * Longest shrunk sequence accepted from the random search. Most mutants shrink to 1–3 commands;
 * a fault that needs an APPROVED transaction (reached through a paid session) shrinks less well,
 * because commands pick their target by an index into the model's list, which moves when the
 * shrinker removes earlier commands; shrinking is bounded to 30 s per mutant (timeLimitMs).
 */
const MAX_SEARCH_LENGTH = 12;

/** How many test files the catalogue is split into. */
export const PARTS = 3;

/**
 * `MUTANTS=<regular expression>` runs only the mutants whose names it matches (each still with its
 * own seed, 1000 + its index in the catalogue), e.g. `MUTANTS="other merchant" npx vitest run
 * conformance/mutants/mutants-*.test.ts`: a focused run while working on a few.
 */
const only = process.env.MUTANTS ? new RegExp(process.env.MUTANTS) : undefined;

/**
 * Declares the self-test of part `part` (1 … PARTS) of the catalogue: every `PARTS`th mutant from
 * `part - 1`, against the server `start` starts (the test file gives it: this module stays black-box).
 */
export function describeMutantPart(part: number, start: StartServer): void {
  let st: Awaited<ReturnType<typeof prepareMutantSelfTest>>;
  const results: MutantResult[] = [];

  beforeAll(async () => {
    st = await prepareMutantSelfTest(start);
  });
  afterAll(async () => {
    await st?.close();
    const bySearch = results.filter((r) => r.phase === 'property');
    console.log(
      `mutants, part ${part} of ${PARTS} (runs ${DEFAULT_RUNS}): ${bySearch.length}/${results.length} found by the random search, median time to first finding ${(median(results.map((r) => r.firstFindingMs ?? NaN)) / 1000).toFixed(2)} s\n` +
        results.map((r) => `  ${describeResult(r)}`).join('\n'),
    );
  });

  describe(`mutation self-test, part ${part} of ${PARTS}`, () => {
    if (part === 1) it('has at least 50 mutants', () => expect(mutants.length).toBeGreaterThanOrEqual(50));
    mutants.forEach((mutant, i) => {
      if (i % PARTS !== part - 1 || (only && !only.test(mutant.name))) return;
      it(`finds: ${mutant.name}`, async () => {
        const r = await st.run(i);
        results.push(r);
        expect(r.findings).toBeGreaterThan(0);
        if (r.phase === 'property') expect(r.shrunkLength).toBeLessThanOrEqual(MAX_SEARCH_LENGTH);
        // a long sequence says why it is not shorter: shrinking's time limit, no shorter failing one, or not shrunk (tour)
        if (r.shrunkLength > 6) expect(r.result.findings[0]!.shrinking).toMatch(/time limit|no shorter sequence fails|not shrunk/);
        // The property (search and shrinking) is bounded to 30 s (timeLimitMs, selftest.ts); with
        // the server's start and the tours a mutant found by the search takes up to ~40 s quiet, and
        // "rate limit off" (each try sends a burst past the A1 limit) passed 60 s with the three
        // parts side by side on a loaded machine, on unchanged code. The run's own bound decides;
        // this only keeps a slow machine from failing a mutant that is found.
      }, 120_000);
    });
  });
}
