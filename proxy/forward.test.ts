/**
 * The forwarder's framing, on raw sockets: pipelined requests, `Expect: 100-continue`, answers
 * without a body (HEAD, 204, 304), chunked bodies both ways (passed as chunks, copied without
 * them), an answer delimited by the close, an HTTP/1.0 client, `Connection: close` on either side,
 * malformed requests refused (400), and what the judging side receives: each exchange once its
 * answer's last byte has been written.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, connect, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.ts';
import { createForwarder, type Forwarder } from './forward.ts';
import { LOCALHOST_CERT, LOCALHOST_KEY } from './test-support/localhost-cert.ts';

/** What the upstream saw: each request's method, url, raw head fields and body. */
const seen: { method: string; url: string; headers: string[]; body: string; port: number }[] = [];
let upstream: HttpServer;
/** A raw upstream for answers Node's server does not write: `/close-delimited`, `/http10`. */
let rawUpstream: NetServer;
let forwarder: Forwarder;
let rawForwarder: Forwarder;
let port: number;
let rawPort: number;
const ended: Exchange[] = [];
/** The copy the judging side gets of an ended exchange's request or answer body. */
const copied = (url: string, side: 'request' | 'answer'): string | undefined =>
  ended
    .find((e) => e.url === url)
    ?.[side].bytes()
    ?.toString();
const failures: string[] = [];
let gone = 0;
/**
 * Called with the release of each `/held` answer as the upstream begins it: its head and first
 * chunk written, its end held until the test releases it (or 10 s pass, so that nothing hangs).
 */
let onHeld: (release: () => void) => void = () => undefined;

const hooks = {
  seq: 0,
  nextSeq() {
    return ++this.seq;
  },
  ended: (ex: Exchange) => ended.push(ex),
  failed: (_ex: Exchange, why: string) => failures.push(why),
  clientGone: () => gone++,
  queueFull: () => undefined,
  reserved: () => ({ status: 404, headers: {}, body: '' }),
};

async function listening(s: NetServer | HttpServer): Promise<number> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as { port: number }).port;
}

beforeAll(async () => {
  upstream = createHttpServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method!, url: req.url!, headers: req.rawHeaders, body, port: req.socket.remotePort! });
      const path = req.url!.split('?')[0];
      if (path === '/head') return res.writeHead(200, { 'content-type': 'application/json', 'content-length': '50' }).end();
      if (path === '/204') return res.writeHead(204, { 'x-none': 'yes' }).end();
      if (path === '/304') return res.writeHead(304, { etag: '"v1"' }).end();
      if (path === '/chunked') {
        res.writeHead(200, { 'content-type': 'application/json', trailer: 'x-sum' });
        res.write('{"a":');
        setTimeout(() => {
          res.addTrailers({ 'x-sum': '7' });
          res.end('1}');
        }, 30);
        return;
      }
      if (path === '/held') {
        res.writeHead(200, { 'content-type': 'application/json', trailer: 'x-sum' });
        res.write('{"a":');
        const release = (): void => {
          clearTimeout(safety);
          if (res.writableEnded || res.destroyed) return;
          res.addTrailers({ 'x-sum': '7' });
          res.end('1}');
        };
        const safety = setTimeout(release, 10_000);
        onHeld(release);
        return;
      }
      if (path === '/br') {
        const packed = brotliCompressSync(JSON.stringify({ packed: true }));
        return res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br', 'content-length': String(packed.length) })
          .end(packed);
      }
      if (path === '/close') return res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' }).end('bye');
      const answer = JSON.stringify({ method: req.method, url: req.url, body, te: req.headers['transfer-encoding'] ?? null });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) }).end(answer);
    });
  });
  upstream.keepAliveTimeout = 5000;
  const upPort = await listening(upstream);
  rawUpstream = createNetServer((s) => {
    let head = '';
    s.on('data', (c: Buffer) => {
      head += c.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      if (head.startsWith('GET /close-delimited ')) {
        s.write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nhello, ');
        setTimeout(() => s.end('until the end'), 20);
      } else if (head.startsWith('GET /http10 ')) s.end('HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok');
      else s.end('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
      head = '';
    });
  });
  const rawUpPort = await listening(rawUpstream);
  forwarder = createForwarder({ upstream: new URL(`http://127.0.0.1:${upPort}`), capture: 1024, reservedPrefix: '/_own/', hooks });
  port = await listening(forwarder.server);
  rawForwarder = createForwarder({ upstream: new URL(`http://127.0.0.1:${rawUpPort}`), capture: 1024, reservedPrefix: '/_own/', hooks });
  rawPort = await listening(rawForwarder.server);
});
afterAll(async () => {
  await forwarder?.close();
  await rawForwarder?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((r) => upstream?.close(() => r()));
  await new Promise<void>((r) => rawUpstream?.close(() => r()));
});

