/**
 * The forwarding hop of `paylater proxy`, on `node:net` sockets. Each exchange goes through as
 * bytes on a kept-alive upstream connection (./upstream.ts); the forwarder reads only what it must
 * (./http1.ts): the request head, sent upstream with Host rewritten and the hop-by-hop fields
 * dropped, the answer's head likewise, and each body's framing, to know where a message ends.
 * Bodies pass as the chunks the sockets read, in both directions, a copy of each kept up to the
 * capture limit. Once the answer's last byte has been written to the client, the exchange is
 * handed to the judging side (`ForwardHooks.ended`) from a bounded queue (./exchange.ts): judging
 * never holds an answer back.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { forwardedFields, ownAnswer, parseHead, type Head } from './http1.ts';
import { Exchange, JudgeQueue } from './exchange.ts';
import { UpstreamPool, type AnswerReader, type UpstreamConnection } from './upstream.ts';

/** What the forwarder asks of the proxy around it. */
export interface ForwardHooks {
  /** The number of a new exchange. */
  nextSeq(): number;
  /** An exchange whose answer went back whole: called after that answer's last byte was written, never before. */
  ended(ex: Exchange): void;
  /** The upstream could not be reached, answered what is not HTTP/1.1, or broke its answer off; or the exchange could not be judged. */
  failed(ex: Exchange, why: string): void;
  /** A client closed its connection before its answer ended. */
  clientGone(ex: Exchange): void;
  /** The judging queue was full: an exchange was judged at once, before the next was read. */
  queueFull(): void;
  /** A request under the reserved prefix, answered by the proxy itself (the judging queue is drained first). */
  reserved(method: string, url: string): { status: number; headers: Record<string, string>; body: string };
}

export interface ForwarderOptions {
  upstream: URL;
  /** The most bytes of a body copied for judging. */
  capture: number;
  /** A target starting with this is the proxy's own, never forwarded. */
  reservedPrefix: string;
  hooks: ForwardHooks;
  /** An https upstream's TLS options beyond the defaults (e.g. `ca`, a certificate authority to trust). */
  tls?: ConnectionOptions;
}

export interface Forwarder {
  server: Server;
  /** Hands every queued exchange to `hooks.ended` now. */
  drain(): void;
  close(): Promise<void>;
}

/** A request head longer than this is refused (431), as Node's server does by default. */
const MAX_REQUEST_HEAD = 16 * 1024;
/** Bytes of pipelined requests held while an exchange is in flight before the client is no longer read. */
const MAX_PIPELINED = 64 * 1024;
/** A client connection idle this long is closed (what the proxy set Node's `keepAliveTimeout` to). */
const CLIENT_IDLE_MS = 65_000;
/** A request head not read whole within this is answered 408 (Node's `headersTimeout`). */
const HEAD_TIMEOUT_MS = 60_000;
/** Methods a request may be sent again with (RFC 9110 §9.2.2): the same effect as once. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE']);
const CRLF2 = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

/** `head` (latin1) and `buf[start…end)` as one buffer: one write, one system call. */
function joined(head: string, buf: Buffer, start: number, end: number): Buffer {
  const out = Buffer.allocUnsafe(head.length + end - start);
  out.write(head, 0, 'latin1');
  buf.copy(out, head.length, start, end);
  return out;
}

/** A client's connection: its requests read one at a time (pipelined ones wait), each forwarded on an upstream connection. */
class ClientConnection implements AnswerReader {
  /** Bytes read but not yet used: a request head in parts, or pipelined requests. */
  buffered: Buffer | null = null;
  exchange: Exchange | null = null;
  upstream: UpstreamConnection | null = null;
  idleSince = performance.now();
  /** When the first byte of a request head not yet whole came. */
  headSince = 0;
  closing = false;
  /** Not read while its upstream connection is full, or while too many pipelined bytes wait. */
  heldByUpstream = false;
  heldByPipeline = false;

  constructor(
    readonly fw: ForwarderImpl,
    readonly socket: Socket,
  ) {
    socket.on('data', (c: Buffer) => this.fromClient(c));
    socket.on('drain', () => this.upstream?.socket.resume());
    socket.on('end', () => this.clientEnded());
    socket.on('error', () => undefined);
    socket.on('close', () => this.clientClosed());
  }

  private fromClient(c: Buffer): void {
    const ex = this.exchange;
    if (ex !== null && !ex.requestDone) {
      const used = this.requestBody(ex, c, 0);
      if (used < c.length) this.hold(c.subarray(used));
      return;
    }
    if (this.closing) return;
    this.hold(c);
    if (ex === null) this.next();
  }

