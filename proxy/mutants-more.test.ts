/** Mutants behind the proxy (test-support/mutants-harness.ts), part 2: a wrong status, state faults of the sandbox, a missing webhook. */
import { describeMutantsBehindProxy } from './test-support/mutants-harness.ts';

describeMutantsBehindProxy([
  ['200 instead of 201 on create', 'answer'],
  ['cancel allowed from APPROVED', 'no-transition'],
  ['B2/B3 show PENDING after the payment window', 'expiry-time'],
  ['missing webhook (transaction.cancelled dropped)', 'webhook-missing'],
]);
