/**
 * The public helpers for tests, tools and benchmarks:
 * - `startTestServer()`: the reference server on 127.0.0.1, port 0 (unless told), in memory unless
 *   a data file is given. Used by the conformance, SDK and docs tests and by this package's own;
 *   `startServer()` (index.ts) is its public form.
 * - `writeSeededDataFile()`: a database file holding given transactions, for a server to open.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type express from 'express';
import { createApp, type AppHandle, type SmsSender } from './app.ts';
import { buildMerchants, DEMO_MERCHANTS, serverConfig, type MerchantConfigInput, type Mode } from './config.ts';
import { parseDuration, systemClock, type Clock } from './domain/clock.ts';
import type { TransactionRecord } from './domain/types.ts';
import path from 'node:path';
import { openPgRepository } from './store/postgres/pg-repository.ts';
import type { Repository } from './store/repository.ts';
import { openSqliteRepository } from './store/sqlite/sqlite-repository.ts';
import { createWebhookDispatcher } from './webhooks/dispatcher.ts';
import type { WebhookDispatcher, WebhookDispatcherDeps } from './webhooks/contracts.ts';

export interface TestServerOptions {
  merchants?: MerchantConfigInput[];
  mode?: Mode;
  /** `30m`, `90s`, `1h` or seconds. Default 30m. */
  paymentWindow?: string;
  /** Persist to this SQLite database file instead of memory. */
  dataFile?: string;
  /** Keep everything in this PostgreSQL database instead (migrated at start); not with `dataFile`. */
  databaseUrl?: string;
  mount?: (app: express.Express) => void;
  /** Base clock (default: the system clock). */
  clock?: Clock;
  /** Replace the webhook delivery engine (null: none). Default: the real engine. */
  webhookDispatcherFactory?: ((deps: WebhookDispatcherDeps) => WebhookDispatcher) | null;
  /** Expiry sweep period (ms). */
  sweepIntervalMs?: number;
  log?: (line: string) => void;
  /** Production-mode SMS sender (default: logs). */
  smsSender?: SmsSender;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Base of absolute links (`--public-url`); default the listen address. */
  publicUrl?: string;
  /**
   * Throttle failed authentications per address (ADR-027), as `paylater serve` does. Default
   * off: test suites send wrong keys on purpose, far more than a client would by mistake.
   */
  throttleFailedAuth?: boolean;
}

export interface TestServerMerchant {
  id: string;
  name: string;
  storeName: string;
  apiKey: string;
  variant: 1 | 2;
  webhookUrl: string | null;
  webhookSecret: string | null;
}

export interface TestServer {
  baseUrl: string;
  merchants: TestServerMerchant[];
  close(): Promise<void>;
  /** The app handle (core, `core.repo`) for white-box tests of this package. */
  handle: AppHandle;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const inputs = options.merchants ?? [...DEMO_MERCHANTS];
  const merchants = buildMerchants(inputs);
  let windowSeconds: number | undefined;
  if (options.paymentWindow !== undefined) {
    const w = parseDuration(options.paymentWindow);
    if (w === null) throw new Error(`paymentWindow: cannot read "${options.paymentWindow}"`);
    windowSeconds = w;
  }
  const config = serverConfig({
    mode: options.mode ?? 'sandbox',
    paymentWindowSeconds: windowSeconds,
    merchants,
    sweepIntervalMs: options.sweepIntervalMs,
    publicBaseUrl: options.publicUrl,
    authFailureLimit: options.throttleFailedAuth ? undefined : null,
    log: options.log ?? (() => {}),
  });
  if (options.dataFile !== undefined && options.databaseUrl !== undefined)
    throw new Error('dataFile and databaseUrl cannot be used together');
  const repository: Repository =
    options.databaseUrl !== undefined
      ? await openPgRepository({ url: options.databaseUrl })
      : await openSqliteRepository(options.dataFile ? { file: path.resolve(options.dataFile) } : {});
  const factory =
    options.webhookDispatcherFactory === undefined ? await defaultDispatcherFactory() : (options.webhookDispatcherFactory ?? undefined);
  const handle = await createApp({
    repository,
    clock: options.clock ?? systemClock,
    config,
    webhookDispatcherFactory: factory,
    mount: options.mount,
    smsSender: options.smsSender,
  });
  const host = options.host ?? '127.0.0.1';
  const server: Server = await new Promise<Server>((resolve, reject) => {
    const s = handle.app.listen(options.port ?? 0, host, () => resolve(s));
    s.once('error', reject);
  }).catch(async (e: unknown) => {
    await handle.close();
    throw e;
  });
  // Node's own default, said once here because it matters: fetch (undici) reuses an idle connection
  // only while more than 2 s of the server's advertised keep-alive remain, so a shorter one (this
  // was 1 s) made every request of a test open a new connection and tear it down (a fifth of a
  // conformance run's CPU).
  server.keepAliveTimeout = 5000;
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    merchants: inputs.map((m, i) => ({
      id: merchants[i]!.id,
      name: m.name,
      storeName: m.storeName,
      apiKey: m.apiKey,
      variant: m.variant,
      webhookUrl: m.webhookUrl ?? null,
      webhookSecret: m.webhookSecret ?? null,
    })),
    handle,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await handle.close();
    },
  };
}

/** The webhook delivery engine (`./webhooks/dispatcher.ts`). */
export async function defaultDispatcherFactory(): Promise<(deps: WebhookDispatcherDeps) => WebhookDispatcher> {
  return createWebhookDispatcher;
}

/**
 * Writes a database file holding `transactions` (added in one transaction to the file, made if
 * absent): `startTestServer({ dataFile })` or `paylater serve --data` then serves them. For
 * seeding large stores (benchmarks) without a request per record.
 */
export async function writeSeededDataFile(file: string, transactions: Iterable<TransactionRecord>): Promise<void> {
  const repo = await openSqliteRepository({ file: path.resolve(file) });
  try {
    await repo.transaction(async (tx) => {
      for (const t of transactions) tx.write([{ c: 'transactions', k: t.id, v: t }]);
    });
  } finally {
    await repo.close();
  }
}
