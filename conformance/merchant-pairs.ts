/**
 * Test merchants for runs of the suite against a server the test starts: per run a main
 * merchant, whose webhooks go to the suite's receiver on a free port, and an other merchant of
 * the same variant, each with a fresh test key.
 */
import { randomBytes } from 'node:crypto';
import { freePort } from '../lib/free-port.ts';
import type { MerchantSpec } from './mutants/selftest.ts';

/** The keys and receiver port a run of the suite is given. */
export interface MerchantPair {
  variant: 1 | 2;
  main: string;
  other: string;
  port: number;
}

/** Pair `i` named by `label` (unique within one server's merchants), the main merchant's webhooks signed with `webhookSecret`. */
export async function merchantPair(
  label: string,
  i: number,
  variant: 1 | 2,
  webhookSecret: string,
): Promise<{ pair: MerchantPair; merchants: MerchantSpec[] }> {
  const pair: MerchantPair = {
    variant,
    main: `sk_test_${label}_main_${i}_${randomBytes(6).toString('hex')}`,
    other: `sk_test_${label}_other_${i}_${randomBytes(6).toString('hex')}`,
    port: await freePort(),
  };
  const merchants: MerchantSpec[] = [
    {
      name: `Main ${i}`,
      storeName: `Store ${i}`,
      apiKey: pair.main,
      variant,
      webhookUrl: `http://127.0.0.1:${pair.port}/hooks`,
      webhookSecret,
    },
    { name: `Other ${i}`, storeName: `Other store ${i}`, apiKey: pair.other, variant },
  ];
  return { pair, merchants };
}
