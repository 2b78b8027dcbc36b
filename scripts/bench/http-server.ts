/**
 * The servers of the request-rate figures (`b2-validation-overhead`, `router-validation-overhead`),
 * each in a process of its own, on the compiled package (./shipped.ts), so that the CPU time a
 * server reports (`process.cpuUsage`) is its own: the load generator and the other servers run
 * elsewhere. Started by `spawnHttpServer` with `fork`:
 *
 *   http-server.ts reference            the reference server (startTestServer: sandbox, memory store,
 *                                       no webhook dispatcher), one partner transaction created
 *   http-server.ts bare <json>          bare express: GET of the B2 route and POST of the B1 route
 *                                       answer `json` (the POST after `express.json()` reads the body)
 *   http-server.ts router <json>        the contract router (`createContractRouter`, public options),
 *                                       a constant handler answering `json` to B2, anyone authenticated
 *
 * Each prints one JSON line (`{ base, b2Path, b1Path, headers, json }`), then answers IPC: `cpu` →
 * the CPU µs (user + system) since the last `cpu`; `stop` → closes and exits.
 * `BENCH_SERVER_FLAGS` adds Node flags to the child (e.g. `--cpu-prof --cpu-prof-dir=DIR`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { buildShipped, importBuilt } from './shipped.ts';
import { checkClean, fmt, load, median, partnerBody, startLineOf } from './tools.ts';

export type HttpServerKind = 'reference' | 'bare' | 'router';

const B2_ROUTE = '/api/v1/public/partner/transactions/:transactionId';
const B1_PATH = '/api/v1/public/partner/transactions';

interface Started {
  base: string;
  /** The B2 GET path of the one transaction answered. */
  b2Path: string;
  b1Path: string;
  /** The headers of a B2 and of a B1 request (the merchant's key, each under its scheme's header). */
  b2Headers: Record<string, string>;
  b1Headers: Record<string, string>;
  /** The B2 answer's body. */
  json: unknown;
  /** The variant of the merchant whose key is in the headers (the reference server's first; 1 for the others). */
  variant: 1 | 2;
}

export interface HttpServer extends Started {
  kind: HttpServerKind;
  /** CPU µs the server used since the previous call (or its start). */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

const SELF = fileURLToPath(import.meta.url);

/** Serves `kind` in a child process; `json` is the B2 body of the bare and router servers (take it from the reference server's). */
export async function spawnHttpServer(kind: HttpServerKind, json?: unknown): Promise<HttpServer> {
  await buildShipped();
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = fork(SELF, [kind, JSON.stringify(json ?? null)], {
    execArgv: ['--import', 'tsx', ...flags],
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const started = await startLineOf<Started>(child, `${kind} server`);
  return {
    ...started,
    kind,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        child.once('message', (m) => resolve((m as { cpu: number }).cpu));
        child.send({ cmd: 'cpu' });
      }),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        child.once('exit', (c) => (c === 0 ? resolve() : reject(new Error(`${kind} server did not stop cleanly (${String(c)})`))));
        child.send({ cmd: 'stop' });
      }),
  };
}

/** One side of a round: requests/s and the server's CPU µs per request over `seconds` of load. */
export interface Sample {
  rps: number;
  cpuUsPerRequest: number;
}

/** `seconds` of B2 GETs (`b1`: B1 POSTs of the bench's create body) on `connections`; fails on any error or non-2xx answer. */
export async function sample(
  s: HttpServer,
  b1: boolean,
  headers: Record<string, string>,
  seconds: number,
  connections: number,
): Promise<Sample> {
  await s.cpuMicros();
  const r = await load({
    url: s.base + (b1 ? s.b1Path : s.b2Path),
    headers,
    connections,
    duration: seconds,
    ...(b1 ? { method: 'POST' as const, body: partnerBody } : {}),
  });
  const cpu = await s.cpuMicros();
  checkClean(`${s.kind} ${b1 ? 'B1' : 'B2'}`, r);
  return { rps: r.requests.average, cpuUsPerRequest: cpu / r.requests.total };
}

/** `fmt` of the median of `xs`, with the rounds beside it. */
function medianOf(xs: number[], digits = 0): string {
  return `${fmt(median(xs), digits)} (${xs.map((x) => fmt(x, digits)).join('/')})`;
}

/** The rps and CPU-per-request lines of one server's samples. */
export function sampleLine(name: string, xs: Sample[]): string {
  return `${name} ${medianOf(xs.map((x) => x.rps))} req/s, CPU ${medianOf(
    xs.map((x) => x.cpuUsPerRequest),
    1,
  )} µs per request`;
}

/** `a`'s CPU per request ÷ `b`'s (medians): the ratio of requests/s the two would have on the same free core. */
export function cpuRatio(a: Sample[], b: Sample[]): string {
  const cpu = (xs: Sample[]) => median(xs.map((x) => x.cpuUsPerRequest));
  return (cpu(b) / cpu(a)).toFixed(2);
}

function listen(app: express.Express): Promise<Server> {
  return new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
}

const bareApp = (): express.Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  return app;
};

async function serve(kind: HttpServerKind, json: unknown): Promise<void> {
  let base: string;
  let close: () => Promise<void>;
  let id = '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10';
  let key = '';
  let variant: 1 | 2 = 1;
  if (kind === 'reference') {
    const { startTestServer } = await importBuilt<typeof import('../../reference-server/testing.ts')>('reference-server/testing.ts');
    const s = await startTestServer({ webhookDispatcherFactory: null });
    key = s.merchants[0]!.apiKey;
    variant = s.merchants[0]!.variant;
    const r = await fetch(s.baseUrl + B1_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-Key': key },
      body: partnerBody,
    });
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${await r.text()}`);
    id = ((await r.json()) as { id: string }).id;
    json = await (await fetch(`${s.baseUrl}${B1_PATH}/${id}`, { headers: { 'X-Api-Key': key } })).json();
    base = s.baseUrl;
    close = () => s.close();
  } else {
    id = (json as { id?: string }).id ?? id;
    const app = bareApp();
    if (kind === 'bare') {
      app.get(B2_ROUTE, (_req, res) => {
        res.json(json);
      });
      app.post(B1_PATH, express.json(), (_req, res) => {
        res.status(201).json(json);
      });
    } else {
      const { createContractRouter } = await importBuilt<typeof import('../../server/index.ts')>('server/index.ts');
      app.use(
        createContractRouter({
          variant: 1,
          handlers: { getPartnerTransaction: () => ({ status: 200, body: json }) } as never,
          authenticate: () => ({}),
        }),
      );
    }
    const server = await listen(app);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
  }
  let cpu = process.cpuUsage();
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'cpu') {
      const { user, system } = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      process.send!({ cpu: user + system });
    } else if (m.cmd === 'stop') void close().then(() => process.exit(0));
  });
  process.once('disconnect', () => process.exit(1)); // the bench went away: do not stay behind
  const started: Started = {
    base,
    b2Path: `${B1_PATH}/${id}`,
    b1Path: B1_PATH,
    b2Headers: { 'X-Api-Key': key },
    b1Headers: { 'content-type': 'application/json', 'X-Service-Key': key },
    json,
    variant,
  };
  process.stdout.write(`${JSON.stringify(started)}\n`);
}

if (process.argv[1] === SELF) {
  const [kind, json] = process.argv.slice(2);
  if (kind !== 'reference' && kind !== 'bare' && kind !== 'router') {
    process.stderr.write('usage: http-server.ts reference | bare <json> | router <json>\n');
    process.exit(2);
  }
  await serve(kind, JSON.parse(json ?? 'null'));
}
