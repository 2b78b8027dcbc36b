/**
 * `paylater proxy`'s engine: a forwarding HTTP proxy in front of any implementation. Every request
 * goes upstream unchanged (method, path, every header but the hop-by-hop ones, Host set to the
 * upstream's, the body streamed), every answer comes back unchanged (streamed, status and every
 * header); a copy of each, up to `captureBytes`, is judged once the answer has ended:
 *  - each exchange by the conformance suite's own response judge (conformance/http.ts `judgeResponse`);
 *  - across exchanges, per merchant, by the state tracker (state.ts);
 *  - webhooks, on a second port, verified, validated against AsyncAPI, matched to transitions, and
 *    forwarded unchanged.
 * `GET /_paylater/report` (the one reserved prefix, `/_paylater/`, never forwarded; docs/proxy.md) answers the live report.
 */
import { createServer, request as httpRequest, Agent, type Server, type OutgoingHttpHeaders, type AgentOptions } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { webhookDelivery, type Variant } from '../generated/index.ts';
import type { Exchange } from '../conformance/http.ts';
import { asyncApiValidators } from '../conformance/webhooks.ts';
import { verifyWebhook, WebhookVerificationError } from '../sdk/webhooks/verify.ts';
import { digest } from './mask.ts';
import { createForwarder, type Forwarded } from './forward.ts';
import { forwardable, headerRecord } from './http1.ts';
import { ExchangeJudge } from './judge.ts';
import { StateTracker } from './state.ts';
import { Recorder } from './report.ts';
import { VariantBook } from './variant.ts';

/** The proxy's own paths: never forwarded. */
const RESERVED_PREFIX = '/_paylater/';
export const REPORT_PATH = `${RESERVED_PREFIX}report`;
/** Default: the most of a body (request or answer) copied for judging; a longer one is forwarded whole but not judged on its body. */
export const DEFAULT_CAPTURE_BYTES = 1024 * 1024;
export interface ProxyOptions {
  upstream: string;
  /** The variant every key is held to; without it, each key's is learned from its answers (variant.ts, ADR-070). */
  variant?: Variant;
  port?: number;
  host?: string;
  captureBytes?: number;
  maxTransactions?: number;
  paymentWindowSeconds?: number;
  clockToleranceMs?: number;
  /** Exchanges kept for findings' curl scripts and the HAR file (default 1000). */
  keepExchanges?: number;
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
  state: StateTracker;
  close(): Promise<void>;
}

/** The webhook receiver's connections: kept alive, dropped 100 ms before the receiver's Keep-Alive hint. */
const KEEP_ALIVE = { keepAlive: true, agentKeepAliveTimeoutBuffer: 100 } as AgentOptions;

