/**
 * One exchange forwarded: the request streamed upstream through an undici Pool (its dispatch API,
 * so no closure or stream is made per exchange), the answer streamed back unchanged, a copy of each
 * (up to the capture limit) handed to the judge once the answer has ended.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Pool, Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import type { Judge } from '../judge/index.ts';
import type { Exchange } from '../judge/exchange.ts';
import type { ProxyFinding, Recorder } from './report.ts';

/** Headers of one connection (RFC 9110 §7.6.1): never forwarded, nor sent again by a replay. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/** A request body streamed upstream, copied on its way. */
async function* copied(req: IncomingMessage, into: Capture): AsyncGenerator<Buffer> {
  for await (const c of req as AsyncIterable<Buffer>) {
    into.add(c);
    yield c;
  }
}

/**
 * A flat raw-header list without the hop-by-hop headers (and those the Connection header names); a
 * request's (`replaceHost` given) without Expect too: the proxy's own server has answered a
 * `100-continue` before the request is forwarded, and undici sends no Expect.
 */
export function forwardable(raw: string[], replaceHost?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(k) || named.has(k) || (k === 'expect' && replaceHost !== undefined)) continue;
    if (k === 'host' && replaceHost !== undefined) out.push(raw[i]!, replaceHost);
    else out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** Most bytes of an answer sent with its head in one write (a string of that many characters is made for it). */
const ONE_WRITE_BYTES = 64 * 1024;

/** The Content-Length of a raw-header list, or -1 (absent, repeated or not a number). */
function contentLength(raw: string[]): number {
  let n = -1;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.length === 14 && raw[i]!.toLowerCase() === 'content-length') {
      if (n !== -1) return -1;
      n = /^\d+$/.test(raw[i + 1]!) ? Number(raw[i + 1]) : -2;
    }
  return n < 0 ? -1 : n;
}

/** A body copied up to a limit. */
class Capture {
  chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  constructor(readonly limit: number) {}
  add(c: Buffer): void {
    if (this.truncated) return;
    if (this.size + c.length > this.limit) {
      this.truncated = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(c);
    this.size += c.length;
  }
  buffer(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}

export function headerRecord(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!.toLowerCase();
    out[k] = k in out ? `${out[k]}, ${raw[i + 1]!}` : raw[i + 1]!;
  }
  return out;
}

/** What every exchange of one proxy shares. */
export interface Hub {
  pool: Pool;
  recorder: Recorder;
  capture: number;
  basePath: string;
  host: string;
  /** null: forward only, judge and record nothing (the bench's floor; server.ts `judge: false`). */
  judge: Judge | null;
}

const FORWARD = Symbol('paylater proxy exchange');

/** Methods a request may be sent again with (RFC 9110 §9.2.2): the same effect as once. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);

/** The client closed its connection before the answer ended: not the upstream's fault, counted. */
function onClientClose(this: ServerResponse & { [FORWARD]?: Forward }): void {
  const fw = this[FORWARD];
  if (!fw || this.writableFinished) return;
  fw.clientGone = true;
  fw.hub.recorder.clientAborts++;
  fw.abort?.(new Error('the client went away'));
}

/**
 * One exchange: the request forwarded upstream (undici's dispatch handler, so no closure or stream
 * is made per exchange), the answer streamed back, a copy of each judged once the answer has ended.
 */
export class Forward implements Dispatcher.DispatchHandler {
  readonly sentAt = performance.now();
  readonly seq: number;
  readonly method: string;
  readonly reqCapture: Capture;
  readonly resCapture: Capture;
  /** A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 §6.3): sent at once. */
  readonly bodyless: boolean;
  failed = false;
  clientGone = false;
  abort: ((e?: Error) => void) | undefined = undefined;
  status = 0;
  rawAnswerHeaders: string[] = [];
  length = -1;
  sent = false;
  started = false;
  retried = false;
  resume: (() => void) | undefined = undefined;
  options: Dispatcher.DispatchOptions | undefined = undefined;

  constructor(
    readonly hub: Hub,
    readonly req: IncomingMessage,
    readonly res: ServerResponse & { [FORWARD]?: Forward },
    readonly url: string,
  ) {
    this.seq = hub.recorder.nextSeq();
    this.method = req.method ?? 'GET';
    this.reqCapture = new Capture(hub.capture);
    this.resCapture = new Capture(hub.capture);
    this.bodyless = true;
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const k = raw[i]!;
      if ((k.length === 14 || k.length === 17) && /^(?:content-length|transfer-encoding)$/i.test(k)) this.bodyless = false;
    }
  }

  start(): void {
    const { req, res, hub } = this;
    res[FORWARD] = this;
    res.on('close', onClientClose);
    this.options = {
      method: this.method,
      path: hub.basePath + this.url,
      headers: forwardable(req.rawHeaders, hub.host),
      // an async iterable body (undici's documented body types; its .d.ts lists the stream ones only)
      body: this.bodyless ? null : (copied(req, this.reqCapture) as unknown as Readable),
    };
    if (this.bodyless) req.resume();
    hub.pool.dispatch(this.options, this);
  }

