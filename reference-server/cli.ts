/**
 * `paylater serve`: the reference server as a merchant's local sandbox.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type express from 'express';
import { createApp } from './app.ts';
import {
  ConfigError,
  DEMO_MERCHANTS,
  buildMerchants,
  parseMerchantsFile,
  serverConfig,
  type MerchantConfigInput,
  type Mode,
} from './config.ts';
import { parseDuration, systemClock } from './domain/clock.ts';
import { maxPaymentWindowSeconds } from './domain/stateMachine.ts';
import { checkPublicUrl } from './http/origin.ts';
import { DataFileError } from './store/errors.ts';
import { MigrationError, redact } from './store/postgres/migrate.ts';
import { openPgRepository } from './store/postgres/pg-repository.ts';
import type { Repository } from './store/repository.ts';
import { openSqliteRepository } from './store/sqlite/sqlite-repository.ts';
import { defaultDispatcherFactory } from './testing.ts';
import { mountSite } from './site.ts';

/** The data file without --data or --memory: relative to the working directory, never inside the installed package. */
export const DEFAULT_DATA_FILE = path.join('data', 'paylater.db');

export const SERVE_USAGE = `Usage: paylater serve [options]

Runs the reference server: the contract enforced, stateful and persisted (a merchant's local sandbox).

Options:
  --port N                 Port to listen on (default 4010; 0 picks a free one)
  --host HOST              Interface to listen on (default 127.0.0.1)
  --data FILE              SQLite database file (default data/paylater.db in the working directory; created on first start)
  --memory                 Keep nothing on disk
  --database-url URL       Keep everything in PostgreSQL (postgres://user:password@host:port/database;
                           default: the PAYLATER_DATABASE_URL environment variable, when neither --data
                           nor --memory is given): a shared sandbox, any number of instances on one
                           database. Migrations are applied at start (also: paylater migrate)
  --merchants FILE         JSON array of merchants:
                             [{ "name", "storeName", "apiKey": "sk_test_…"|"sk_live_…", "variant": 1|2,
                                "webhookUrl"?, "webhookSecret"?: "whsec_…", "active"?: true,
                                "creditLimit"?: MAD, "allowedOrigins"?: ["https://shop.example"] }]
                           Without it, two demo merchants (one per variant) with fixed test keys.
  --mode sandbox|production
                           sandbox (default): test keys, sandbox endpoints; production: live keys only
  --public-url URL         Base of absolute links (checkout_url, demo return URL); default the listen address
  --no-auth-throttle       Do not throttle failed authentications per client address (ADR-027); for a
                           sandbox that \`paylater conform\` checks, whose probes send wrong keys on purpose
  --payment-window D       How long a PENDING transaction waits for the customer (default 30m; e.g. 90s, 1h)
  -h, --help               Show this help
`;

interface ServeArgs {
  port: number;
  host: string;
  data: string | null;
  /** PostgreSQL instead of the data file (`--database-url` or PAYLATER_DATABASE_URL). */
  databaseUrl: string | null;
  merchantsFile: string | null;
  mode: Mode;
  paymentWindowSeconds: number | undefined;
  publicUrl: string | undefined;
  /** Throttle failed authentications per client address (ADR-027); off with --no-auth-throttle. */
  authThrottle: boolean;
}

