/** Part 2 of the mutation self-test (see ../test-support/self-test-parts.ts), against the reference server in sandbox mode. */
import { startTestServer } from '../../reference-server/testing.ts';
import { describeMutantPart } from '../test-support/self-test-parts.ts';

describeMutantPart(2, (merchants) => startTestServer({ merchants, mode: 'sandbox' }));
