/**
 * The forwarder's connections to the upstream, kept alive and shared by every client (the idle one
 * used last taken first), each reading the answers to the requests written on it: the head parsed
 * (./http1.ts), the body delimited by its framing and handed on as the bytes came, a copy kept.
 */
import { connect, isIP, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { bodyOfAnswer, ChunkedReader, parseHead, type Head } from './http1.ts';
import type { Exchange } from './exchange.ts';

/** What a connection tells the client connection whose exchange it carries. */
export interface AnswerReader {
  /** A 1xx answer (never a 101). */
  interim(ex: Exchange, head: Head): void;
  /** The final answer's head, its framing set on `ex`. */
  answerHead(ex: Exchange, up: UpstreamConnection, head: Head): void;
  /** Bytes of the answer's body as they came (chunk framing and all). */
  answerBytes(ex: Exchange, buf: Buffer, start: number, end: number): void;
  answered(ex: Exchange, up: UpstreamConnection): void;
  /** The answer could not be read. */
  upstreamFailed(ex: Exchange, up: UpstreamConnection, why: string): void;
  /** The connection closed (cleanly or not) while it carried the exchange. */
  upstreamClosed(up: UpstreamConnection): void;
  /** The connection took what was written to it (the client may be read again). */
  upstreamDrained(): void;
}

/** An answer head longer than this is a failure of the upstream (502). */
const MAX_ANSWER_HEAD = 64 * 1024;
/** A kept-alive connection is not reused this close to the upstream's `Keep-Alive: timeout` hint. */
const KEEP_ALIVE_MARGIN_MS = 100;
/** The most idle connections kept (Node's agent: `maxFreeSockets`). */
const MAX_IDLE = 256;
const CRLF2 = Buffer.from('\r\n\r\n');

export class UpstreamConnection {
  readonly socket: Socket;
  /** The exchange written on this connection and its reader, while it carries one. */
  exchange: Exchange | null = null;
  reader: AnswerReader | null = null;
  /** Answers it has carried whole. */
  carried = 0;
  idleSince = 0;
  keepAliveMs = -1;
  /** An answer head read in parts. */
  private pending: Buffer | null = null;
  reusable = true;
  closed = false;
  error: string | null = null;

  constructor(readonly pool: UpstreamPool) {
    const { host, port, tls } = pool;
    this.socket =
      tls === null
        ? connect({ host, port, noDelay: true })
        : connectTls({ ...tls, host, port, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }).setNoDelay(true);
    this.socket.on('data', (c: Buffer) => this.read(c));
    this.socket.on('drain', () => this.reader?.upstreamDrained());
    this.socket.on('error', (e) => (this.error ??= e.message));
    this.socket.on('close', () => {
      this.closed = true;
      if (this.reader !== null) this.reader.upstreamClosed(this);
      else pool.forget(this);
    });
  }

  /** May carry another exchange now: open, ended cleanly, and not about to be closed by the upstream's Keep-Alive hint. */
  fresh(now: number): boolean {
    return !this.closed && this.reusable && (this.keepAliveMs < 0 || now - this.idleSince < this.keepAliveMs - KEEP_ALIVE_MARGIN_MS);
  }

  carry(ex: Exchange, reader: AnswerReader): void {
    this.exchange = ex;
    this.reader = reader;
    this.pending = null;
  }

  /** Carries nothing any more (the exchange ended, or was given up). */
  release(): void {
    this.exchange = null;
    this.reader = null;
  }

  private read(c: Buffer): void {
    const ex = this.exchange;
    const reader = this.reader;
    if (ex === null || reader === null || ex.done) {
      // bytes no request asked for: the connection cannot be trusted with another
      this.reusable = false;
      this.socket.destroy();
      return;
    }
    ex.answerBytes += c.length;
    let start = 0;
    while (ex.response === null) {
      const buf = this.pending === null ? c : Buffer.concat([this.pending, c]);
      this.pending = null;
      const end = buf.indexOf(CRLF2, start);
      if (end === -1) {
        if (buf.length - start > MAX_ANSWER_HEAD) return reader.upstreamFailed(ex, this, 'the answer head is too large');
        this.pending = start === 0 ? buf : buf.subarray(start);
        return;
      }
      const head = parseHead(buf.toString('latin1', start, end), false);
      if (typeof head === 'string') return reader.upstreamFailed(ex, this, `the answer is not HTTP/1.1: ${head}`);
      c = buf;
      start = end + 4;
      if (head.status < 200) {
        if (head.status === 101) return reader.upstreamFailed(ex, this, 'the upstream switched protocols, which the proxy did not ask for');
        reader.interim(ex, head);
        if (start === c.length) return;
        continue;
      }
      ex.response = head;
      const body = bodyOfAnswer(head, ex.head.method);
      ex.responseBody = body;
      ex.responseLeft = body === 'length' ? head.length : 0;
      if (body === 'chunked') ex.responseChunks = new ChunkedReader();
      if (head.close || body === 'close') this.reusable = false;
      this.keepAliveMs = head.keepAliveMs;
      reader.answerHead(ex, this, head);
    }
    this.body(ex, reader, c, start);
  }

  /** Answer body bytes from `c[start…]`: handed on up to the answer's end, copied. */
  private body(ex: Exchange, reader: AnswerReader, c: Buffer, start: number): void {
    let end = c.length;
    let ended = false;
    switch (ex.responseBody) {
      case 'none':
        end = start;
        ended = true;
        break;
      case 'length': {
        end = start + Math.min(ex.responseLeft, c.length - start);
        ex.responseLeft -= end - start;
        ended = ex.responseLeft === 0;
        ex.answer.add(c, start, end);
        break;
      }
      case 'chunked': {
        const at = ex.responseChunks!.feed(c, start, c.length, ex);
        if (at === -2) return reader.upstreamFailed(ex, this, `a malformed chunked answer: ${ex.responseChunks!.error!}`);
        if (at !== -1) {
          end = at;
          ended = true;
        }
        break;
      }
      case 'close':
        ex.answer.add(c, start, end);
        break;
    }
    // bytes past the answer's end: nothing asked for them
    if (end < c.length) this.reusable = false;
    if (!ex.dechunk) reader.answerBytes(ex, c, start, end);
    if (ended) reader.answered(ex, this);
  }
}

/** The connections to one upstream: idle ones kept, the one used last taken first. */
export class UpstreamPool {
  readonly host: string;
  readonly port: number;
  /** An https upstream's TLS options (its certificate is verified), or null. */
  readonly tls: ConnectionOptions | null;
  private readonly idle: UpstreamConnection[] = [];

  constructor(upstream: URL, tls: ConnectionOptions = {}) {
    this.host = upstream.hostname.replace(/^\[|\]$/g, '');
    this.tls = upstream.protocol === 'https:' ? tls : null;
    this.port = Number(upstream.port || (this.tls ? 443 : 80));
  }

  /** A connection for `ex`: the idle one used last, or a new one (`fresh`: always a new one). */
  take(ex: Exchange, reader: AnswerReader, fresh = false): UpstreamConnection {
    let up: UpstreamConnection | undefined;
    while (!fresh && (up = this.idle.pop()) !== undefined) {
      if (up.fresh(ex.sentAt)) break;
      up.socket.destroy();
      up = undefined;
    }
    up ??= new UpstreamConnection(this);
    up.carry(ex, reader);
    return up;
  }

  /** A connection whose exchange has ended: kept for the next, or closed. */
  keep(up: UpstreamConnection, now: number): void {
    up.release();
    up.carried++;
    up.idleSince = now;
    if (up.fresh(now) && this.idle.length < MAX_IDLE) {
      up.socket.resume();
      this.idle.push(up);
    } else up.socket.destroy();
  }

  /** A connection given up: closed. */
  drop(up: UpstreamConnection): void {
    up.release();
    up.socket.destroy();
  }

  /** An idle connection the upstream closed. */
  forget(up: UpstreamConnection): void {
    const i = this.idle.indexOf(up);
    if (i !== -1) this.idle.splice(i, 1);
  }

  /** Idle connections past the upstream's Keep-Alive hint closed. */
  sweep(now: number): void {
    for (const up of [...this.idle]) if (!up.fresh(now)) up.socket.destroy();
  }

  close(): void {
    for (const up of this.idle.splice(0)) up.socket.destroy();
  }
}
