#!/usr/bin/env node
/**
 * The `paylater` command (package.json `bin`): runs compiled, as dist/js/scripts/paylater.js
 * (`npm run build`). In this repository `npm start` runs scripts/cli.ts through tsx instead.
 * On a Node older than `engines` allows it prints one line and exits 2 before loading any command
 * (so `cli.ts` is imported only after the gate).
 */
import { unsupportedNode } from '../lib/node-gate.ts';

/** `paylater conform` has closed everything it opened when it returns; still alive this long after, it exits. */
const CONFORM_EXIT_GRACE_MS = 3000;

const refused = unsupportedNode();
if (refused !== null) {
  process.stderr.write(`${refused}\n`);
  process.exit(2);
}
const { main } = await import('./cli.ts');
const command = process.argv[2];
process.exitCode = await main(process.argv.slice(2));
if (command === 'conform') {
  // A safety net, not the mechanism: the suite closes its listeners, sockets and timers itself
  // (conformance/no-hang.test.ts fails if this line is ever printed). Unref'd: it fires only if
  // something still holds the process open, and then names it instead of hanging a CI job.
  setTimeout(() => {
    process.stderr.write(
      `paylater conform: still running ${CONFORM_EXIT_GRACE_MS / 1000} s after the run ended (open: ${process.getActiveResourcesInfo().join(', ')}); exiting\n`,
    );
    process.exit();
  }, CONFORM_EXIT_GRACE_MS).unref();
}
