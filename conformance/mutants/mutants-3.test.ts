/** Part 3 of the mutation self-test (see self-test-parts.ts). */
import { describeMutantPart } from './self-test-parts.ts';

describeMutantPart(3);
