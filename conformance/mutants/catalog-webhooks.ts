/**
 * Webhook faults a real sender ships: the amount in centimes, a duplicate under a new id, a stale
 * timestamp, a wrong secret, a body tampered after signing, a changed storeName and an event sent
 * for a move that did not happen. Each rewrites a webhook on its way from the correct server to
 * the suite's receiver (re-signed where the fault is in the content, so only that fault shows).
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { sign, type Mutant } from './proxy.ts';

export const webhookMutants: Mutant[] = [
  {
    name: 'webhook data.amount in centimes (re-signed)',
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { data: { amount: number } };
      const changed = JSON.stringify({ ...p, data: { ...p.data, amount: Math.round(p.data.amount * 100) } });
      return Promise.resolve({ body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } });
    },
  },
  {
    name: 'webhook duplicated under a new webhook-id',
    profile: 'sandbox',
    async onWebhook(body, headers, ctx) {
      await ctx.sendWebhook(body, sign(ctx.secret, body));
      return { body, headers };
    },
  },
  {
    name: 'webhook with a stale timestamp (10 min old, re-signed)',
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const id = headers['webhook-id'] ?? `msg_${randomUUID().replace(/-/g, '')}`;
      const ts = new Date(Date.now() - 600_000);
      return Promise.resolve({
        body,
        headers: {
          ...headers,
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
          'webhook-signature': new Webhook(ctx.secret).sign(id, ts, body),
        },
      });
    },
  },
  {
    name: 'webhook signed with a wrong secret',
    profile: 'sandbox',
    onWebhook(body, headers) {
      return Promise.resolve({ body, headers: { ...headers, ...sign(`whsec_${Buffer.from(randomUUID()).toString('base64')}`, body) } });
    },
  },
  {
    name: 'webhook body tampered after signing',
    profile: 'sandbox',
    onWebhook(body, headers) {
      const p = JSON.parse(body) as { data: Record<string, unknown> };
      return Promise.resolve({ body: JSON.stringify({ ...p, data: { ...p.data, storeName: `${String(p.data.storeName)} ` } }), headers });
    },
  },
  {
    name: 'webhook storeName changed (re-signed)',
    profile: 'sandbox',
    onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { data: Record<string, unknown> };
      const changed = JSON.stringify({ ...p, data: { ...p.data, storeName: 'Another store' } });
      return Promise.resolve({ body: changed, headers: { ...headers, ...sign(ctx.secret, changed) } });
    },
  },
  {
    name: 'unsolicited webhook (approved sent after a cancel)',
    profile: 'sandbox',
    async onWebhook(body, headers, ctx) {
      const p = JSON.parse(body) as { event: string; data: Record<string, unknown> };
      if (p.event === 'transaction.cancelled') {
        const forged = JSON.stringify({
          ...p,
          event: 'transaction.approved',
          data: { ...p.data, status: 'APPROVED', approvedAt: new Date().toISOString() },
        });
        await ctx.sendWebhook(forged, sign(ctx.secret, forged));
      }
      return { body, headers };
    },
  },
];