export class UsageError extends Error {}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeArgs | 'help' {
  const a: ServeArgs = {
    port: 4010,
    host: '127.0.0.1',
    data: DEFAULT_DATA_FILE,
    databaseUrl: null,
    merchantsFile: null,
    mode: 'sandbox',
    paymentWindowSeconds: undefined,
    publicUrl: undefined,
    authThrottle: true,
  };
  let sawData = false;
  let sawMemory = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${name} needs a value`);
      return v;
    };
    switch (name) {
      case '-h':
      case '--help':
        return 'help';
      case '--port': {
        const v = value();
        const n = Number(v);
        if (!/^[0-9]+$/.test(v) || n > 65535) throw new UsageError(`--port: expected a port number 0-65535, got "${v}"`);
        a.port = n;
        break;
      }
      case '--host':
        a.host = value();
        break;
      case '--data':
        a.data = value();
        sawData = true;
        break;
      case '--memory':
        a.data = null;
        sawMemory = true;
        break;
      case '--database-url':
        a.databaseUrl = value();
        break;
      case '--merchants':
        a.merchantsFile = value();
        break;
      case '--mode': {
        const v = value();
        if (v !== 'sandbox' && v !== 'production') throw new UsageError(`--mode: expected sandbox or production, got "${v}"`);
        a.mode = v;
        break;
      }
      case '--no-auth-throttle':
        a.authThrottle = false;
        break;
      case '--public-url': {
        const v = value();
        const why = checkPublicUrl(v);
        if (why !== null) throw new UsageError(`--public-url: ${why}, got "${v}"`);
        a.publicUrl = v.replace(/\/+$/, '');
        break;
      }
      case '--payment-window': {
        const v = value();
        const s = parseDuration(v);
        if (s === null) throw new UsageError(`--payment-window: expected a duration such as 30m, 90s or 1h, got "${v}"`);
        if (s > maxPaymentWindowSeconds)
          throw new UsageError(
            `--payment-window: at most ${maxPaymentWindowSeconds} s (${maxPaymentWindowSeconds / 86400} days), got "${v}"`,
          );
        a.paymentWindowSeconds = s;
        break;
      }
      default:
        throw new UsageError(`unknown option ${arg}`);
    }
  }
  if (sawData && sawMemory) throw new UsageError('--data and --memory cannot be used together');
  if (a.databaseUrl !== null && (sawData || sawMemory))
    throw new UsageError(`--database-url and ${sawData ? '--data' : '--memory'} cannot be used together`);
  if (a.databaseUrl === null && !sawData && !sawMemory && env.PAYLATER_DATABASE_URL) a.databaseUrl = env.PAYLATER_DATABASE_URL;
  if (a.databaseUrl !== null) a.data = null;
  return a;
}

/** Runs the server until SIGINT/SIGTERM; resolves with the exit code. */
export async function runServe(
  argv: string[],
  io: { out?: (s: string) => void; err?: (s: string) => void; signal?: AbortSignal; mount?: (app: express.Express) => void } = {},
): Promise<number> {
  const out = io.out ?? ((s: string) => process.stdout.write(s));
  const err = io.err ?? ((s: string) => process.stderr.write(s));
  let args: ServeArgs;
  try {
    const parsed = parseServeArgs(argv);
    if (parsed === 'help') {
      out(SERVE_USAGE);
      return 0;
    }
    args = parsed;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`paylater serve: ${e.message}\n\n${SERVE_USAGE}`);
      return 2;
    }
    throw e;
  }

  let inputs: MerchantConfigInput[] = [...DEMO_MERCHANTS];
  let merchants;
  try {
    if (args.merchantsFile) {
      let text: string;
      try {
        text = await readFile(args.merchantsFile, 'utf8');
      } catch (e) {
        throw new ConfigError(`${args.merchantsFile}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      merchants = parseMerchantsFile(text, args.merchantsFile);
      inputs = JSON.parse(text) as MerchantConfigInput[];
    } else {
      merchants = buildMerchants(inputs);
    }
  } catch (e) {
    if (e instanceof ConfigError) {
      err(`paylater serve: invalid merchants: ${e.message}\n`);
      return 2;
    }
    throw e;
  }

  let repository: Repository;
  try {
    if (args.databaseUrl !== null) repository = await openPgRepository({ url: args.databaseUrl });
    else repository = await openSqliteRepository(args.data ? { file: path.resolve(args.data) } : {});
  } catch (e) {
    if (e instanceof MigrationError) {
      err(`paylater serve: ${e.message}\n`);
      return 1;
    }
    if (e instanceof DataFileError) {
      err(`paylater serve: ${e.message}\n`);
      return 1;
    }
    err(
      `paylater serve: cannot open ${args.databaseUrl !== null ? `the database at ${redact(args.databaseUrl)}` : `the data file ${args.data}`}: ${(e as Error).message}\n`,
    );
    return 1;
  }

  let config;
  try {
    config = serverConfig({
      mode: args.mode,
      paymentWindowSeconds: args.paymentWindowSeconds,
      publicBaseUrl: args.publicUrl,
      ...(args.authThrottle ? {} : { authFailureLimit: null }),
      merchants,
      log: (l) => err(`${l}\n`),
    });
  } catch (e) {
    if (e instanceof ConfigError) {
      err(`paylater serve: invalid merchants: ${e.message}\n`);
      await repository.close();
      return 2;
    }
    throw e;
  }
  const factory = await defaultDispatcherFactory();
  const handle = await createApp({
    repository,
    clock: systemClock,
    config,
    webhookDispatcherFactory: factory,
    mount:
      io.mount ??
      ((app) =>
        mountSite(app, {
          merchants: inputs,
          mode: args.mode,
          publicBaseUrl: args.publicUrl,
          // the built-in demo merchants on the embedded store: a local sandbox, whose dashboard may list them
          offerDemoMerchants: args.merchantsFile === null && args.databaseUrl === null,
        })),
  });
  const server = handle.app.listen(args.port, args.host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (e) {
    err(`paylater serve: cannot listen on ${args.host}:${args.port}: ${(e as Error).message}\n`);
    await handle.close();
    return 1;
  }
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : args.port;
  const host = args.host.includes(':') ? `[${args.host}]` : args.host;
  const base = `http://${host}:${port}`;
  const lines = [
    `PayLater reference server (${args.mode} mode) listening on ${base}`,
    `Docs: ${base}/docs`,
    `Data: ${args.databaseUrl !== null ? `PostgreSQL at ${redact(args.databaseUrl)}` : args.data ? path.resolve(args.data) : 'in memory (nothing kept)'}`,
    `Payment window: ${config.paymentWindowSeconds} s`,
  ];
  if (args.mode === 'sandbox') {
    lines.push('Sandbox merchants:');
    inputs.forEach((m, i) => {
      const merchant = merchants[i]!;
      if (merchant.keyMode !== 'test') return;
      // The secret deliveries are signed with now (a run-time setting wins over the file, ADR-042).
      const { webhookUrl, webhookSecret } = handle.core.view(merchant);
      lines.push(`  ${m.name} (${m.storeName}), Variant ${m.variant}, test API key: ${m.apiKey}`);
      lines.push(
        `    webhook URL: ${webhookUrl ?? 'none (set one with PUT /api/v1/sandbox/webhook-endpoint)'}, signing secret: ${webhookSecret ?? 'none'}`,
      );
    });
  }
  out(`${lines.join('\n')}\n`);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    io.signal?.addEventListener('abort', stop, { once: true });
  });
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await handle.close();
  return 0;
}