  private hold(c: Buffer): void {
    if (this.buffered === null) {
      if (this.exchange === null) this.headSince = performance.now();
      this.buffered = c;
    } else this.buffered = Buffer.concat([this.buffered, c]);
    if (this.exchange !== null && this.buffered.length > MAX_PIPELINED && !this.heldByPipeline) {
      this.heldByPipeline = true;
      this.socket.pause();
    }
  }

  /** Starts the next request held, once its head is whole. */
  private next(): void {
    while (this.exchange === null && this.buffered !== null && !this.closing) {
      const buf = this.buffered;
      // empty lines before a request line are passed over (RFC 9112 §2.2)
      let start = 0;
      while (start + 1 < buf.length && buf[start] === 13 && buf[start + 1] === 10) start += 2;
      const end = buf.indexOf(CRLF2, start);
      if (end - start > MAX_REQUEST_HEAD || (end === -1 && buf.length - start > MAX_REQUEST_HEAD))
        return this.refuse(431, 'the request head is too large');
      if (end === -1) {
        if (start) this.buffered = buf.subarray(start);
        return;
      }
      const head = parseHead(buf.toString('latin1', start, end), true);
      if (typeof head === 'string') return this.refuse(400, head);
      this.buffered = end + 4 < buf.length ? buf.subarray(end + 4) : null;
      this.begin(head);
    }
  }

