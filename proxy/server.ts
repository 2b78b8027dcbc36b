/**
 * `paylater proxy`'s engine: a forwarding HTTP proxy in front of any implementation. Every request
 * goes upstream unchanged (method, path, every header but the hop-by-hop ones, Host set to the
 * upstream's, the body streamed), every answer comes back unchanged (streamed, status and every
 * header); a copy of each, up to `captureBytes`, is handed to the judge (judge/) once the answer has
 * ended, and webhooks, on a second port, are forwarded unchanged and handed to the judge too. The
 * recorder (report.ts) reports what the judge finds.
 * `GET /_paylater/report` (the one reserved prefix, `/_paylater/`, never forwarded; docs/traffic.md) answers the live report.
 */
import {
  createServer,
  request as httpRequest,
  Agent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  type OutgoingHttpHeaders,
  type AgentOptions,
} from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { Pool } from 'undici';
import { webhookDelivery, type Variant } from '../generated/index.ts';
import { createJudge, type Judge } from '../judge/index.ts';
import { asyncApiValidators } from '../judge/webhooks.ts';
import { Forward, forwardable, headerRecord, type Hub } from './forward.ts';
import { Recorder } from './report.ts';

export const REPORT_PATH = '/_paylater/report';
/** Default: the most of a body (request or answer) copied for judging; a longer one is forwarded whole but not judged on its body. */
export const DEFAULT_CAPTURE_BYTES = 1024 * 1024;
export interface ProxyOptions {
  upstream: string;
  /** The variant every key is held to; without it, each key's is learned from its answers (ADR-070). */
  variant?: Variant;
  port?: number;
  host?: string;
  captureBytes?: number;
  maxTransactions?: number;
  paymentWindowSeconds?: number;
  clockToleranceMs?: number;
  /** Exchanges kept for findings' curl scripts and the HAR file (default 1000). */
  keepExchanges?: number;
  /** The most characters of each body the held exchanges keep (default 16 KiB). */
  keepBodyChars?: number;
  webhooks?: { port: number; forwardTo: string; secret: string; windowMs?: number };
  /** One line per finding as it is found (masked). */
  log?: (line: string) => void;
  /**
   * Internal, for the `proxy-overhead` bench's floor (default true): false forwards every exchange
   * exactly as the proxy does but judges and records none (the report stays empty). Not an option of
   * `paylater proxy`: a proxy that judges nothing has no use but to measure what judging costs.
   */
  judge?: boolean;
}

export interface LiveProxy {
  url: string;
  port: number;
  webhookUrl: string | undefined;
  recorder: Recorder;
  judge: Judge;
  close(): Promise<void>;
}

/**
 * Connections to the upstream: an undici Pool (the engine behind Node's fetch), kept alive; its
 * dispatch API hands the answer over as raw header bytes and body chunks, with no stream objects per
 * exchange. A kept-alive connection is dropped 100 ms before the server's `Keep-Alive: timeout=N`
 * hint (undici's default margin, 2 s, would drop every connection to the reference server, which
 * hints `timeout=1`, at once); no time limit on the upstream's head or body, as with Node's client.
 */
const UPSTREAM_POOL: Pool.Options = { keepAliveTimeoutThreshold: 100, headersTimeout: 0, bodyTimeout: 0 };

/** The webhook receiver's connections: kept alive, dropped 100 ms before the receiver's Keep-Alive hint. */
const KEEP_ALIVE = { keepAlive: true, agentKeepAliveTimeoutBuffer: 100 } as AgentOptions;

