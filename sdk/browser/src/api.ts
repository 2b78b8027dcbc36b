/** The SDK's calls to the public SDK endpoints: the session preview and the payment intent. */
import { safeHttpUrl } from '../../../lib/checkout-protocol.ts';

export interface SessionSummary {
  total: number;
  currency: string;
  merchant_name: string;
  store_name: string;
  test_mode: boolean;
}

export interface PaymentIntent {
  payment_intent_id: string;
  checkout_url: string;
}

/** A payment intent that could not be created; `status` 0 when no answer arrived. */
export class IntentError extends Error {
  constructor(
    readonly status: number,
    readonly details: string,
    readonly code: string | null,
  ) {
    super(`Payment intent creation failed: ${status} - ${details}`);
    this.name = 'IntentError';
  }
}

/** The message and code of an error answer (the API's `{ error: { code, message } }` or plain text). */
async function readErrorDetails(res: Response): Promise<{ details: string; code: string | null }> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const err = body.error;
    if (typeof err === 'string') return { details: err, code: null };
    if (err && typeof err === 'object') {
      const e = err as { code?: unknown; message?: unknown };
      return {
        details: typeof e.message === 'string' ? e.message : res.statusText || 'error',
        code: typeof e.code === 'string' ? e.code : null,
      };
    }
  } catch {
    /* not JSON */
  }
  return { details: text.trim().slice(0, 200) || res.statusText || 'error', code: null };
}

export async function fetchSession(apiBase: string, token: string): Promise<SessionSummary> {
  const res = await fetch(`${apiBase}/api/v1/public/sdk/session`, {
    headers: { 'X-Session-Token': token, Accept: 'application/json' },
    credentials: 'omit',
  });
  if (!res.ok) {
    const { details } = await readErrorDetails(res);
    throw new Error(`Session unavailable: ${res.status} - ${details}`);
  }
  return (await res.json()) as SessionSummary;
}

/** Creates the payment intent; throws an IntentError, also when `checkout_url` is not a safe http(s) URL. */
export async function createIntent(apiBase: string, token: string, body: Record<string, string>): Promise<PaymentIntent> {
  let res: Response;
  try {
    res = await fetch(`${apiBase}/api/v1/public/sdk/payment-intents`, {
      method: 'POST',
      headers: { 'X-Session-Token': token, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    });
  } catch (e) {
    throw new IntentError(0, e instanceof Error ? e.message : String(e), null);
  }
  if (res.status !== 201) {
    const { details, code } = await readErrorDetails(res);
    throw new IntentError(res.status, details, code);
  }
  const intent = (await res.json()) as PaymentIntent;
  if (!safeHttpUrl(intent.checkout_url)) throw new IntentError(res.status, 'invalid checkout_url', null);
  return intent;
}
