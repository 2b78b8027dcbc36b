/** Mutants behind the proxy (test-support/mutants-harness.ts), part 1: state faults the proxy finds across requests. */
import { describeMutantsBehindProxy } from './test-support/mutants-harness.ts';

describeMutantsBehindProxy([
  ['duplicate vendorReference accepted', 'duplicate-reference'],
  ['cancel answers 200 but does not store', 'no-transition'],
  ['B2 read: totalAmount a centime more than created', 'contradiction'],
  ['updatedAt set at creation', 'timestamps'],
]);
