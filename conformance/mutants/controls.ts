/**
 * Controls for the mutation self-test: proxies that inject no fault, only conditions a correct
 * server may legitimately show. The suite must report nothing through them.
 */
import { Webhook } from 'standardwebhooks';
import { isJson } from '../../lib/json.ts';
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

/**
 * Every object's members in a random order, at every depth (arrays keep their order): a new order
 * each time, never the one given when an object has two members or more.
 */
export function shuffleMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shuffleMembers);
  if (!isJson(value)) return value;
  const entries = Object.entries(value);
  const order = entries.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  if (order.every((k, i) => k === i)) order.reverse();
  return Object.fromEntries(order.map((k) => [entries[k]![0], shuffleMembers(entries[k]![1])]));
}

/** A JSON text with every object's members shuffled; any other text as it is. */
function shuffledText(text: string): string {
  try {
    return JSON.stringify(shuffleMembers(JSON.parse(text)));
  } catch {
    return text;
  }
}

/** The main merchant's webhook endpoint (and its rotation), whose answers show the secrets that sign now. */
const ENDPOINT = /^\/api\/v1\/sandbox\/webhook-endpoint(\/rotate-secret)?$/;

/**
 * Every object's members written in another order (RFC 8259: objects are unordered), with the same
 * values: in every JSON answer, and in every webhook payload, signed again under the delivery's own
 * webhook-id and timestamp with the endpoint's secrets as its answers last showed them (its secret,
 * then the previous one, as many as the server's header carried; the merchant's configured secret
 * before any): a retry carries the same event in another order (as a server that serialises its
 * stored event again for each attempt sends it).
 */
export const membersReordered: Mutant = {
  name: "control: every object's members in another order (answers and webhooks)",
  profile: 'sandbox',
  async onResponse(req, res, ctx) {
    // a HEAD's answer has no body (ADR-024): nothing to read or reorder
    if (req.method === 'HEAD') return res;
    if (ENDPOINT.test(req.path) && res.status === 200 && (req.headers['x-api-key'] ?? '') === ctx.keys.main) {
      const e = JSON.parse(res.body) as { secret?: unknown; previousSecret?: unknown };
      ctx.cache.set(
        'signing',
        [e.secret, e.previousSecret].filter((x): x is string => typeof x === 'string'),
      );
    }
    return /json/.test(res.headers['content-type'] ?? '') ? { ...res, body: shuffledText(res.body) } : res;
  },
  async onWebhook(body, headers, ctx) {
    const out = shuffledText(body);
    const id = headers['webhook-id'] ?? '';
    const ts = new Date(Number(headers['webhook-timestamp'] ?? '') * 1000);
    const secrets = (ctx.cache.get('signing') as string[] | undefined) ?? [ctx.secret];
    const count = (headers['webhook-signature'] ?? '').split(' ').filter((x) => x.length > 0).length;
    const signature = secrets
      .slice(0, Math.max(1, count))
      .map((secret) => new Webhook(secret).sign(id, ts, out))
      .join(' ');
    return { body: out, headers: { ...headers, 'webhook-signature': signature } };
  },
};

export const controls: Mutant[] = [plainServer, latencyRelay, membersReordered];