export async function startLiveProxy(o: ProxyOptions): Promise<LiveProxy> {
  const upstream = new URL(o.upstream);
  const basePath = upstream.pathname.replace(/\/$/, '');
  const pool = new Pool(upstream.origin, UPSTREAM_POOL);
  const capture = o.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const windowMs = o.webhooks ? (o.webhooks.windowMs ?? defaultWebhookWindowMs()) : undefined;
  // the webhook side listens first: the judge is told its port (an endpoint pointing there sends its events here)
  let hooks: Server | undefined;
  /** The recorder the webhook side reports to, once made (the judge is made after the webhook side listens). */
  const late: { recorder?: Recorder } = {};
  let webhookUrl: string | undefined;
  let validators: Awaited<ReturnType<typeof asyncApiValidators>> | undefined;
  if (o.webhooks) {
    const wh = o.webhooks;
    validators = await asyncApiValidators();
    const target = new URL(wh.forwardTo);
    const hookAgent = target.protocol === 'https:' ? new HttpsAgent(KEEP_ALIVE) : new Agent(KEEP_ALIVE);
    hooks = createServer((req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= capture) chunks.push(c);
      });
      req.on('end', () => {
        const receivedAt = performance.now();
        const raw = Buffer.concat(chunks);
        const headers = headerRecord(req.rawHeaders);
        const r = o.judge !== false ? late.recorder : undefined;
        const seq = r?.nextSeq();
        // forward first, unchanged: the receiver's answer goes back to the sender
        const f = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
          {
            protocol: target.protocol,
            hostname: target.hostname,
            port: target.port,
            method: req.method,
            path: target.pathname + target.search,
            headers: forwardable(req.rawHeaders, target.host) as unknown as OutgoingHttpHeaders,
            agent: hookAgent,
          },
          (fres) => {
            if (seq !== undefined) r!.delivered(seq, fres.statusCode ?? 0);
            res.writeHead(fres.statusCode ?? 502, forwardable(fres.rawHeaders));
            fres.pipe(res);
          },
        );
        f.on('error', (e) => {
          if (!res.headersSent)
            res.writeHead(502, { 'content-type': 'text/plain' }).end(`paylater proxy: webhook receiver unreachable: ${e.message}`);
        });
        f.end(raw);
        if (seq !== undefined)
          r!.webhook({ seq, receivedAt, headers, body: raw.toString('utf8'), truncated: size > capture }, webhookUrl! + (req.url ?? '/'));
      });
    });
    await new Promise<void>((resolve, reject) => {
      hooks!.once('error', reject);
      hooks!.listen(wh.port, o.host ?? '127.0.0.1', () => resolve());
    });
    webhookUrl = `http://127.0.0.1:${(hooks.address() as { port: number }).port}`;
  }
  const judge = createJudge({
    variant: o.variant,
    maxTransactions: o.maxTransactions,
    paymentWindowSeconds: o.paymentWindowSeconds,
    clockToleranceMs: o.clockToleranceMs,
    timeOrigin: performance.timeOrigin,
    webhooks:
      o.webhooks && windowMs !== undefined && validators
        ? { secret: o.webhooks.secret, windowMs, port: Number(new URL(webhookUrl!).port), validators }
        : undefined,
  });
  const recorder: Recorder = new Recorder({
    upstream: o.upstream.replace(/\/$/, ''),
    judge,
    keep: o.keepExchanges ?? 1000,
    keepBodyChars: o.keepBodyChars,
    log: o.log,
    secrets: o.webhooks ? [o.webhooks.secret] : [],
  });
  const rec = recorder;
  late.recorder = recorder;
  const hub: Hub = { pool, recorder: rec, capture, basePath, host: upstream.host, judge: o.judge === false ? null : judge };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    if (url === REPORT_PATH || url.startsWith(REPORT_PATH + '?') || url.startsWith('/_paylater/')) {
      req.resume();
      if (req.method === 'GET' && (url === REPORT_PATH || url.startsWith(REPORT_PATH + '?'))) {
        rec.sweep();
        res
          .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
          .end(JSON.stringify(rec.report(), null, 2));
      } else
        res
          .writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ error: `only GET ${REPORT_PATH} is served under /_paylater/` }));
      return;
    }
    new Forward(hub, req, res, url).start();
  };

  const server: Server = createServer(handle);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  const sweeper = windowMs === undefined ? undefined : setInterval(() => rec.sweep(), sweepEveryMs(windowMs));
  sweeper?.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    webhookUrl,
    recorder: rec,
    judge,
    async close() {
      if (sweeper) clearInterval(sweeper);
      for (const s of [server, hooks]) {
        if (!s) continue;
        s.closeIdleConnections();
        await new Promise<void>((r) => {
          const t = setTimeout(() => s.closeAllConnections(), 2000);
          s.close(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      await pool.destroy();
    },
  };
}

/** How often transitions whose event is overdue are looked for (ms), given the events' window: live, and through a recording's time. */
export const sweepEveryMs = (windowMs: number): number => Math.max(100, Math.min(windowMs / 2, 1000));

/**
 * The delivery window of an event (ms), from x-webhook-delivery: the first attempt's delay and
 * timeout, then the first retry's delay (an event whose first attempt the receiver refused still
 * comes in time).
 */
export function defaultWebhookWindowMs(): number {
  const r = webhookDelivery.retry;
  return ((r.delaysSeconds[0] ?? 0) + r.timeoutSeconds + (r.delaysSeconds[1] ?? 0)) * 1000;
}
