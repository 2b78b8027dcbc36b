/**
 * The caller's webhook endpoint at run time (ADR-042): read, set or replace the URL and
 * secret, rotate the secret with a window during which both secrets sign. Stored in the
 * merchant's sandbox state, so it survives a restart and wins over the merchants file.
 */
import { iso } from '../domain/clock.ts';
import type { MerchantStateRecord, WebhookSetting } from '../domain/types.ts';
import type { Core } from '../core.ts';
import { ApiError } from '../http/errors.ts';
import { generateWebhookSecret } from '../webhooks/signing.ts';
import { checkWebhookUrl } from '../webhooks/url-policy.ts';
import type { Handler } from './context.ts';

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

/** The current setting (the merchants file's when none was set at run time). */
function currentSetting(core: Core, merchantId: string): WebhookSetting {
  const st = core.merchantState(merchantId);
  if (st.webhook) return st.webhook;
  const m = core.merchantsById.get(merchantId)!;
  return { url: m.webhookUrl, secret: m.webhookSecret, previousSecret: null, previousSecretExpiresAt: null };
}

async function save(core: Core, merchantId: string, next: Partial<MerchantStateRecord>): Promise<void> {
  const st = core.merchantState(merchantId);
  await core.commit([{ c: 'merchantState', k: merchantId, v: { ...st, ...next } }]);
}

export const sandboxWebhookHandlers: Record<string, Handler> = {
  sandboxGetWebhookEndpoint: (core, ctx) => Promise.resolve({ status: 200, body: endpointView(core, ctx.merchant.id) }),

  async sandboxSetWebhookEndpoint(core, ctx) {
    const body = ctx.body as { url: string | null; secret?: string };
    const id = ctx.merchant.id;
    let url: string | null = null;
    if (body.url !== null) {
      const verdict = checkWebhookUrl(body.url, core.config.mode);
      if (!verdict.ok) throw new ApiError('VALIDATION_ERROR', `url ${verdict.reason}`, [{ path: 'body.url', message: verdict.reason }]);
      url = verdict.url.href;
    }
    const cur = currentSetting(core, id);
    const secret = body.secret ?? cur.secret ?? generateWebhookSecret();
    const webhook: WebhookSetting = { ...cur, url, secret };
    await save(core, id, { webhook, endpointEnabled: true });
    return { status: 200, body: endpointView(core, id) };
  },

  async sandboxRotateWebhookSecret(core, ctx) {
    const { overlapSeconds = 86_400 } = ctx.body as { overlapSeconds?: number };
    const id = ctx.merchant.id;
    const cur = currentSetting(core, id);
    const keep = overlapSeconds > 0 && cur.secret !== null;
    const webhook: WebhookSetting = {
      url: cur.url,
      secret: generateWebhookSecret(),
      previousSecret: keep ? cur.secret : null,
      previousSecretExpiresAt: keep ? iso(core.now(id) + overlapSeconds * 1000) : null,
    };
    await save(core, id, { webhook });
    return { status: 200, body: endpointView(core, id) };
  },
};
