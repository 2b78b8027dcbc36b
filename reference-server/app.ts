/**
 * The reference server as an app factory (no listen on import): the core, the API router
 * (http/router.ts) with its authenticator and rate limiter, `mount`ed routes (checkout page,
 * docs), then the JSON 404 and the error handler; the expiry sweeper and the webhook
 * dispatcher run beside it.
 */
import express from 'express';
import type { Variant } from '../generated/index.ts';
import type { Clock } from './domain/clock.ts';
import type { ServerConfig } from './config.ts';
import { Core, loggingSmsSender, type SmsSender } from './core.ts';
import { createAuthenticator } from './http/auth.ts';
import { createAuthThrottle, specAuthFailureLimit } from './http/auth-throttle.ts';
import { createErrorHandler, routeNotFound } from './http/errors.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { requestTargetGuard, securityHeaders } from './http/request-target.ts';
import { buildVariantApi, createApiRouter, type VariantApi } from './http/router.ts';
import type { Store } from './store/store.ts';
import type { WebhookDispatcher, WebhookDispatcherDeps } from './webhooks/contracts.ts';

export type { SmsSender } from './core.ts';

export interface CreateAppOptions {
  store: Store;
  clock: Clock;
  config: ServerConfig;
  smsSender?: SmsSender;
  webhookDispatcherFactory?: (deps: WebhookDispatcherDeps) => WebhookDispatcher;
  mount?: (app: express.Express) => void;
}

export interface AppHandle {
  app: express.Express;
  /** Stops the expiry sweeper and the webhook dispatcher, then closes the store (journal folded into the data file). */
  close(): Promise<void>;
  /** The core, for tests and tools (store, clock, merchants). */
  core: Core;
}

export async function createApp(opts: CreateAppOptions): Promise<AppHandle> {
  const { store, clock, config } = opts;
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const core = new Core(store, clock, config, opts.smsSender ?? loggingSmsSender(log));

  const apis: Record<Variant, VariantApi> = { 1: await buildVariantApi(core, 1), 2: await buildVariantApi(core, 2) };

  const rateLimiter = createRateLimiter((merchantId) => core.now(merchantId));
  core.onSandboxReset.push(rateLimiter.reset);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(securityHeaders);
  app.use(
    createApiRouter({
      apis,
      auth: createAuthenticator(core),
      rateLimit: rateLimiter.limit,
      mode: config.mode,
      publicBaseUrl: config.publicBaseUrl,
      authThrottle:
        config.authFailureLimit === null ? null : createAuthThrottle(config.authFailureLimit ?? specAuthFailureLimit, () => clock.now()),
    }),
  );
  app.use(requestTargetGuard);
  opts.mount?.(app);
  app.use(routeNotFound);
  // Error bodies are validated too, against the responses of the request's operation.
  app.use(createErrorHandler((ctx, req, res, body) => apis[ctx.variant].validator.checkResponse(req, res, body), log));

  // Expiry in real time: sweep PENDING transactions whose window passed.
  const sweepTimer = setInterval(() => {
    core.sweep().catch((e: Error) => log(`expiry sweep failed: ${e.message}`));
  }, config.sweepIntervalMs ?? 1000);
  sweepTimer.unref();

  if (opts.webhookDispatcherFactory) {
    core.dispatcher = opts.webhookDispatcherFactory(core.dispatcherDeps());
    core.dispatcher.start();
    core.dispatcher.kick();
  }

  let closed = false;
  return {
    app,
    core,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(sweepTimer);
      await core.dispatcher?.stop();
      await store.close();
    },
  };
}