/** A raw client connection: what it has read so far, and waiting for more. */
class Raw {
  readonly socket: Socket;
  text = '';
  closed = false;
  private wake: (() => void) | null = null;
  constructor(p: number) {
    this.socket = connect(p, '127.0.0.1');
    this.socket.on('data', (c: Buffer) => {
      this.text += c.toString('latin1');
      this.wake?.();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }
  send(s: string | Buffer): this {
    this.socket.write(s);
    return this;
  }
  /** Waits until `done(text)` holds (or the connection closes, or 3 s pass); the text read. */
  async until(done: (text: string) => boolean): Promise<string> {
    const limit = Date.now() + 3000;
    while (!done(this.text) && !this.closed && Date.now() < limit)
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 50);
      });
    return this.text;
  }
  end(): void {
    this.socket.destroy();
  }
}

/** The number of complete answers in `text` whose bodies are framed by Content-Length (or have none). */
const answers = (text: string): number => text.split('HTTP/1.1 ').length - 1;
const header = (text: string, name: string): string[] =>
  [...text.matchAll(new RegExp(`^${name}: (.*)$`, 'gim'))].map((m) => m[1]!.replace(/\r$/, ''));
/** Every ended exchange handed to the judging side now (its queue waits JUDGE_BATCH_MS otherwise). */
const judged = (): void => {
  forwarder.drain();
  rawForwarder.drain();
};

