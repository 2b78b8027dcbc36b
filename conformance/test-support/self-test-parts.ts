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
 * A focused run: `MUTANTS` (a regular expression, case-insensitive) keeps the mutants whose name
 * matches, each in its own part's file; `MUTANT_SEEDS` (comma-separated) runs each of them once per
 * seed instead of its own (1000 + its index), e.g.
 * `MUTANTS='a second|without a key' MUTANT_SEEDS=1000,1001,1002 npx vitest run conformance/mutants/mutants-*.test.ts`.
 */
export function selected(env: NodeJS.ProcessEnv = process.env): { only: RegExp | undefined; seeds: number[] | undefined } {
  const seeds = env.MUTANT_SEEDS?.split(',').map((x) => Number(x.trim()));
  if (seeds?.some((n) => !Number.isSafeInteger(n))) throw new Error(`MUTANT_SEEDS: ${env.MUTANT_SEEDS} is not a list of integers`);
  return { only: env.MUTANTS ? new RegExp(env.MUTANTS, 'i') : undefined, seeds };
}

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
    const { only, seeds } = selected();
    if (part === 1) it('has at least 50 mutants', () => expect(mutants.length).toBeGreaterThanOrEqual(50));
    mutants.forEach((mutant, i) => {
      if (i % PARTS !== part - 1 || (only && !only.test(mutant.name))) return;
      it.each(seeds ?? [undefined])(
        `finds: ${mutant.name}${seeds ? ' (seed %s)' : ''}`,
        async (seed) => {
          const r = await st.run(i, undefined, seed === undefined ? {} : { seed });
          results.push(r);
          expect(r.findings).toBeGreaterThan(0);
          if (r.phase === 'property') expect(r.shrunkLength).toBeLessThanOrEqual(MAX_SEARCH_LENGTH);
          // a long sequence says why it is not shorter: shrinking's time limit, no shorter failing one, or not shrunk (tour)
          if (r.shrunkLength > 6) expect(r.result.findings[0]!.shrinking).toMatch(/time limit|no shorter sequence fails|not shrunk/);
          // The property (search and shrinking) is bounded to 30 s (timeLimitMs, selftest.ts); with
          // the server's start and the tours a mutant found by the search takes up to ~40 s quiet, and
          // "rate limit off" (each try sends a burst past the A1 limit) passed 60 s with the three
          // parts side by side on a loaded machine, on unchanged code. The run's own bound decides;
          // this only keeps a slow machine from failing a mutant that is found. A fault only the
          // later tour's sub-second edges find waits out the whole search first: 68 s alone, 107–120 s
          // with the three parts side by side at load 20–25.
        },
        240_000,
      );
    });
  });
}
