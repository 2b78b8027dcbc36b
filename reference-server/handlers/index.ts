/**
 * One handler per operationId. Each reads what it needs, decides with the domain's rules,
 * and writes every change (record + outbox event + SMS) in one repository transaction that
 * locks the records it changes and checks them there, so concurrent requests (on this or
 * another instance) cannot interleave inside a decision.
 */
import { checkoutHandlers } from './checkout.ts';
import type { AnyHandler, Handlers, OperationId } from './context.ts';
import { partnerHandlers } from './partner.ts';
import { sandboxHandlers } from './sandbox.ts';
import { sandboxEventHandlers } from './sandbox-events.ts';
import { sandboxApiLogHandlers } from './sandbox-api-log.ts';
import { sandboxFaultHandlers } from './sandbox-faults.ts';
import { sandboxResetHandlers } from './sandbox-reset.ts';
import { sandboxTransactionHandlers } from './sandbox-transactions.ts';
import { sandboxWebhookHandlers } from './sandbox-webhooks.ts';
import { sdkHandlers } from './sdk.ts';
import { serviceHandlers } from './service.ts';

export type { AnyHandler, Ctx, Handler, Result } from './context.ts';

/** A handler of every operation of either variant, each typed by its operationId. */
export const typedHandlers: Handlers<OperationId> = {
  ...checkoutHandlers,
  ...partnerHandlers,
  ...sdkHandlers,
  ...sandboxHandlers,
  ...sandboxEventHandlers,
  ...sandboxFaultHandlers,
  ...sandboxApiLogHandlers,
  ...sandboxResetHandlers,
  ...sandboxTransactionHandlers,
  ...sandboxWebhookHandlers,
  ...serviceHandlers,
};

/**
 * The handlers as the router calls them, by operationId. The router hands a handler the request
 * of the operation it matched, validated against the same document the handler's types come
 * from (`OperationCtx`), so the typed handler is called with what its type says.
 */
export const handlers = typedHandlers as unknown as Readonly<Record<string, AnyHandler>>;
