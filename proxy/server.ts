/**
 * `paylater proxy`'s engine: a forwarding HTTP proxy in front of any implementation. Every request
 * goes upstream unchanged (method, path, every header but the hop-by-hop ones, Host set to the
 * upstream's, the body streamed), every answer comes back unchanged (streamed, status and every
 * header); a copy of each, up to `captureBytes`, is handed to the judge (judge/) once the answer has
 * gone back whole, off the forwarding path (exchange.ts, the judging queue), and webhooks, on a
 * second port, are forwarded unchanged and handed to the judge too. The recorder (report.ts)
 * reports what the judge finds.
 * `GET /_paylater/report` (the one reserved prefix, `/_paylater/`, never forwarded; docs/traffic.md) answers the live report.
 */
import { createServer, request as httpRequest, Agent, type Server, type OutgoingHttpHeaders, type AgentOptions } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import type { Variant } from '../generated/index.ts';
import { defaultWebhookWindowMs, sweepEveryMs } from '../judge/events.ts';
import { createJudge, type EarFinding, type Exchange, type Judge } from '../judge/index.ts';
import { asyncApiValidators } from '../judge/webhooks.ts';
import { listening } from '../lib/listen.ts';
import type { Exchange as Forwarded } from './exchange.ts';
import { createForwarder } from './forward.ts';
import { forwardable, headerRecord } from './http1.ts';
import { Recorder } from './report.ts';

