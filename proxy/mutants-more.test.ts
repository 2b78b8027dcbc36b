/** Mutants behind the proxy (test-support/mutants-harness.ts), part 2: a wrong status, state faults of the sandbox, a missing webhook. */
import { describeMutantsBehindProxy } from './test-support/mutants-harness.ts';

describeMutantsBehindProxy([
  ['200 instead of 201 on create', 'answer'],
  ['cancel allowed from APPROVED', 'no-transition'],
  // The server expires the transaction and sends transaction.expired while the mutant's reads
  // show PENDING: a read whose time has certainly passed the window is an expiry-time finding,
  // and an expired event followed by a PENDING read is a webhook-no-transition one. The suite
  // stops at its first finding; which of the two the proxy saw by then depends on the order (CI
  // once saw only the second). The expiry-time rule itself: proxy/state.test.ts.
  ['B2/B3 show PENDING after the payment window', ['expiry-time', 'webhook-no-transition']],
  ['missing webhook (transaction.cancelled dropped)', 'webhook-missing'],
]);
