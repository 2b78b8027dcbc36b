import { defineConfig } from 'vitest/config';

/**
 * The API tests that run again on the PostgreSQL store: every test server on a fresh database
 * (`postgres`), then as two instances on one database behind a round-robin proxy (`postgres-2`);
 * see reference-server/test-support/test-database.ts.
 */
/**
 * The test files that spend their time waiting out a real-time window the contract fixes, not on a
 * CPU: `npm test` (scripts/test.sh) runs them in a vitest of their own beside the others, so they
 * do not hold one of the two workers the CPU-bound files share. Measured alone (wall, CPU):
 * throttle-control ~300 s, a few s (ADR-027's failed-authentication window, four runs);
 * auth-pacer 29 s, 7 s (the suite's pacing under that throttle); certify 26 s, 8 s (a receiver
 * slower than the 10 s delivery timeout, twice).
 */
const waits = ['conformance/throttle-control.test.ts', 'conformance/auth-pacer.test.ts', 'certify/certify.test.ts'];

/**
 * The test files that replace a module (`vi.mock`), spy on one, or change the process's own state
 * (its environment, its listeners), or measure the process's heap: each runs in a module graph of its
 * own (vitest's `isolate`).
 * The others share their worker's modules, file after file: the reference server, the suite and
 * the compiled contract are loaded once per worker instead of once per file.
 */
const isolated = [
  'conformance/model-purity.test.ts',
  'judge/memory.test.ts',
  'reference-server/http/auth.test.ts',
  'reference-server/service.test.ts',
  'reference-server/simulate.test.ts',
  'reference-server/store/postgres/migrate.test.ts',
  'sdk/browser/src/options.test.ts',
];

const onPostgresToo = [
  'reference-server/amount-range.test.ts',
  'reference-server/api-log.test.ts',
  'reference-server/api.checkout.test.ts',
  'reference-server/api.input-bounds.test.ts',
  'reference-server/api.partner.test.ts',
  'reference-server/auth-throttle.test.ts',
  'reference-server/body-limit.test.ts',
  'reference-server/payment-intent-cap.test.ts',
  'reference-server/sandbox-lists.test.ts',
  'reference-server/sandbox-reset.test.ts',
  'reference-server/sandbox-scenarios.test.ts',
  'reference-server/simulate.test.ts',
];

export default defineConfig({
  test: {
    exclude: ['node_modules/**', 'dist/**'],
    // One PostgreSQL cluster for the run, started by the first test file that needs one.
    globalSetup: ['reference-server/test-support/shared-cluster.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll fails once its timeout passes, even when a slow attempt would have passed;
    // a Chromium round-trip on a busy machine can take longer than the 1 s default.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    // Two test files at a time on the 2-core machine (the default is one fewer than the cores):
    // most files wait on servers, browsers and databases in other processes, not on their own CPU.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['**/*.test.ts'],
          exclude: ['node_modules/**', 'dist/**', ...waits, ...isolated],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: isolated } },
      { extends: true, test: { name: 'waits', include: waits } },
      { extends: true, test: { name: 'postgres', include: onPostgresToo, env: { PAYLATER_TEST_STORE: 'postgres' } } },
      { extends: true, test: { name: 'postgres-2', include: onPostgresToo, env: { PAYLATER_TEST_STORE: 'postgres-2' } } },
    ],
  },
});
