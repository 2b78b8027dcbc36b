/**
 * PayLater browser SDK: assembles the global `Service` from both variants (variant1.ts: init /
 * renderButton / on; variant2.ts: Service.Payments). The frontend event is never proof of
 * payment: the merchant backend verifies (A2/A3). No runtime dependencies; works under a strict
 * CSP (see README).
 */
import { initButton, renderButtonIn, subscribe, type V1ErrorData, type V1InitOptions, type V1SuccessData } from './variant1.ts';
import { Payments } from './variant2.ts';

export { Payments };
export type { V1ErrorData, V1InitOptions, V1SuccessData } from './variant1.ts';
export type { PaymentCallbackResponse, PaymentsInitOptions } from './variant2.ts';

declare const __SDK_VERSION__: string;
/** The package version, set by the build (`define`); `0.0.0-dev` when not bundled. */
export const VERSION: string = typeof __SDK_VERSION__ === 'string' ? __SDK_VERSION__ : '0.0.0-dev';

export function init(options: V1InitOptions): typeof Service {
  initButton(options);
  return Service;
}

export function renderButton(selector: string | Element): typeof Service {
  renderButtonIn(selector);
  return Service;
}

export function on(event: 'success', cb: (d: V1SuccessData) => void): typeof Service;
export function on(event: 'error', cb: (e: V1ErrorData) => void): typeof Service;
export function on(event: string, cb: (arg: never) => void): typeof Service {
  subscribe(event, cb);
  return Service;
}

export const Service = { version: VERSION, Payments, init, renderButton, on };