export async function startLiveProxy(o: ProxyOptions): Promise<LiveProxy> {
  const upstream = new URL(o.upstream);
  const capture = o.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const windowMs = o.webhooks ? (o.webhooks.windowMs ?? defaultWebhookWindowMs()) : undefined;
  const book = new VariantBook(o.variant, o.maxTransactions);
  const state = new StateTracker({
    maxTransactions: o.maxTransactions,
    paymentWindowSeconds: o.paymentWindowSeconds,
    clockToleranceMs: o.clockToleranceMs,
    webhookWindowMs: windowMs,
    webhookPort: o.webhooks?.port,
  });
  const recorder = new Recorder({
    upstream: o.upstream.replace(/\/$/, ''),
    variants: book,
    state,
    keep: o.keepExchanges ?? 1000,
    log: o.log,
    secrets: o.webhooks ? [o.webhooks.secret] : [],
  });
  /** A merchant's digest per credential seen (one SHA-256 per key, not per request); at most 1,000 held, then started afresh. */
  const digests = new Map<string, string>();
  const merchantOf = (cred: string): string => {
    let d = digests.get(cred);
    if (d === undefined) {
      if (digests.size >= 1000) digests.clear();
      digests.set(cred, (d = digest(cred)));
    }
    return d;
  };

  const judge = new ExchangeJudge(book, state, recorder, merchantOf);
  const forwarder = createForwarder({
    upstream,
    capture,
    reservedPrefix: RESERVED_PREFIX,
    hooks: {
      nextSeq: () => recorder.nextSeq(),
      // the one place an ended exchange reaches the judge (the floor of the bench judges nothing)
      ended: o.judge === false ? () => undefined : (f) => judgeForwarded(f, judge, recorder, capture),
      failed: (seq, method, url, why) => recorder.failure(seq, method, url, why),
      clientGone: () => recorder.clientAborts++,
      queueFull: () => recorder.judgedAtOnce++,
      reserved: (method, url): { status: number; headers: Record<string, string>; body: string } => {
        if (method === 'GET' && (url === REPORT_PATH || url.startsWith(REPORT_PATH + '?'))) {
          recorder.sweep();
          return {
            status: 200,
            headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
            body: JSON.stringify(recorder.report(), null, 2),
          };
        }
        return {
          status: 404,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ error: `only GET ${REPORT_PATH} is served under ${RESERVED_PREFIX}` }),
        };
      },
    },
  });
  const server = forwarder.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  let hooks: Server | undefined;
  let webhookUrl: string | undefined;
  if (o.webhooks) {
    const wh = o.webhooks;
    const validators = await asyncApiValidators();
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
        const receivedAt = performance.timeOrigin + performance.now();
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        const headers = headerRecord(req.rawHeaders);
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
            res.writeHead(fres.statusCode ?? 502, forwardable(fres.rawHeaders));
            fres.pipe(res);
          },
        );
        f.on('error', (e) => {
          if (!res.headersSent)
            res.writeHead(502, { 'content-type': 'text/plain' }).end(`paylater proxy: webhook receiver unreachable: ${e.message}`);
        });
        f.end(raw);
        // every exchange answered before this delivery came is judged before it (the judging queue drained)
        forwarder.drain();
        recorder.webhook(text, headers, receivedAt, size > capture, (body) => {
          const problems: string[] = [];
          let event: { event?: string; data?: { id?: string; status?: string } } | undefined;
          try {
            verifyWebhook(body, headers, wh.secret);
          } catch (e) {
            if (e instanceof WebhookVerificationError && e.code !== 'malformed_payload')
              problems.push(`signature: ${e.code}: ${e.message}`);
            else if (!(e instanceof WebhookVerificationError)) throw e;
          }
          try {
            event = JSON.parse(body) as typeof event;
          } catch {
            problems.push('body is not JSON');
          }
          if (event) {
            const v = validators.get(event.event ?? '');
            if (!v) problems.push(`event ${JSON.stringify(event.event)} is not an AsyncAPI message`);
            else if (!v(event)) {
              const e = v.errors![0]!;
              problems.push(`payload $${e.instancePath.replace(/\//g, '.')}: ${e.message} (AsyncAPI)`);
            }
          }
          return { problems, event };
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      hooks!.once('error', reject);
      hooks!.listen(wh.port, o.host ?? '127.0.0.1', () => resolve());
    });
    const hookPort = (hooks.address() as { port: number }).port;
    state.o.webhookPort = hookPort;
    webhookUrl = `http://127.0.0.1:${hookPort}`;
  }

  // the queue drained first: an exchange answered before the sweep is judged before it
  const sweep = (): void => {
    forwarder.drain();
    recorder.sweep();
  };
  const sweeper = windowMs === undefined ? undefined : setInterval(sweep, Math.max(100, Math.min(windowMs / 2, 1000)));
  sweeper?.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    webhookUrl,
    recorder,
    state,
    async close() {
      if (sweeper) clearInterval(sweeper);
      await forwarder.close();
      if (hooks) {
        const s = hooks;
        s.closeIdleConnections();
        await new Promise<void>((r) => {
          const t = setTimeout(() => s.closeAllConnections(), 2000);
          s.close(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    },
  };
}

/**
 * The delivery window of an event (ms), from x-webhook-delivery: the first attempt's delay and
 * timeout, then the first retry's delay (an event whose first attempt the receiver refused still
 * comes in time).
 */
export function defaultWebhookWindowMs(): number {
  const r = webhookDelivery.retry;
  return ((r.delaysSeconds[0] ?? 0) + r.timeoutSeconds + (r.delaysSeconds[1] ?? 0)) * 1000;
}

/**
 * An exchange whose answer has gone back whole, judged: its copies decoded (a content-coded body
 * decompressed, JSON parsed), recorded in the exchange ring, routed to its operation and judged
 * (ExchangeJudge); an exchange no operation serves is judged as such.
 */
function judgeForwarded(f: Forwarded, judge: ExchangeJudge, recorder: Recorder, capture: number): void {
  const { seq, method, url } = f;
  const q = url.indexOf('?');
  const pathname = q === -1 ? url : url.slice(0, q);
  const requestHeaders = headerRecord(f.requestHeaders);
  const responseHeaders = headerRecord(f.responseHeaders);
  const routed = judge.route(method, pathname, requestHeaders);
  const notes: string[] = [];
  let text = '';
  if (f.responseBody !== null) {
    let buf = f.responseBody;
    const enc = responseHeaders['content-encoding']?.trim().toLowerCase();
    if (enc)
      try {
        if (enc === 'gzip' || enc === 'x-gzip') buf = gunzipSync(buf);
        else if (enc === 'deflate') buf = inflateSync(buf);
        else if (enc === 'br') buf = brotliDecompressSync(buf);
      } catch (e) {
        notes.push(`the ${enc} body does not decompress: ${(e as Error).message}`);
      }
    text = buf.toString('utf8');
  }
  let json: unknown;
  try {
    json = text.length ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const body = f.requestBody?.length ? f.requestBody.toString('utf8') : undefined;
  const ex: Exchange = {
    opId: routed?.route.opId ?? `${method} ${pathname}`,
    method,
    url: recorder.upstream + url,
    headers: requestHeaders,
    body,
    status: f.status,
    responseHeaders,
    responseText: f.responseBody === null ? `(answer over ${capture} bytes, not copied)` : text,
    json,
    sentAt: f.sentAt,
    receivedAt: f.receivedAt,
  };
  recorder.record(seq, ex, !!routed);
  if (!routed) {
    if (f.responseBody !== null) judge.unrouted(ex, seq, pathname);
    return;
  }
  let requestJson: unknown;
  try {
    requestJson = body ? JSON.parse(body) : undefined;
  } catch {
    requestJson = undefined;
  }
  judge.judge(
    {
      ex,
      seq,
      method,
      pathname,
      search: q === -1 ? '' : url.slice(q + 1),
      requestHeaders,
      truncated: f.responseBody === null,
      requestUnreadable: f.requestBody === null || (body !== undefined && requestJson === undefined),
      notes,
    },
    routed,
    requestJson,
  );
}
