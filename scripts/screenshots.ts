/**
 * `npm run screenshots`: refreshes the README's committed screenshots (the dashboard's, the
 * checkout button's, the hosted page's, the demo shop's) by running the browser tests that take
 * them with `UPDATE_SCREENSHOTS=1`. A plain test run writes its screenshots only under
 * `.artifacts/` (git-ignored), so it never leaves the tree dirty.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './lib/paths.ts';

/** Set to `1` by `npm run screenshots`: the browser tests then refresh the README's copies (reference-server/test-support/browser-harness.ts). */
export const UPDATE_SCREENSHOTS_ENV = 'UPDATE_SCREENSHOTS';

/** The tests that copy a screenshot into the README's folders. */
export const SCREENSHOT_TESTS = [
  'reference-server/dashboard/dashboard.browser.test.ts',
  'reference-server/checkout/checkout.browser.test.ts',
];

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...SCREENSHOT_TESTS], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, [UPDATE_SCREENSHOTS_ENV]: '1' },
  });
  process.exitCode = r.status ?? 1;
}