/** The proxy's own paths: never forwarded. */
const RESERVED_PREFIX = '/_paylater/';
export const REPORT_PATH = `${RESERVED_PREFIX}report`;
/** Default: the most of a body (request or answer) copied for judging; a longer one is forwarded whole but not judged on its body. */
export const DEFAULT_CAPTURE_BYTES = 1024 * 1024;
export interface ProxyOptions {
  upstream: string;
  /** The variant every key is held to; without it, each key's is learned from its answers (ADR-070). */
  variant?: Variant;
  /** The proxy is its keys' sole client (ADR-087): effects no call it saw explains are findings. */
  soleClient?: boolean;
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
   * Internal, for the `proxy-overhead` bench's floor (default true): false forwards as the proxy does
   * but judges and records nothing. Not an option of `paylater proxy`: it only measures what judging costs.
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

/** The webhook receiver's connections: kept alive, dropped 100 ms before the receiver's Keep-Alive hint. */
const KEEP_ALIVE = { keepAlive: true, agentKeepAliveTimeoutBuffer: 100 } as AgentOptions;

export async function startLiveProxy(o: ProxyOptions): Promise<LiveProxy> {
  const upstream = new URL(o.upstream);
  const capture = o.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const windowMs = o.webhooks ? (o.webhooks.windowMs ?? defaultWebhookWindowMs()) : undefined;
  // the webhook side listens first: the judge is told its port (an endpoint pointing there sends its events here)
  let hooks: Server | undefined;
  let webhookUrl: string | undefined;
  let validators: ReturnType<typeof asyncApiValidators> | undefined;
  if (o.webhooks) {
    const wh = o.webhooks;
    validators = asyncApiValidators();
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
        // the delivery's number, taken as it came (the recorder is made below, before any delivery can come)
        const seq = o.judge === false ? undefined : recorder.nextSeq();
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
            if (seq !== undefined) recorder.delivered(seq, fres.statusCode ?? 0);
            res.writeHead(fres.statusCode ?? 502, forwardable(fres.rawHeaders));
            fres.pipe(res);
          },
        );
        f.on('error', (e) => {
          if (!res.headersSent)
            res.writeHead(502, { 'content-type': 'text/plain' }).end(`paylater proxy: webhook receiver unreachable: ${e.message}`);
        });
        f.end(raw);
        if (seq === undefined) return;
        // every exchange answered before this delivery came is judged before it (the queue drained);
        // no await lies between this server's listening and the forwarder's making below
        forwarder.drain();
        recorder.webhook(
          { seq, receivedAt, headers, body: raw.toString('utf8'), truncated: size > capture },
          webhookUrl! + (req.url ?? '/'),
        );
      });
    });
    webhookUrl = `http://127.0.0.1:${await listening(hooks, wh.port, o.host ?? '127.0.0.1')}`;
  }
  const judge = createJudge({
    variant: o.variant,
    soleClient: o.soleClient,
    maxTransactions: o.maxTransactions,
    paymentWindowSeconds: o.paymentWindowSeconds,
    clockToleranceMs: o.clockToleranceMs,
    timeOrigin: performance.timeOrigin,
    webhooks:
      o.webhooks && windowMs !== undefined && validators
        ? { secret: o.webhooks.secret, windowMs, port: Number(new URL(webhookUrl!).port), validators }
        : undefined,
  });
  const recorder = new Recorder({
    upstream: o.upstream.replace(/\/$/, ''),
    judge,
    keep: o.keepExchanges ?? 1000,
    keepBodyChars: o.keepBodyChars,
    log: o.log,
    secrets: o.webhooks ? [o.webhooks.secret] : [],
    // what it reports includes every exchange answered before (the forwarder is made just below)
    settle: () => forwarder.drain(),
  });
  // a call that reached the upstream but was not judged: what it did is not known to the judge
  const unjudged = (ex: Forwarded) =>
    o.judge === false ? undefined : judge.unjudged({ method: ex.head.method, url: ex.url, headers: headerRecord(ex.head.fields) });
  const forwarder = createForwarder({
    upstream,
    capture,
    reservedPrefix: RESERVED_PREFIX,
    hooks: {
      nextSeq: () => recorder.nextSeq(),
      // the one place an ended exchange reaches the judge (the floor of the bench judges nothing)
      ended: o.judge === false ? () => undefined : (f) => judgeForwarded(f, judge, recorder, capture),
      failed: (ex, why) => {
        unjudged(ex);
        recorder.failure(ex.seq, ex.head.method, ex.url, why);
      },
      clientGone: (ex) => {
        unjudged(ex);
        recorder.clientAborts++;
      },
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
  const port = await listening(forwarder.server, o.port ?? 0, o.host ?? '127.0.0.1');

  // the queue drained first: an exchange answered before the sweep is judged before it
  const sweep = (): void => {
    forwarder.drain();
    recorder.sweep();
  };
  const sweeper = windowMs === undefined ? undefined : setInterval(sweep, sweepEveryMs(windowMs));
  sweeper?.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    webhookUrl,
    recorder,
    judge,
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
 * An exchange whose answer has gone back whole, handed to the judge: its answer's copy decoded (a
 * content-coded body decompressed), judged, recorded in the exchange ring, its findings reported.
 */
function judgeForwarded(f: Forwarded, judge: Judge, recorder: Recorder, capture: number): void {
  const { seq, url } = f;
  const method = f.head.method;
  const responseHeaders = headerRecord(f.response!.fields);
  const requestBody = f.request.bytes();
  const answer = f.answer.bytes();
  let text = '';
  let undecoded: string | undefined;
  if (answer !== null) {
    let buf = answer;
    const enc = responseHeaders['content-encoding']?.trim().toLowerCase();
    if (enc)
      try {
        if (enc === 'gzip' || enc === 'x-gzip') buf = gunzipSync(buf);
        else if (enc === 'deflate') buf = inflateSync(buf);
        else if (enc === 'br') buf = brotliDecompressSync(buf);
      } catch (e) {
        undecoded = `the ${enc} body does not decompress: ${(e as Error).message}`;
      }
    text = buf.toString('utf8');
  }
  const ex: Exchange = {
    seq,
    method,
    // origin-relative, as the client sent it: the judge routes its path
    url,
    headers: headerRecord(f.head.fields),
    body: requestBody?.length ? requestBody.toString('utf8') : undefined,
    status: f.response!.status,
    responseHeaders,
    responseText: answer === null ? `(answer over ${capture} bytes, not copied)` : text,
    sentAt: f.sentAt,
    receivedAt: f.receivedAt,
    requestTruncated: requestBody === null,
    responseTruncated: answer === null,
    othersOpen: f.othersOpen,
  };
  // a judge that throws is reported by the judging queue (exchange.ts), as the proxy's own failure
  const findings: EarFinding[] = judge.exchange(ex);
  const opId = ex.opId ?? `${method} ${url.split('?')[0]}`;
  // kept in the ring as judged, with the upstream's URL (the judge keeps no reference to `ex`; the ring copies it)
  recorder.record(seq, Object.assign(ex, { opId, url: recorder.upstream + url, json: undefined }));
  if (undecoded !== undefined) findings.unshift({ kind: 'answer', operation: opId, jsonPath: '$', message: undecoded, exchanges: [seq] });
  recorder.judged(findings);
}
