/**
 * The webhook receiver's items of the go-live check: certify sends the merchant's webhook URL
 * events signed with the sandbox's secret for the merchant (Standard Webhooks v1, with the SDK's
 * signer `signTestWebhook`, the same code the SDK verifies with), and forged ones:
 *
 *   - a valid signed event is answered 2xx within the delivery timeout (`x-webhook-delivery`);
 *   - a forged signature, a wrong secret, a timestamp outside the tolerance and a tampered body
 *     are each refused (non-2xx);
 *   - a redelivery with the same `webhook-id` (signed afresh, as a retry is) is answered 2xx.
 *
 * The event is the spec's example of `transaction.approved` with a fresh timestamp and a
 * `vendorReference` naming the check, so the receiver can tell it from a real order.
 */
import { randomBytes } from 'node:crypto';
import { loadBundledDocument, webhookDelivery } from '../generated/index.ts';
import { signTestWebhook } from '../sdk/webhooks/verify.ts';
import { guideLink, type CheckItem, type Verdict } from './checklist.ts';

type Json = Record<string, unknown>;

export interface ReceiverCheckOptions {
  webhookUrl: string | null;
  /** The merchant's signing secret (the sandbox's, `GET /api/v1/sandbox/webhook-endpoint`). */
  secret: string | null;
  docsUrl: string;
  /** How long a receiver may take to answer (default: the contract's delivery timeout). */
  deliveryTimeoutMs?: number;
  now?: () => Date;
}

/** What one delivery got: the status, or why there was none. */
interface Delivery {
  status: number | null;
  ms: number;
  error: string | null;
}

/** The contract's delivery timeout (ms). */
export const DELIVERY_TIMEOUT_MS = webhookDelivery.retry.timeoutSeconds * 1000;
const TOLERANCE_S = webhookDelivery.signature.toleranceSeconds;

/** The spec's example `transaction.approved` event, at `now`, for an order of the check. */
export function sampleEvent(now: Date): Json {
  const schemas = (loadBundledDocument(1).components as Json).schemas as Json;
  const example = ((schemas.TransactionApprovedEvent as Json).examples as Json[] | undefined)?.[0];
  if (!example) throw new Error('the TransactionApprovedEvent schema has no example');
  const data = { ...(example.data as Json), vendorReference: `CERTIFY-${randomBytes(6).toString('hex')}` };
  return { ...example, timestamp: now.toISOString(), data };
}

async function deliver(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Delivery> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'PayLater-Certify/1.0 (+standard-webhooks-v1)', ...headers },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, ms: Math.round(performance.now() - started), error: null };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    const why =
      err.name === 'TimeoutError' || err.name === 'AbortError'
        ? `no answer within ${timeoutMs / 1000} s (the delivery timeout)`
        : `no answer: ${err.cause?.code ?? err.message}`;
    return { status: null, ms: Math.round(performance.now() - started), error: why };
  }
}

const ok = (d: Delivery): boolean => d.status !== null && d.status >= 200 && d.status < 300;
const described = (d: Delivery): string => (d.status === null ? d.error! : `answered ${d.status} in ${d.ms} ms`);

/** Runs the receiver items against `webhookUrl`. */
export async function receiverItems(o: ReceiverCheckOptions): Promise<CheckItem[]> {
  const guide = guideLink(o.docsUrl, 'receiver');
  const item = (id: string, title: string, verdict: Verdict, seen: string): CheckItem => ({
    id: `receiver.${id}`,
    group: 'receiver',
    title,
    verdict,
    seen,
    guide,
  });
  const titles = {
    valid: 'Answers a valid signed event 2xx within the delivery timeout',
    forged: 'Rejects a forged signature',
    wrongSecret: 'Rejects an event signed with another secret',
    staleTimestamp: 'Rejects a timestamp outside the tolerance',
    tampered: 'Rejects a tampered body',
    redelivery: 'Answers a redelivery with the same webhook-id 2xx',
  };
  const why = !o.webhookUrl
    ? 'no webhook URL: pass --webhook-url or set one with PUT /api/v1/sandbox/webhook-endpoint'
    : !o.secret
      ? 'the sandbox has no signing secret for this merchant (PUT /api/v1/sandbox/webhook-endpoint sets one)'
      : null;
  if (why) return Object.entries(titles).map(([id, t]) => item(id, t, 'not_observed', why));

  const url = o.webhookUrl!;
  const secret = o.secret!;
  const timeout = o.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  const now = o.now ?? (() => new Date());
  const out: CheckItem[] = [];

  // 1. a valid event
  const body = JSON.stringify(sampleEvent(now()));
  const signed = signTestWebhook(body, secret, { timestamp: now() });
  const id = signed['webhook-id'];
  const first = await deliver(url, body, signed, timeout);
  out.push(
    item(
      'valid',
      titles.valid,
      ok(first) ? 'pass' : 'fail',
      ok(first)
        ? `a signed transaction.approved (webhook-id ${id}) ${described(first)}`
        : `a correctly signed transaction.approved (webhook-id ${id}) ${described(first)}; the sandbox would retry it and, after the schedule, give up`,
    ),
  );

  // 2.–5. forged deliveries: each must be refused
  const refused = async (key: keyof typeof titles, what: string, send: () => Promise<Delivery>) => {
    const d = await send();
    const pass = d.status !== null && !ok(d);
    out.push(
      item(
        key,
        titles[key],
        pass ? 'pass' : 'fail',
        pass
          ? `${what}: ${described(d)}`
          : d.status === null
            ? `${what}: ${described(d)} (a refusal must be a non-2xx answer)`
            : `${what}: ${described(d)}; the receiver accepted an event it cannot trust (it does not verify the signature)`,
      ),
    );
  };
  const fresh = () => JSON.stringify(sampleEvent(now()));
  await refused('forged', 'a webhook-signature no secret made', () => {
    const b = fresh();
    const h = signTestWebhook(b, secret, { timestamp: now() });
    return deliver(url, b, { ...h, 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` }, timeout);
  });
  await refused('wrongSecret', 'an event signed with another whsec_ secret', () => {
    const b = fresh();
    return deliver(url, b, signTestWebhook(b, `whsec_${randomBytes(32).toString('base64')}`, { timestamp: now() }), timeout);
  });
  await refused('staleTimestamp', `an event signed ${TOLERANCE_S + 60} s ago (tolerance ${TOLERANCE_S} s)`, () => {
    const b = fresh();
    return deliver(url, b, signTestWebhook(b, secret, { timestamp: new Date(now().getTime() - (TOLERANCE_S + 60) * 1000) }), timeout);
  });
  await refused('tampered', 'a signed event whose body was changed after signing (amount)', () => {
    const event = sampleEvent(now());
    const b = JSON.stringify(event);
    const h = signTestWebhook(b, secret, { timestamp: now() });
    const data = event.data as Json;
    const tampered = JSON.stringify({ ...event, data: { ...data, amount: Number(data.amount) + 1 } });
    return deliver(url, tampered, h, timeout);
  });

  // 6. the first event again: same webhook-id and body, signed afresh as a retry is
  const again = await deliver(url, body, signTestWebhook(body, secret, { id, timestamp: now() }), timeout);
  out.push(
    item(
      'redelivery',
      titles.redelivery,
      ok(again) ? 'pass' : 'fail',
      ok(again)
        ? `the same event again (webhook-id ${id}) ${described(again)}`
        : `the same event again (webhook-id ${id}) ${described(again)}; a duplicate must be acknowledged 2xx (and not processed twice), or the sandbox keeps retrying it`,
    ),
  );
  return out;
}
