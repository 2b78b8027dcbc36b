/**
 * Variant 1 (quick start): `Service.init({ sessionToken })`, `Service.renderButton(selector)`,
 * `Service.on('success', cb)` / `Service.on('error', cb)`. The button flow opens the hosted page
 * in a popup. index.ts wraps these functions so that each returns `Service` for chaining.
 */
import { Checkout, type Outcome } from './checkout.ts';
import { ERRORS, initialised, requireSessionToken, resolveApiBase, resolveContainer, resolveLocale } from './options.ts';

export interface V1InitOptions {
  sessionToken: string;
  locale?: string;
  apiBaseUrl?: string;
}

export interface V1SuccessData {
  transactionId: string;
}

/** The error handed to on('error', cb). */
export interface V1ErrorData extends Error {
  reason: 'popup_blocked' | 'intent_failed' | 'payment_failed' | 'overlay_close' | 'popup_closed' | 'user_cancelled';
  status?: number;
  code?: string | null;
  transactionId?: string;
}

type V1Events = { success: Array<(d: V1SuccessData) => void>; error: Array<(e: V1ErrorData) => void> };
const handlers: V1Events = { success: [], error: [] };
let checkout: Checkout | null = null;

function v1Error(message: string, extra: Omit<V1ErrorData, 'name' | 'message'>): V1ErrorData {
  return Object.assign<Error, typeof extra>(new Error(message), extra);
}

/** Calls every handler of `event`; one handler's exception does not stop the others. */
function emit<K extends keyof V1Events>(event: K, data: Parameters<V1Events[K][number]>[0]): void {
  for (const cb of handlers[event]) {
    try {
      (cb as (d: typeof data) => void)(data);
    } catch (e) {
      console.error(e);
    }
  }
}

function report(o: Outcome): void {
  switch (o.kind) {
    case 'blocked':
      emit('error', v1Error(ERRORS.popupBlocked, { reason: 'popup_blocked' }));
      return;
    case 'intent_failed':
      emit('error', v1Error(o.error.message, { reason: 'intent_failed', status: o.error.status, code: o.error.code }));
      return;
    case 'completed':
      if (o.status === 'SUCCESS' && o.transactionId) emit('success', { transactionId: o.transactionId });
      else
        emit(
          'error',
          v1Error('Payment failed', { reason: 'payment_failed', ...(o.transactionId ? { transactionId: o.transactionId } : {}) }),
        );
      return;
    case 'cancelled':
      emit('error', v1Error('Payment cancelled', { reason: o.reason, ...(o.transactionId ? { transactionId: o.transactionId } : {}) }));
      return;
  }
}

export function initButton(options: V1InitOptions): void {
  const o = (options ?? {}) as Partial<V1InitOptions>;
  const token = requireSessionToken(o.sessionToken, ERRORS.sessionTokenRequiredV1);
  checkout = new Checkout({ token, locale: resolveLocale(o.locale), flow: 'button', apiBase: resolveApiBase(o.apiBaseUrl) }, report);
}

export function renderButtonIn(selector: string | Element): void {
  initialised(checkout).render(resolveContainer(selector));
}

export function subscribe(event: string, cb: unknown): void {
  if (event !== 'success' && event !== 'error') throw new Error(`Unknown event: ${event}`);
  if (typeof cb !== 'function') throw new Error('callback must be a function');
  (handlers[event] as unknown[]).push(cb);
}
