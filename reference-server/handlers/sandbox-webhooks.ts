/**
 * The caller's webhook endpoint at run time (ADR-042): read, set or replace the URL and
 * secret, rotate the secret with a window during which both secrets sign, send a test
 * event. Stored in the
 * merchant's sandbox state, so it survives a restart and wins over the merchants file.
 */
import { iso } from '../domain/clock.ts';
import { newTransaction } from '../domain/transaction-record.ts';
import type { MerchantStateRecord, TransactionRecord, WebhookSetting } from '../domain/types.ts';
import type { Core } from '../core.ts';
import { ApiError } from '../http/errors.ts';
import { generateWebhookSecret } from '../webhooks/signing.ts';
import { checkWebhookUrl } from '../webhooks/url-policy.ts';
import type { OutboxEvent, WebhookEventName } from '../domain/outbox-event.ts';
import { specRule } from './common.ts';
import type { Handlers } from './context.ts';

/** The endpoint as the API shows it. */
export function endpointView(core: Core, merchantId: string) {
  const m = core.merchantsById.get(merchantId)!;
  const v = core.view(m);
  const st = core.merchantState(merchantId);
  const previous = core.previousWebhookSecret(merchantId);
  return {
    url: v.webhookUrl,
    secret: v.webhookSecret,
    previousSecret: previous,
    previousSecretExpiresAt: previous ? (st.webhook?.previousSecretExpiresAt ?? null) : null,
    enabled: st.endpointEnabled,
  };
}

/** The current setting in state `st` (the merchants file's when none was set at run time). */
function currentSetting(core: Core, merchantId: string, st: MerchantStateRecord): WebhookSetting {
  if (st.webhook) return st.webhook;
  const m = core.merchantsById.get(merchantId)!;
  return { url: m.webhookUrl, secret: m.webhookSecret, previousSecret: null, previousSecretExpiresAt: null };
}

export const sandboxWebhookHandlers: Handlers<
  'sandboxGetWebhookEndpoint' | 'sandboxSetWebhookEndpoint' | 'sandboxRotateWebhookSecret' | 'sandboxSendTestWebhook'
> = {
  sandboxGetWebhookEndpoint: (core, ctx) => Promise.resolve({ status: 200, body: endpointView(core, ctx.merchant.id) }),

  /**
   * Sets the URL (by the merchants file's URL policy) and secret; the run-time setting wins over the file.
   * @rule ADR-042
   */
  async sandboxSetWebhookEndpoint(core, ctx) {
    const body = ctx.body;
    const id = ctx.merchant.id;
    let url: string | null = null;
    if (body.url !== null) {
      const verdict = checkWebhookUrl(body.url, core.config.mode);
      if (!verdict.ok) throw new ApiError('VALIDATION_ERROR', `url ${verdict.reason}`, [{ path: 'body.url', message: verdict.reason }]);
      url = verdict.url.href;
    }
    await core.updateMerchantState(id, (st) => {
      const cur = currentSetting(core, id, st);
      const secret = body.secret ?? cur.secret ?? generateWebhookSecret();
      return { ...st, webhook: { ...cur, url, secret }, endpointEnabled: true };
    });
    return { status: 200, body: endpointView(core, id) };
  },

  async sandboxRotateWebhookSecret(core, ctx) {
    // left out: the schema's `default` (ADR-042)
    const overlapSeconds = ctx.body.overlapSeconds ?? specRule<number>(ctx, ['overlapSeconds'], 'default');
    if (overlapSeconds === undefined) throw new Error('spec: overlapSeconds of the rotation request has no default');
    const id = ctx.merchant.id;
    await core.updateMerchantState(id, (st) => {
      const cur = currentSetting(core, id, st);
      const keep = overlapSeconds > 0 && cur.secret !== null;
      const webhook: WebhookSetting = {
        url: cur.url,
        secret: generateWebhookSecret(),
        previousSecret: keep ? cur.secret : null,
        previousSecretExpiresAt: keep ? iso(core.now(id) + overlapSeconds * 1000) : null,
      };
      return { ...st, webhook };
    });
    return { status: 200, body: endpointView(core, id) };
  },

  async sandboxSendTestWebhook(core, ctx) {
    const { event = 'transaction.approved' } = ctx.body;
    const id = ctx.merchant.id;
    const now = core.now(id);
    const change = core.eventChange(event, sampleTransaction(core, id, event, now), now);
    await core.commit([change]);
    const { merchantId: _m, ...view } = change.v as OutboxEvent;
    return { status: 200, body: view };
  },
};

/** A sample transaction in the state `event` reports; never stored (ADR-042's test event). */
function sampleTransaction(core: Core, merchantId: string, event: WebhookEventName, nowMs: number): TransactionRecord {
  const tx = newTransaction({
    kind: 'partner',
    createdBy: 'createPartnerTransaction', // shaped as a B1 transaction; never stored
    merchantId,
    vendorReference: 'TEST-WEBHOOK',
    totalCentimes: 129_950,
    currency: 'MAD',
    customerPhone: '212612345678',
    items: [{ name: 'Test item', reference: 'TEST', quantity: 1, unitPriceCentimes: 129_950, categoryId: null }],
    sessionId: null,
    paymentIntentId: null,
    nowMs,
    paymentWindowSeconds: core.config.paymentWindowSeconds,
  });
  const at = iso(nowMs);
  if (event === 'transaction.approved') return { ...tx, status: 'APPROVED', updatedAt: at, approvedAt: at };
  if (event === 'transaction.cancelled') return { ...tx, status: 'CANCELED', updatedAt: at };
  return { ...tx, status: 'EXPIRED', updatedAt: at, expiredAt: at };
}
