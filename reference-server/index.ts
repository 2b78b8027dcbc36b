/**
 * The reference server's public API, for embedding it in tests and tools:
 *
 *   import { startServer } from 'paylater-contract/reference-server';
 *   const server = await startServer();            // 127.0.0.1, a free port, in memory
 *   // server.baseUrl, server.merchants[0].apiKey (test keys), ...
 *   await server.close();
 *
 * `createApp` is the app factory underneath (an express app around the domain core, with the
 * repository, clock and config injected; `await openSqliteRepository()` (in memory) or `openSqliteRepository({ file })`,
 * or `await openPgRepository({ url })` for a shared sandbox on PostgreSQL), for hosting the server in an app of one's own.
 * `startServer({ databaseUrl })` runs on PostgreSQL too.
 */
import './node-check.ts';
import { mountSite } from './site.ts';
import { DEMO_MERCHANTS } from './config.ts';
import { startTestServer, type TestServerMerchant, type TestServerOptions } from './testing.ts';

export { createApp, type AppHandle, type CreateAppOptions, type SmsSender } from './app.ts';
export { buildMerchants, serverConfig, DEMO_MERCHANTS, ConfigError, type MerchantConfigInput, type Mode } from './config.ts';
export { openSqliteRepository, SqliteRepository, type SqliteRepositoryOptions } from './store/sqlite/sqlite-repository.ts';
export { openPgRepository, PgRepository, type PgRepositoryOptions } from './store/postgres/pg-repository.ts';
export type { Repository } from './store/repository.ts';
export { systemClock, type Clock } from './domain/clock.ts';
export { mountSite, type SiteOptions } from './site.ts';

export interface ServerOptions extends Omit<TestServerOptions, 'webhookDispatcherFactory'> {
  /** Serve the browser SDK, the hosted checkout page, `/demo` and `/docs` as `paylater serve` does (default true). */
  site?: boolean;
  /** Deliver webhooks to the merchants' webhook URLs (default true). */
  webhooks?: boolean;
}

/** A test merchant's id, name, variant, API key and webhook secret. */
export type ServerMerchant = TestServerMerchant;

export interface RunningServer {
  baseUrl: string;
  merchants: ServerMerchant[];
  close(): Promise<void>;
}

/**
 * Starts the reference server: by default on 127.0.0.1 on a free port, in memory, sandbox mode,
 * with the two demo merchants (one per variant, test keys). `dataFile` persists instead.
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const merchants = options.merchants ?? [...DEMO_MERCHANTS];
  const mode = options.mode ?? 'sandbox';
  const { site = true, webhooks = true, ...rest } = options;
  const server = await startTestServer({
    ...rest,
    merchants,
    mode,
    ...(webhooks ? {} : { webhookDispatcherFactory: null }),
    mount: options.mount ?? (site ? (app) => mountSite(app, { merchants, mode }) : undefined),
  });
  return { baseUrl: server.baseUrl, merchants: server.merchants, close: () => server.close() };
}
