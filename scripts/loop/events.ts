/** `paylater events resend <delivery id>`: queues a recorded webhook delivery again and prints its state and attempts. */
import type { V2 } from '../../generated/index.ts';
import { callApi, CliError, parseOptions, targetOf } from '../../lib/sandbox-client.ts';

export const EVENTS_USAGE = `Usage: paylater events resend <delivery id> [--base-url URL] [--api-key KEY]

Queues a recorded webhook delivery (msg_…, from GET /api/v1/sandbox/webhook-deliveries or
paylater trigger) again, with the same webhook-id, and re-enables the endpoint.
`;

/** A webhook delivery as the sandbox answers it. */
type Delivery = V2.components['schemas']['WebhookDelivery'];

export async function runEvents(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const { options, positionals } = parseOptions(argv, ['base-url', 'api-key'], ['help']);
  if (options.has('help')) {
    out(EVENTS_USAGE);
    return 0;
  }
  const [sub, id, ...extra] = positionals;
  if (sub !== 'resend' || !id || extra.length > 0) throw new CliError(`expected: events resend <delivery id>\n\n${EVENTS_USAGE}`, 2);
  const t = targetOf(options);
  const d = (await callApi(t, 'POST', `/api/v1/sandbox/webhook-deliveries/${encodeURIComponent(id)}/redeliver`)) as unknown as Delivery;
  out(`webhook delivery ${d.id} ${d.event} (transaction ${d.transactionId}): ${d.state}, next attempt ${d.nextAttemptAt ?? 'none'}\n`);
  for (const a of d.attempts) out(`  attempt ${a.attempt} at ${a.at}: ${a.status === null ? String(a.error) : `HTTP ${a.status}`}\n`);
  return 0;
}
