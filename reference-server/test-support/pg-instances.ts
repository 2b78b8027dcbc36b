/**
 * Several reference-server processes on one PostgreSQL database, for the multi-instance tests,
 * the conformance runs and the bench: `paylater serve --database-url` through tsx on
 * 127.0.0.1, a small round-robin proxy in front of them, and a webhook receiver that records
 * every delivery by its `webhook-id`.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { spawnPaylater } from '../../scripts/lib/paylater-process.ts';
import type { MerchantConfigInput } from '../config.ts';

export interface Instance {
  baseUrl: string;
  child: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** SIGKILL: no shutdown at all (what a crash leaves). */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit (a graceful stop). */
  stop(): Promise<void>;
}

export interface InstanceOptions {
  databaseUrl: string;
  /** Written to a merchants file in `dir` (default: the demo merchants). */
  merchants?: MerchantConfigInput[];
  dir?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** Starts `paylater serve --database-url …` on a free port; resolves once it listens (rejects with its output if it exits). */
export async function startInstance(o: InstanceOptions): Promise<Instance> {
  const args = ['serve', '--port', '0', '--database-url', o.databaseUrl];
  if (o.merchants) {
    if (!o.dir) throw new Error('merchants need a dir for their file');
    const file = path.join(o.dir, `merchants-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(o.merchants));
    args.push('--merchants', file);
  }
  args.push(...(o.args ?? []));
  const { child, output } = spawnPaylater(args, o.env);
  const exited = once(child, 'exit');
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output());
      if (m) {
        child.stdout.off('data', check);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', check);
    void exited.then(([code]) => reject(new Error(`paylater serve exited (${String(code)}) before listening:\n${output()}`)));
  });
  const wait = async () => {
    if (child.exitCode === null && child.signalCode === null) await exited;
  };
  return {
    baseUrl,
    child,
    output,
    async kill() {
      child.kill('SIGKILL');
      await wait();
    },
    async stop() {
      child.kill('SIGTERM');
      await wait();
    },
  };
}

export interface Proxy {
  baseUrl: string;
  close(): Promise<void>;
}

/** A round-robin HTTP proxy: each request goes to the next live backend (a refused one is skipped). */
export async function roundRobinProxy(backends: () => string[]): Promise<Proxy> {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const list = backends();
      const forward = (tries: number) => {
        const target = new URL(req.url ?? '/', list[next++ % list.length]);
        // A connection per request (no pooled sockets to the instances): a reused socket that its
        // instance is closing for idleness would fail the request after it may have been handled,
        // and a retry could then count it twice (A1's limit).
        const up = request(
          target,
          { method: req.method, headers: { ...req.headers, host: target.host }, agent: false },
          (r: IncomingMessage) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        up.on('error', () => {
          if (tries > 1 && !res.headersSent) forward(tries - 1);
          else if (!res.headersSent) res.writeHead(502).end();
          else res.destroy();
        });
        res.on('close', () => up.destroy());
        up.end(body);
      };
      forward(list.length);
    });
  });
  // Longer than a client keeps an idle connection (undici: 4 s), so the client closes it first:
  // a proxy closing an idle connection as the client reuses it answers the request ECONNRESET.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => closeServer(server),
  };
}

export interface Delivery {
  id: string;
  body: { event?: string; data?: { id?: string; status?: string } };
  at: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Distinct `webhook-id`s received. */
  ids(): Set<string>;
  /** Milliseconds each answer waits (deliveries in flight longer). */
  delayMs: number;
  close(): Promise<void>;
}

/** A webhook endpoint answering 204 (after `delayMs`) and recording every delivery. */
export async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const r: Receiver = {
    url: '',
    deliveries,
    ids: () => new Set(deliveries.map((d) => d.id)),
    delayMs: 0,
    close: () => closeServer(server),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Delivery['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery['body'];
      } catch {
        // recorded with an empty body
      }
      deliveries.push({ id: String(req.headers['webhook-id']), body, at: Date.now() });
      setTimeout(() => res.writeHead(204).end(), r.delayMs);
    });
  });
  // Longer than a client keeps an idle connection (undici: 4 s), so the client closes it first:
  // a proxy closing an idle connection as the client reuses it answers the request ECONNRESET.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
