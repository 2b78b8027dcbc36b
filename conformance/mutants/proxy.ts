/**
 * A mutating HTTP proxy: sits in front of a correct server and injects exactly one fault, black-box
 * (rewrite a status, a body or a header; answer from a cache; drop, strip or forge a webhook).
 * The merchant's webhook URL points at the proxy's `/__webhook`, which relays to the suite's receiver.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { Pool } from 'undici';

import type { Json } from '../../lib/json.ts';

export interface ProxyRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export interface ProxyContext {
  upstream: string;
  /** Sends a request to the real server. */
  forward(req: ProxyRequest): Promise<ProxyResponse>;
  keys: { main: string; other: string };
  /** Sends a (possibly forged) webhook to the suite's receiver. */
  sendWebhook(body: string, headers: Record<string, string>): Promise<void>;
  secret: string;
  cache: Map<string, unknown>;
}

export interface Mutant {
  name: string;
  /** Which profile exposes it. */
  profile: 'core' | 'sandbox';
  /** The variant its merchants speak in the self-test, for a fault of one variant's rule (default: the self-test's). */
  variant?: 1 | 2;
  /** Return a response to answer instead of (or after) forwarding. */
  onRequest?(req: ProxyRequest, ctx: ProxyContext): Promise<ProxyResponse | undefined>;
  onResponse?(req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext): Promise<ProxyResponse>;
  /** Return null to drop the webhook, or the (body, headers) to relay. */
  onWebhook?(
    body: string,
    headers: Record<string, string>,
    ctx: ProxyContext,
  ): Promise<{ body: string; headers: Record<string, string> } | null>;
}

export function json(res: ProxyResponse): Json {
  return JSON.parse(res.body) as Json;
}
export function withJson(res: ProxyResponse, body: unknown, status = res.status): ProxyResponse {
  return { status, headers: { ...res.headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
}

/**
 * Request headers not sent upstream: the connection's own (undici refuses some of them and frames the
 * body itself), and Accept-Encoding, so the answer comes as is (its body is read as text).
 */
const NOT_FORWARDED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'accept-encoding',
]);
/** Answer headers not passed back: the proxy frames its own answer (the body may have changed). */
const NOT_RETURNED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'content-encoding']);

async function read(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startProxy(opts: {
  upstream: string;
  mutant: Mutant;
  keys: { main: string; other: string };
  webhookTarget: string;
  secret: string;
}): Promise<{ url: string; webhookUrl: string; close(): Promise<void> }> {
  const { mutant } = opts;
  const upstream = new Pool(opts.upstream);
  const ctx: ProxyContext = {
    upstream: opts.upstream,
    keys: opts.keys,
    secret: opts.secret,
    cache: new Map(),
    async forward(r) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) if (!NOT_FORWARDED.has(k.toLowerCase())) headers[k] = v;
      // undici's request, not fetch: the same exchange for less CPU (every request of the
      // self-test and its controls passes here)
      const res = await upstream.request({
        path: r.path,
        method: r.method,
        headers,
        body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body || undefined,
      });
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined && !NOT_RETURNED.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, headers: out, body: await res.body.text() };
    },
    async sendWebhook(body, headers) {
      // the body may have changed: its length, host and connection are the relay's own
      const h: Record<string, string> = { ...headers, 'content-type': 'application/json' };
      for (const name of ['content-length', 'host', 'connection', 'transfer-encoding']) delete h[name];
      await fetch(opts.webhookTarget, { method: 'POST', headers: h, body }).catch(() => undefined);
    },
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const body = await read(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      if (req.url === '/__webhook') {
        res.writeHead(200).end('ok');
        const relayed = mutant.onWebhook ? await mutant.onWebhook(body, headers, ctx) : { body, headers };
        if (relayed) await ctx.sendWebhook(relayed.body, relayed.headers);
        return;
      }
      const preq: ProxyRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body };
      let pres = (await mutant.onRequest?.(preq, ctx)) ?? (await ctx.forward(preq));
      if (mutant.onResponse) pres = await mutant.onResponse(preq, pres, ctx);
      res.writeHead(pres.status, pres.headers).end(pres.body);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
    }
  };
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    webhookUrl: `http://127.0.0.1:${port}/__webhook`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await upstream.destroy();
    },
  };
}

/** Signs a webhook body like the server does (for forged deliveries). */
export function sign(secret: string, body: string): Record<string, string> {
  const id = `msg_${randomUUID().replace(/-/g, '')}`;
  const ts = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, ts, body),
  };
}
