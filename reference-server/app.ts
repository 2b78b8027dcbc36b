/**
 * The reference server as an app factory (no listen on import): the core, the API routers
 * (http/router.ts, on paylater-contract/server) with its authenticator and rate limiter, `mount`ed routes (checkout page,
 * docs), then the JSON 404 and the error handler; the expiry sweeper and the webhook
 * dispatcher run beside it.
 */
import express from 'express';
import type { Clock } from './domain/clock.ts';
import type { ServerConfig } from './config.ts';
import { Core, loggingSmsSender, type SmsSender } from './core.ts';
import { createAuthenticator } from './http/auth.ts';
import { createAuthThrottle, specAuthFailureLimit } from './http/auth-throttle.ts';
import { createErrorHandler, routeNotFound } from './http/errors.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { requestTargetGuard, securityHeaders } from './http/request-target.ts';
import { createApiRouters } from './http/router.ts';
import { createSimulator } from './http/simulate.ts';
import { createApiLogRecorder } from './http/api-log.ts';
import type { Repository } from './store/repository.ts';
import type { WebhookDispatcher, WebhookDispatcherDeps } from './webhooks/contracts.ts';

export type { SmsSender } from './core.ts';

export interface CreateAppOptions {
  /** Where everything is stored: the SQLite store (memory or data file), PostgreSQL, or another store of the interface. */
  repository: Repository;
  clock: Clock;
  config: ServerConfig;
  smsSender?: SmsSender;
  webhookDispatcherFactory?: (deps: WebhookDispatcherDeps) => WebhookDispatcher;
  mount?: (app: express.Express) => void;
}

export interface AppHandle {
  app: express.Express;
  /** Stops the expiry sweeper and the webhook dispatcher, then closes the repository. */
  close(): Promise<void>;
  /** The core, for tests and tools (`core.repo`, clock, merchants). */
  core: Core;
}

export async function createApp(opts: CreateAppOptions): Promise<AppHandle> {
  const { repository, clock, config } = opts;
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const core = new Core(repository, clock, config, opts.smsSender ?? loggingSmsSender(log));
  await core.refreshMerchants();

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const auth = createAuthenticator(core);
  // What every request meets first, run in turn as one layer: the security headers, the
  // go-live check's record of the API calls of a merchant that records them (ADR-056), failures
  // on demand (ADR-052), answered before the API runs anything, then the API.
  app.use(
    inTurn(
      securityHeaders,
      createApiLogRecorder({ core, auth }),
      createSimulator({ core, auth, mode: config.mode }),
      ...createApiRouters({
        core,
        auth,
        rateLimit: createRateLimiter(repository, (merchantId) => core.now(merchantId)),
        mode: config.mode,
        publicBaseUrl: config.publicBaseUrl,
        authThrottle:
          config.authFailureLimit === null
            ? null
            : createAuthThrottle(repository, config.authFailureLimit ?? specAuthFailureLimit, () => clock.now()),
        refreshMerchant: (merchantId) => core.refreshMerchant(merchantId),
        log,
      }),
    ),
  );
  app.use(requestTargetGuard);
  opts.mount?.(app);
  app.use(routeNotFound);
  app.use(createErrorHandler(log));

  // Expiry in real time: sweep PENDING transactions whose window passed (on every merchant's clock as stored now).
  let sweeping = false;
  const sweepTimer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    core
      .refreshMerchants()
      .then(() => core.sweep())
      .catch((e: Error) => log(`expiry sweep failed: ${e.message}`))
      .finally(() => (sweeping = false));
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
      core.stop();
      await repository.close();
    },
  };
}

/**
 * `handlers` run one after the other as a single express layer: express matches, wraps and
 * restores a request once per layer, so the middlewares every request passes are one layer,
 * not five. An error (or a rejected promise) goes to express's error handlers, as from a layer.
 */
function inTurn(...handlers: express.RequestHandler[]): express.RequestHandler {
  return (req, res, next) => {
    let i = 0;
    const step = (err?: unknown): void => {
      const handler = handlers[i++];
      if (err || !handler) return next(err);
      try {
        (handler(req, res, step) as Promise<void> | undefined)?.then?.(undefined, next);
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