  private begin(head: Head): void {
    const fw = this.fw;
    let url = head.target;
    if (url.charCodeAt(0) !== 47 && url !== '*') {
      if (head.method === 'CONNECT') return this.refuse(501, 'CONNECT is not served: paylater proxy is a reverse proxy');
      // absolute form (RFC 9112 §3.2.2): the path is what is forwarded
      const m = /^https?:\/\/[^/?#]*(.*)$/i.exec(url);
      if (!m) return this.refuse(400, 'a malformed request target');
      url = m[1]!.startsWith('/') ? m[1]! : `/${m[1]!}`;
    }
    if (url.startsWith(fw.reservedPrefix)) return this.answerReserved(head, url);
    const ex = new Exchange(this, fw.hooks.nextSeq(), head, url, fw.capture);
    this.exchange = ex;
    if (ex.unsafe) fw.openUnsafe++;
    const fields = forwardedFields(head, fw.hostHeader, false);
    ex.upstreamHead = `${head.method} ${url === '*' ? url : fw.basePath + url} HTTP/1.1\r\n${fields}${head.hosts ? '' : `Host: ${fw.hostHeader}\r\n`}\r\n`;
    this.upstream = fw.pool.take(ex, this);
    const buf = this.buffered;
    this.buffered = null;
    if (ex.requestDone || buf === null) {
      this.upstream.socket.write(ex.upstreamHead, 'latin1');
      if (buf !== null) this.hold(buf);
      return;
    }
    // the head and the body bytes already read leave in one write
    const used = this.requestBody(ex, buf, 0, ex.upstreamHead);
    if (used < buf.length) this.hold(buf.subarray(used));
  }

  /**
   * Request body bytes from `buf[start…]` forwarded (after `head`, in the same write, when given)
   * and copied; returns the index past the last byte of the body.
   */
  private requestBody(ex: Exchange, buf: Buffer, start: number, head?: string): number {
    let end = buf.length;
    if (ex.requestChunks !== null) {
      const at = ex.requestChunks.feed(buf, start, buf.length, ex);
      if (at === -2) {
        this.abandon(ex);
        this.refuse(400, `a malformed chunked body: ${ex.requestChunks.error!}`);
        return buf.length;
      }
      if (at !== -1) {
        end = at;
        ex.requestDone = true;
      }
    } else {
      end = start + Math.min(ex.requestLeft, buf.length - start);
      ex.request.add(buf, start, end);
      ex.requestLeft -= end - start;
      ex.requestDone = ex.requestLeft === 0;
    }
    const out = head !== undefined ? joined(head, buf, start, end) : start === 0 && end === buf.length ? buf : buf.subarray(start, end);
    if (!this.upstream!.socket.write(out) && !this.heldByUpstream) {
      this.heldByUpstream = true;
      this.socket.pause();
    }
    return end;
  }

  upstreamDrained(): void {
    if (!this.heldByUpstream) return;
    this.heldByUpstream = false;
    if (!this.heldByPipeline) this.socket.resume();
  }

  interim(ex: Exchange, head: Head): void {
    // passed on to an HTTP/1.1 client (the 100 Continue its Expect asked for)
    if (ex.head.minor === 1) this.write(`HTTP/1.1 ${head.status} ${head.reason}\r\n${forwardedFields(head, undefined, false)}\r\n`);
  }

  answerHead(ex: Exchange, _up: UpstreamConnection, head: Head): void {
    ex.dechunk = ex.responseBody === 'chunked' && ex.head.minor === 0;
    // the client's connection ends with this answer when the answer is delimited by the close,
    // an HTTP/1.0 client gets it without its chunks, or the request's body has not all come
    if (ex.responseBody === 'close' || ex.dechunk || !ex.requestDone || this.closing) ex.closeClient = true;
    const connection = ex.closeClient ? 'Connection: close\r\n' : ex.head.minor === 0 ? 'Connection: keep-alive\r\n' : '';
    ex.pendingHead = `HTTP/1.1 ${head.status} ${head.reason}\r\n${forwardedFields(head, undefined, ex.dechunk)}${connection}\r\n`;
  }

  answerBytes(ex: Exchange, buf: Buffer, start: number, end: number): void {
    this.send(ex, buf, start, end);
  }

  /** Answer bytes to the client: the head, while it waits, leaves with them in one write. */
  send(ex: Exchange, buf: Buffer, start: number, end: number): void {
    let out: Buffer | string;
    if (ex.pendingHead !== null) {
      out = end > start ? joined(ex.pendingHead, buf, start, end) : ex.pendingHead;
      ex.pendingHead = null;
      ex.headSent = true;
    } else if (end > start) out = start === 0 && end === buf.length ? buf : buf.subarray(start, end);
    else return;
    if (!this.write(out)) this.upstream?.socket.pause();
  }

  private write(out: Buffer | string): boolean {
    return typeof out === 'string' ? this.socket.write(out, 'latin1') : this.socket.write(out);
  }

  /** The answer's last byte is written: the exchange goes to the judging queue, the connections to their next. */
  answered(ex: Exchange, up: UpstreamConnection): void {
    if (ex.pendingHead !== null) this.send(ex, EMPTY, 0, 0);
    ex.done = true;
    ex.othersOpen = this.fw.openUnsafe > (ex.unsafe ? 1 : 0);
    if (ex.unsafe) this.fw.openUnsafe--;
    const receivedAt = performance.now();
    this.exchange = null;
    this.upstream = null;
    if (ex.requestDone) this.fw.pool.keep(up, receivedAt);
    else this.fw.pool.drop(up);
    ex.receivedAt = receivedAt;
    this.fw.queue.push(ex);
    if (ex.closeClient || this.closing) {
      this.closing = true;
      this.socket.end();
      return;
    }
    this.idleSince = receivedAt;
    if (this.heldByPipeline) {
      this.heldByPipeline = false;
      if (!this.heldByUpstream) this.socket.resume();
    }
    this.next();
  }

  /** The exchange's upstream connection closed (or failed). */
  upstreamClosed(up: UpstreamConnection): void {
    const ex = this.exchange;
    if (ex === null || ex.done || this.upstream !== up) return up.release();
    if (ex.response !== null && ex.responseBody === 'close' && up.error === null) return this.answered(ex, up); // its end
    if (
      ex.answerBytes === 0 &&
      up.carried > 0 &&
      !ex.retried &&
      IDEMPOTENT.has(ex.head.method) &&
      ex.requestDone &&
      !ex.request.truncated
    ) {
      // a kept-alive connection the upstream closed while idle, before any byte of the answer: sent
      // once more, whole from the copy, on a new connection; never a POST (it may have been applied)
      ex.retried = true;
      up.release();
      this.upstream = this.fw.pool.take(ex, this, true);
      // a chunked body goes again as one chunk of its data (trailer fields, if any, are not kept)
      const body = ex.request.bytes()!;
      const chunked = ex.head.body === 'chunked';
      const size = chunked && body.length ? `${body.length.toString(16)}\r\n` : '';
      this.upstream.socket.write(joined(ex.upstreamHead + size, body, 0, body.length));
      if (chunked) this.upstream.socket.write(body.length ? '\r\n0\r\n\r\n' : '0\r\n\r\n', 'latin1');
      return;
    }
    const why =
      ex.response === null
        ? 'the upstream closed the connection without answering'
        : 'the upstream closed the connection before the answer ended';
    this.upstreamFailed(ex, up, up.error ?? why);
  }

  /** The upstream failed this exchange: a 502 when the client has had nothing of the answer yet, else its connection cut. */
  upstreamFailed(ex: Exchange, up: UpstreamConnection, why: string): void {
    this.abandon(ex);
    up.release();
    const message = `upstream ${ex.head.method} ${ex.url}: ${why}`;
    this.fw.hooks.failed(ex, message);
    if (ex.headSent) {
      this.closing = true;
      this.socket.destroy();
      return;
    }
    const body = JSON.stringify({ error: { code: 'PROXY_UPSTREAM_ERROR', message } });
    this.answerLocally(502, { 'content-type': 'application/json; charset=utf-8' }, body, ex.head, !ex.requestDone || ex.closeClient);
    this.next();
  }

  private answerReserved(head: Head, url: string): void {
    this.fw.queue.drain();
    const a = this.fw.hooks.reserved(head.method, url);
    // a body is not read: the connection ends with the answer
    this.answerLocally(a.status, a.headers, a.body, head, head.close || head.body !== 'none');
  }

  /** An answer of the proxy's own; `close`: the connection ends with it. */
  private answerLocally(status: number, fields: Record<string, string>, body: string, head: Head | null, close: boolean): void {
    const connection = close ? 'close' : head?.minor === 0 ? 'keep-alive' : null;
    this.socket.write(ownAnswer(status, fields, body, { bodyless: head?.method === 'HEAD', connection }));
    this.idleSince = performance.now();
    if (close) {
      this.closing = true;
      this.buffered = null;
      this.socket.end();
    }
  }

  /** A request the proxy cannot read: refused, and the connection closed (its framing is lost). */
  private refuse(status: number, why: string): void {
    this.answerLocally(status, { 'content-type': 'text/plain; charset=utf-8' }, `paylater proxy: ${why}\n`, null, true);
  }

  /** The exchange given up before its answer ended: its upstream connection goes with it. */
  private abandon(ex: Exchange): void {
    if (!ex.done && ex.unsafe) this.fw.openUnsafe--;
    ex.done = true;
    this.exchange = null;
    if (this.upstream !== null) this.fw.pool.drop(this.upstream);
    this.upstream = null;
  }

  /**
   * The client ended its side: idle, the connection ends (what is held is at most part of a head);
   * with an answer still due, the client is gone, as Node's server takes it (`httpAllowHalfOpen` off).
   */
  private clientEnded(): void {
    const ex = this.exchange;
    if (ex === null) {
      this.socket.end();
      return;
    }
    this.fw.hooks.clientGone(ex);
    this.abandon(ex);
    this.socket.destroy();
  }

  private clientClosed(): void {
    this.fw.clients.delete(this);
    this.closing = true;
    const ex = this.exchange;
    if (ex === null) return;
    this.fw.hooks.clientGone(ex);
    this.abandon(ex);
  }

  /** Called each second: a connection idle too long, or whose request head takes too long, is closed. */
  sweep(now: number): void {
    if (this.exchange !== null || this.closing) return;
    if (this.buffered !== null && now - this.headSince > HEAD_TIMEOUT_MS) this.refuse(408, 'the request head took too long');
    else if (this.buffered === null && now - this.idleSince > CLIENT_IDLE_MS) this.socket.destroy();
  }
}

class ForwarderImpl implements Forwarder {
  readonly server: Server;
  readonly clients = new Set<ClientConnection>();
  readonly pool: UpstreamPool;
  /** The Host field sent upstream. */
  readonly hostHeader: string;
  readonly basePath: string;
  readonly capture: number;
  readonly reservedPrefix: string;
  readonly hooks: ForwardHooks;
  readonly queue: JudgeQueue;
  /** Exchanges begun whose answer has not ended, of methods that may change something (the judge reads whether others were open when one ended). */
  openUnsafe = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(o: ForwarderOptions) {
    this.pool = new UpstreamPool(o.upstream, o.tls);
    this.hostHeader = o.upstream.host;
    this.basePath = o.upstream.pathname.replace(/\/$/, '');
    this.capture = o.capture;
    this.reservedPrefix = o.reservedPrefix;
    const hooks = (this.hooks = o.hooks);
    this.queue = new JudgeQueue(
      (f) => hooks.ended(f),
      (ex, why) => hooks.failed(ex, why),
      () => hooks.queueFull(),
    );
    this.server = createServer({ noDelay: true, allowHalfOpen: true }, (socket) => {
      this.clients.add(new ClientConnection(this, socket));
    });
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const c of this.clients) c.sweep(now);
      this.pool.sweep(now);
    }, 1000);
    this.sweeper.unref();
  }

  drain(): void {
    this.queue.drain();
  }

  /** Stops listening; idle clients are closed at once, the others once their answer has gone (at most 2 s). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    for (const c of this.clients) {
      if (c.exchange === null) c.socket.destroy();
      else c.closing = true;
    }
    const t = setTimeout(() => {
      for (const c of this.clients) c.socket.destroy();
    }, 2000);
    await closed;
    clearTimeout(t);
    this.pool.close();
    this.queue.drain();
  }
}

/** A forwarder to `upstream`, not yet listening (`server.listen`). */
export function createForwarder(o: ForwarderOptions): Forwarder {
  return new ForwarderImpl(o);
}