  fail(why: string): void {
    if (this.failed || this.clientGone) return;
    this.failed = true;
    const { res } = this;
    this.hub.recorder.failure(this.seq, this.method, this.url, why);
    if (!res.headersSent)
      res
        .writeHead(502, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ error: { code: 'PROXY_UPSTREAM_ERROR', message: why } }));
    else res.destroy();
  }

  onConnect(abort: (e?: Error) => void): void {
    this.abort = abort;
    if (this.clientGone) abort(new Error('the client went away'));
  }

  onResponseStarted(): void {
    this.started = true;
  }

  onHeaders(statusCode: number, raw: Buffer[], resume: () => void, statusText: string): boolean {
    // an interim answer (1xx) is not forwarded: the proxy's own server answered the client's Expect
    if (statusCode < 200) return true;
    this.status = statusCode;
    const headers = new Array<string>(raw.length);
    for (let i = 0; i < raw.length; i++) headers[i] = raw[i]!.toString('latin1');
    this.rawAnswerHeaders = headers;
    this.length = contentLength(headers);
    this.resume = resume;
    this.res.writeHead(statusCode, statusText, forwardable(headers));
    return true;
  }

  onData(c: Buffer): boolean {
    const { res, resCapture } = this;
    resCapture.add(c);
    if (this.length === c.length && resCapture.size === c.length && c.length <= ONE_WRITE_BYTES) {
      // the whole answer in its first chunk: the head and the body leave in one write (as a
      // latin1 string, byte for byte the upstream's), not a writev of two buffers
      this.sent = true;
      res.end(c.toString('latin1'), 'latin1');
      return true;
    }
    // false pauses the upstream until the client has taken what it was sent ('drain' resumes it)
    if (res.write(c)) return true;
    res.once('drain', this.resume!);
    return false;
  }

  onError(e: Error & { code?: string; socket?: { bytesRead?: number } }): void {
    /**
     * A kept-alive connection the upstream closed while idle fails on reuse before any byte of the
     * answer (the connection had read earlier answers): the request, whole in the copy, is sent
     * once more, never one partly streamed. Only an idempotent method (RFC 9110 §9.2.2): the
     * upstream may have applied a POST (B1, A1) before the connection closed, and the proxy must
     * not make a second transaction; that one is answered 502 and recorded, as any upstream failure.
     */
    if (
      !this.retried &&
      IDEMPOTENT.has(this.method) &&
      !this.started &&
      !this.res.headersSent &&
      !this.clientGone &&
      (this.bodyless || (this.req.complete && !this.reqCapture.truncated)) &&
      (e.code === 'UND_ERR_SOCKET' || e.code === 'ECONNRESET') &&
      (e.socket?.bytesRead ?? 0) > 0
    ) {
      this.retried = true;
      this.hub.pool.dispatch({ ...this.options!, body: this.reqCapture.size ? this.reqCapture.buffer() : null }, this);
      return;
    }
    if (this.clientGone) return;
    this.fail(`upstream ${this.method} ${this.url}: ${e.message}`);
  }

  /** The answer has ended: the exchange is handed to the judge and recorded. */
  onComplete(): void {
    if (this.failed || this.clientGone) return;
    const { hub, req, url, method, reqCapture, resCapture } = this;
    const { recorder, capture, judge } = hub;
    if (!this.sent) this.res.end();
    if (judge === null) return;
    const receivedAt = performance.now();
    const responseHeaders = headerRecord(this.rawAnswerHeaders);
    let text = '';
    let undecoded: string | undefined;
    if (!resCapture.truncated) {
      let buf = resCapture.buffer();
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
      seq: this.seq,
      method,
      // origin-relative, as the client sent it: the judge routes its path
      url,
      headers: headerRecord(req.rawHeaders),
      body: reqCapture.truncated || !reqCapture.size ? undefined : reqCapture.buffer().toString('utf8'),
      status: this.status,
      responseHeaders,
      responseText: resCapture.truncated ? `(answer over ${capture} bytes, not copied)` : text,
      sentAt: this.sentAt,
      receivedAt,
      requestTruncated: reqCapture.truncated,
      responseTruncated: resCapture.truncated,
    };
    let findings: ProxyFinding[];
    try {
      findings = judge.exchange(ex);
    } catch (e) {
      findings = [];
      recorder.failure(this.seq, method, url, `the proxy could not judge this exchange: ${(e as Error).message}`);
    }
    const opId = ex.opId ?? `${method} ${url.split('?')[0]}`;
    recorder.record(this.seq, { ...ex, opId, url: recorder.upstream + url, json: undefined });
    if (undecoded !== undefined)
      findings.unshift({ kind: 'answer', operation: opId, jsonPath: '$', message: undecoded, exchanges: [this.seq] });
    recorder.judged(findings);
  }
}