describe('framing', () => {
  it('pipelined requests: each forwarded and answered in order, the second only after the first', async () => {
    const c = new Raw(port).send(
      'GET /one HTTP/1.1\r\nHost: client.example\r\n\r\nPOST /two HTTP/1.1\r\nHost: client.example\r\nContent-Length: 3\r\n\r\nabcGET /three HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    const text = await c.until((t) => t.includes('"/three"'));
    c.end();
    expect(answers(text)).toBe(3);
    const bodies = text.match(/\{"method[^}]*\}/g)!.map((b) => JSON.parse(b) as { url: string; body: string });
    expect(bodies.map((b) => b.url)).toEqual(['/one', '/two', '/three']);
    expect(bodies[1]!.body).toBe('abc');
    // the Host the upstream saw is its own
    expect(seen.slice(-3).map((s) => s.headers[s.headers.findIndex((h) => h.toLowerCase() === 'host') + 1])).toEqual(
      Array(3).fill(`127.0.0.1:${(upstream.address() as { port: number }).port}`),
    );
  });

  it('Expect: 100-continue: the upstream’s 100 Continue reaches the client, which then sends the body', async () => {
    const c = new Raw(port).send('PUT /expect HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n');
    expect(await c.until((t) => t.includes('100 Continue'))).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    c.send('hello');
    const text = await c.until((t) => t.includes('"body"'));
    c.end();
    expect(text).toMatch(/"body":"hello"/);
  });

  it('HEAD, 204 and 304 have no body: the next request on the connection is answered', async () => {
    for (const [method, path] of [
      ['HEAD', '/head'],
      ['GET', '/204'],
      ['GET', '/304'],
    ] as const) {
      const c = new Raw(port).send(`${method} ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const first = await c.until((t) => t.includes('\r\n\r\n'));
      expect(first).toMatch(/^HTTP\/1\.1 (200|204|304) /);
      c.send('GET /after HTTP/1.1\r\nHost: x\r\n\r\n');
      const text = await c.until((t) => t.includes('"/after"'));
      c.end();
      expect(text, `${method} ${path}`).toMatch(/"url":"\/after"/);
    }
    expect(
      header(await new Raw(port).send('HEAD /head HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').until(() => false), 'content-length'),
    ).toEqual(['50']);
  });

  it('a chunked request: passed upstream as chunks, judged on its data', async () => {
    ended.length = 0;
    const c = new Raw(port).send('POST /chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n');
    await new Promise((r) => setTimeout(r, 20));
    c.send('5;ext=1\r\npedia\r\n0\r\nx-check: 1\r\n\r\n');
    const text = await c.until((t) => t.includes('"te"'));
    expect(JSON.parse(text.slice(text.indexOf('{')))).toMatchObject({ body: 'Wikipedia', te: 'chunked' });
    // the connection goes on: the trailer section ended the body
    c.send('GET /next HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await c.until((t) => t.includes('"/next"'))).toMatch(/"url":"\/next"/);
    c.end();
    judged();
    expect(copied('/chunks', 'request')).toBe('Wikipedia');
  });

  it('a chunked answer: passed as its chunks (trailer too), judged on its data', async () => {
    ended.length = 0;
    const c = new Raw(port).send('GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await c.until((t) => t.endsWith('\r\n0\r\nx-sum: 7\r\n\r\n'));
    c.end();
    expect(header(text, 'transfer-encoding')).toEqual(['chunked']);
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe('5\r\n{"a":\r\n2\r\n1}\r\n0\r\nx-sum: 7\r\n\r\n');
    judged();
    expect(copied('/chunked', 'answer')).toBe('{"a":1}');
  });

  it('a br answer goes through as the same bytes', async () => {
    const c = new Raw(port).send('GET /br HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const text = await c.until(() => false);
    expect(Buffer.from(text.slice(text.indexOf('\r\n\r\n') + 4), 'latin1')).toEqual(brotliCompressSync(JSON.stringify({ packed: true })));
  });

  it('an answer delimited by the close: forwarded whole, then the client’s connection closes', async () => {
    ended.length = 0;
    const c = new Raw(rawPort).send('GET /close-delimited HTTP/1.1\r\nHost: x\r\n\r\n');
    const text = await c.until(() => false);
    expect(c.closed).toBe(true);
    expect(header(text, 'connection')).toEqual(['close']);
    expect(text.endsWith('\r\n\r\nhello, until the end')).toBe(true);
    judged();
    expect(copied('/close-delimited', 'answer')).toBe('hello, until the end');
  });

  it('an HTTP/1.0 client gets a chunked answer without its chunks, then the close', async () => {
    const c = new Raw(rawPort).send('GET /chunks HTTP/1.0\r\n\r\n');
    const text = await c.until(() => false);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(header(text, 'transfer-encoding')).toEqual([]);
    expect(text.endsWith('\r\n\r\nabc')).toBe(true);
    expect(c.closed).toBe(true);
  });

  it('an HTTP/1.0 upstream answer and Connection: close from the upstream: the client’s connection goes on', async () => {
    const c = new Raw(rawPort).send('GET /http10 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await c.until((t) => t.endsWith('ok'))).toMatch(/content-length: 2\r\n\r\nok$/);
    c.send('GET /http10 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answers(await c.until((t) => answers(t) === 2 && t.endsWith('ok')))).toBe(2);
    expect(c.closed).toBe(false);
    c.end();
    const d = new Raw(port).send('GET /close HTTP/1.1\r\nHost: x\r\n\r\n');
    await d.until((t) => t.endsWith('bye\r\n0\r\n\r\n'));
    d.send('GET /after-close HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await d.until((t) => t.includes('"/after-close"'))).toMatch(/"url":"\/after-close"/);
    expect(header(d.text, 'connection')).toEqual([]);
    d.end();
  });

  it('Connection: close from the client: the answer says so and the connection closes after it', async () => {
    const c = new Raw(port).send('GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const text = await c.until(() => false);
    expect(c.closed).toBe(true);
    expect(header(text, 'connection')).toEqual(['close']);
    expect(text).toMatch(/"url":"\/bye"/);
    // the hop-by-hop field never reached the upstream
    expect(seen.at(-1)!.headers.map((h) => h.toLowerCase())).not.toContain('connection');
  });

  it('othersOpen: an exchange that ended while another (not a GET) was open says so; one alone, or beside a GET, does not', async () => {
    ended.length = 0;
    const alone = new Raw(port).send('GET /alone HTTP/1.1\r\nHost: x\r\n\r\n');
    await alone.until((t) => t.includes('"/alone"'));
    alone.end();
    /**
     * A request sent on another connection while the answer of `long` is under way: sent once the
     * upstream has begun that answer (the proxy has its exchange open), which is ended only after the
     * short one has been answered, however long each takes.
     */
    const whileLong = async (long: string, short: string, shortPath: string): Promise<void> => {
      const begun = new Promise<() => void>((r) => (onHeld = r));
      const slow = new Raw(port).send(`${long} /held HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
      const release = await begun;
      const quick = new Raw(port).send(`${short} ${shortPath} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
      await quick.until((t) => t.includes(`"${shortPath}"`));
      release();
      await slow.until((t) => t.endsWith('\r\n0\r\nx-sum: 7\r\n\r\n'));
      quick.end();
      slow.end();
      judged();
    };
    const open = (url: string) => ended.findLast((e) => e.url === url)?.othersOpen;
    await whileLong('POST', 'GET', '/quick');
    expect([open('/alone'), open('/quick'), open('/held')]).toEqual([false, true, false]);
    // beside a GET left open (an event stream), a request ends as if alone
    await whileLong('GET', 'POST', '/beside');
    expect(open('/beside')).toBe(false);
  });

  it.each([
    ['a malformed request line', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a space in a header name', 'GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n'],
    [
      'Content-Length and Transfer-Encoding together',
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['two different Content-Lengths', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd'],
    ['a folded header line', 'GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n 2\r\n\r\n'],
    ['no Host', 'GET / HTTP/1.1\r\nX-A: 1\r\n\r\n'],
    ['a chunk size that is not hex', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ])('%s: 400 from the proxy, nothing forwarded, the connection closed', async (_name, request) => {
    const before = seen.length;
    const c = new Raw(port).send(request);
    const text = await c.until(() => false);
    // refused by the proxy itself, not by the upstream after it
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\npaylater proxy: /);
    expect(c.closed).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    expect(seen.length).toBe(before);
  });
});

describe('an https upstream', () => {
  it('is reached over TLS with its certificate verified: trusted, the answer comes back; not trusted, a 502', async () => {
    const tlsUpstream = createHttpsServer({ cert: LOCALHOST_CERT, key: LOCALHOST_KEY }, (req, res) => {
      req.resume();
      res
        .writeHead(200, { 'content-type': 'text/plain', 'content-length': '7' })
        .end(`tls ${req.headers.host === `localhost:${tlsPort}` ? 'ok' : 'no'}`);
    });
    const tlsPort = await listening(tlsUpstream);
    const upstreamUrl = new URL(`https://localhost:${tlsPort}`);
    const trusting = createForwarder({
      upstream: upstreamUrl,
      capture: 1024,
      reservedPrefix: '/_own/',
      hooks,
      tls: { ca: LOCALHOST_CERT },
    });
    const doubting = createForwarder({ upstream: upstreamUrl, capture: 1024, reservedPrefix: '/_own/', hooks });
    try {
      const a = new Raw(await listening(trusting.server)).send('GET /tls HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await a.until((t) => t.endsWith('tls ok'))).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\ntls ok$/);
      a.end();
      const b = new Raw(await listening(doubting.server)).send('GET /tls HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await b.until((t) => t.includes('PROXY_UPSTREAM_ERROR'))).toMatch(
        /^HTTP\/1\.1 502 Bad Gateway\r\n[^]*self-signed certificate/,
      );
      b.end();
    } finally {
      await trusting.close();
      await doubting.close();
      tlsUpstream.closeAllConnections();
      await new Promise<void>((r) => tlsUpstream.close(() => r()));
    }
  });
});
