/**
 * Controls for the mutation self-test: proxies that inject no fault, only conditions a correct
 * server may legitimately show. The suite must report nothing through them.
 */
import type { Mutant } from './proxy.ts';

/** Longest delay the latency relay adds to a webhook delivery (ms); below the suite's webhook timeout. */
export const RELAY_MAX_DELAY_MS = 1500;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The plain server, through the proxy. */
export const plainServer: Mutant = { name: 'control: the plain server', profile: 'sandbox' };

/**
 * Webhooks through a relay that holds each delivery 0–RELAY_MAX_DELAY_MS at random: they arrive
 * late and out of order (the proxy acknowledges each delivery at once, so later ones overtake).
 */
export const latencyRelay: Mutant = {
  name: `control: webhooks delayed 0–${RELAY_MAX_DELAY_MS} ms and reordered`,
  profile: 'sandbox',
  async onWebhook(body, headers) {
    await sleep(Math.random() * RELAY_MAX_DELAY_MS);
    return { body, headers };
  },
};

export const controls: Mutant[] = [plainServer, latencyRelay];
