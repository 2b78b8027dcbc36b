import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll fails once its timeout passes, even when a slow attempt would have passed;
    // a Chromium round-trip on a busy machine can take longer than the 1 s default.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    reporters: ['default'],
  },
});
