/**
 * The proxy forwards unchanged and survives bad upstream answers: every header both ways, bodies
 * streamed, keep-alive to the upstream, gzip passed through (and judged decoded), a malformed or
 * non-JSON answer reported, a broken connection or an unreachable upstream reported (never a
 * crash), a huge body forwarded whole; the reserved path never forwarded; keys never in clear.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fabricate } from '../conformance/mutants/match.ts';
import { freePort } from '../lib/free-port.ts';
import { REPORT_PATH, startLiveProxy, type LiveProxy } from './server.ts';
import { sleep } from './test-support/relay.ts';

const KEY = `sk_test_robust_${randomUUID().replace(/-/g, '')}`;
const B2 = (id: string): string => `/api/v1/public/partner/transactions/${id}`;
const record = fabricate({
  total: 600,
  currency: 'MAD',
  customerPhone: '0612345678',
  items: [{ name: 'Lamp', quantity: 1, unitPrice: 600 }],
});
const HUGE = 5 * 1024 * 1024;

let upstream: Server;
let upstreamUrl: string;
let proxy: LiveProxy;
/** What the upstream saw: each request, and when it had read it whole (`performance.now()`; most answers are written then too). */
const seen: { url: string; headers: IncomingMessage['rawHeaders']; bodyBytes: number; remotePort: number; at: number }[] = [];
/**
 * The last `slow` answer: its head and first bytes written, its end held until `end()` (or 10 s,
 * so that a failing test does not hang); `gone` once the upstream is done with it (ended, or its
 * connection closed).
 */
let slow: { end(): void; gone: Promise<void> } | undefined;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let bodyBytes = 0;
    req.on('data', (c: Buffer) => (bodyBytes += c.length));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.rawHeaders, bodyBytes, remotePort: req.socket.remotePort ?? 0, at: performance.now() });
      const mode = (req.url ?? '').split('/').pop();
      const json = { ...record, id: record.id };
      switch (mode) {
        case 'ok':
          res.writeHead(200, [
            'Content-Type',
            'application/json; charset=utf-8',
            'X-Upstream',
            'one',
            'Set-Cookie',
            'a=1',
            'Set-Cookie',
            'b=2',
          ] as unknown as Record<string, string>);
          return res.end(JSON.stringify(json));
        case 'judged-after': {
          const text = JSON.stringify(json);
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
          return res.end(text);
        }
        case 'gzip':
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' });
          return res.end(gzipSync(JSON.stringify(json)));
        case 'malformed':
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          return res.end('{"id": "abc", "status":');
        case 'html':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<h1>hello</h1>');
        case 'slow': {
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          const end = (): void => {
            clearTimeout(safety);
            if (!res.writableEnded && !res.destroyed) res.end(`${JSON.stringify(record.id)}}`);
          };
          const safety = setTimeout(end, 10_000);
          slow = { end, gone: new Promise((r) => res.on('close', () => r())) };
          res.write('{"id":');
          return;
        }
        case 'broken':
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '1000' });
          res.write('{"id":"');
          setTimeout(() => res.socket?.destroy(), 50);
          return;
        case 'big':
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          return res.end(JSON.stringify('y'.repeat(200_000)));
        case 'huge':
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(HUGE + 2) });
          res.write('"');
          res.write(Buffer.alloc(HUGE, 'x'));
          return res.end('"');
        default:
          res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
          return res.end(JSON.stringify({ received: bodyBytes }));
      }
    });
  });
  // hints `Keep-Alive: timeout=1`, as the reference server does: Node's agent, by default, drops a
  // socket 1 s before the hint, that is at once
  upstream.keepAliveTimeout = 1000;
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  proxy = await startLiveProxy({ upstream: upstreamUrl, variant: 1 });
});
afterAll(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

/** One raw request through the proxy: status, raw headers, body bytes; `firstByte` called when the first body byte comes. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string | string[]> = {},
  body?: Buffer,
  firstByte?: () => void,
): Promise<{ status: number; rawHeaders: string[]; body: Buffer; error?: string }> {
  return new Promise((resolve) => {
    const req = request(proxy.url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (chunks.length === 0) firstByte?.();
        chunks.push(c);
      });
      const done = (error?: string) =>
        resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks), error });
      res.on('end', () => done());
      res.on('error', (e) => done(e.message));
      res.on('aborted', () => done('aborted'));
    });
    req.on('error', (e) => resolve({ status: 0, rawHeaders: [], body: Buffer.alloc(0), error: e.message }));
    req.end(body);
  });
}

const findingsAbout = (s: string) => proxy.recorder.findings.filter((f) => f.exchanges.some((e) => e.url.endsWith(s)));

describe('forwarding', () => {
  it('every header both ways, unchanged (repeated ones too), Host the upstream’s; the key never in a report', async () => {
    const r = await raw('GET', B2('ok'), { 'X-Api-Key': KEY, 'X-Custom': 'Keep Me', 'X-Repeat': ['a', 'b'] });
    expect(r.status).toBe(200);
    const up = seen.at(-1)!;
    const pairs = (h: string[]) => h.reduce<string[]>((a, _v, i) => (i % 2 ? a : [...a, `${h[i]!.toLowerCase()}: ${h[i + 1]!}`]), []);
    expect(pairs(up.headers)).toEqual(expect.arrayContaining([`x-api-key: ${KEY}`, 'x-custom: Keep Me', 'x-repeat: a', 'x-repeat: b']));
    expect(pairs(up.headers)).toContain(`host: ${new URL(upstreamUrl).host}`);
    expect(pairs(r.rawHeaders)).toEqual(expect.arrayContaining(['x-upstream: one', 'set-cookie: a=1', 'set-cookie: b=2']));
    expect(JSON.parse(r.body.toString())).toEqual(record);
    // the answer (a valid record for a B2 path with another id) gives a finding whose exchanges are masked
    await sleep(20);
    const report = JSON.stringify(proxy.recorder.report());
    expect(report).not.toContain(KEY);
    expect(report).toContain('MASKED_');
  });

  it('keeps the connection to the upstream alive between requests (an upstream hinting Keep-Alive: timeout=1 too)', async () => {
    // two requests, the second sent within the hint: on the same connection. The gap between them
    // measured by the upstream, from writing the first answer to reading the second request, is
    // never shorter than the proxy's (which ends the first exchange after the upstream wrote its
    // answer, and begins the second before the upstream reads it). The proxy rightly does not
    // reuse a connection 900 ms or more after the hint: a pair 800 ms or more apart (a busy
    // machine) shows nothing, and another is tried, three at most
    let pair: { gapMs: number; ports: [number, number] } | undefined;
    for (let i = 0; i < 3 && (pair === undefined || pair.gapMs >= 800); i++) {
      await raw('GET', B2('ok'));
      const first = seen.at(-1)!;
      await raw('GET', B2('ok'));
      const second = seen.at(-1)!;
      pair = { gapMs: second.at - first.at, ports: [first.remotePort, second.remotePort] };
    }
    expect(pair!.gapMs, 'a pair of requests within 800 ms of each other').toBeLessThan(800);
    expect(pair!.ports[1]).toBe(pair!.ports[0]);
  });

  it('streams the answer: its first bytes reach the client before the upstream has finished', async () => {
    // the upstream ends its answer only once the client has had a byte of it: a proxy holding the
    // answer back until its end would give none, and after 5 s the answer is ended for the test
    // to fail (not hang)
    let endedBy: string | undefined;
    const end = (by: string): void => {
      endedBy ??= by;
      slow?.end();
    };
    const giveUp = setTimeout(() => end('5 s without a byte'), 5000);
    const r = await raw('GET', B2('slow'), {}, undefined, () => end('the first byte'));
    clearTimeout(giveUp);
    expect(endedBy).toBe('the first byte');
    expect(r.body.toString()).toBe(`{"id":${JSON.stringify(record.id)}}`);
  });

  it('a gzip answer goes through as the same bytes, and is judged decoded', async () => {
    const r = await raw('GET', B2('gzip'), { 'X-Api-Key': KEY });
    expect(r.rawHeaders.map((h) => h.toLowerCase())).toContain('gzip');
    expect(r.body).toEqual(gzipSync(JSON.stringify(record)));
    await sleep(20);
    // decoded, the body is valid JSON: no "not JSON" finding for it
    expect(
      findingsAbout('/gzip')
        .map((f) => f.message)
        .join('\n'),
    ).not.toMatch(/not JSON|decompress/);
  });

  it('a huge answer and a huge request body are forwarded whole; judged on their status only', async () => {
    const r = await raw('GET', B2('huge'));
    expect(r.body.length).toBe(HUGE + 2);
    const big = Buffer.alloc(3 * 1024 * 1024, 'y');
    const p = await raw('POST', '/api/v1/public/partner/transactions', { 'content-type': 'application/json', 'X-Service-Key': KEY }, big);
    expect(JSON.parse(p.body.toString())).toEqual({ received: big.length });
  });

  it('a 200 KB answer: forwarded whole, judged whole, kept in the exchange ring cut at 16 KiB (left out of the HAR)', async () => {
    const r = await raw('GET', B2('big'));
    expect(r.body.length).toBe(200_002);
    await sleep(20);
    const entry = (
      proxy.recorder.har() as {
        log: { entries: { request: { url: string }; response: { content: { text?: string; size: number; comment?: string } } }[] };
      }
    ).log.entries
      .filter((e) => e.request.url.endsWith('/big'))
      .at(-1)!;
    // a HAR reader judges it on its status only: the text held is not the answer's
    expect(entry.response.content).toMatchObject({ size: -1, comment: '(200002 characters, cut at 16384)' });
    expect(entry.response.content.text).toBeUndefined();
    // judged on the whole body: a string where a record is declared
    expect(
      findingsAbout('/big')
        .map((f) => f.message)
        .join('\n'),
    ).toMatch(/must be object/);
  });

  it('the client has the whole answer before the exchange is judged', async () => {
    // the client, in a process of its own, leaves a file once it has read the whole answer; the
    // judge waits up to 3 s for that file: it can only appear if the answer left the proxy before
    // the judge ran
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-judge-after-'));
    const flag = path.join(dir, 'answered');
    const original = proxy.judge.exchange.bind(proxy.judge);
    let clientHadItAll: boolean | undefined;
    proxy.judge.exchange = (ex) => {
      if (clientHadItAll === undefined && ex.url.endsWith('/judged-after')) {
        const until = Date.now() + 3000;
        while (!existsSync(flag) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        clientHadItAll = existsSync(flag);
      }
      return original(ex);
    };
    const client = `
      const s = require('node:net').connect(${proxy.port}, '127.0.0.1');
      let t = Buffer.alloc(0);
      s.on('data', (c) => {
        t = Buffer.concat([t, c]);
        const end = t.indexOf('\\r\\n\\r\\n');
        const m = /content-length: (\\d+)/i.exec(t.toString('latin1'));
        if (end !== -1 && m && t.length >= end + 4 + Number(m[1])) {
          require('node:fs').writeFileSync(${JSON.stringify(flag)}, t);
          s.destroy();
        }
      });
      s.write('GET ${B2('judged-after')} HTTP/1.1\\r\\nHost: x\\r\\nX-Api-Key: ${KEY}\\r\\n\\r\\n');
    `;
    try {
      await promisify(execFile)(process.execPath, ['-e', client]);
      await sleep(20);
      expect(clientHadItAll).toBe(true);
      expect(JSON.parse(readFileSync(flag, 'latin1').split('\r\n\r\n')[1]!)).toEqual(record);
    } finally {
      proxy.judge.exchange = original;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the reserved path is answered by the proxy, never forwarded', async () => {
    const before = seen.length;
    const r = await raw('GET', REPORT_PATH);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toMatchObject({ tool: 'paylater proxy' });
    expect((await raw('POST', '/_paylater/anything')).status).toBe(404);
    expect(seen.length).toBe(before);
  });
});

describe('bad upstream answers: reported, never a crash', () => {
  it('a malformed JSON answer and a non-JSON answer are passed through and reported', async () => {
    const m = await raw('GET', B2('malformed'));
    expect(m.body.toString()).toBe('{"id": "abc", "status":');
    const h = await raw('GET', B2('html'));
    expect(h.body.toString()).toBe('<h1>hello</h1>');
    await sleep(20);
    expect(
      findingsAbout('/malformed')
        .map((f) => f.message)
        .join('\n'),
    ).toMatch(/not JSON/);
    expect(
      findingsAbout('/html')
        .map((f) => f.message)
        .join('\n'),
    ).toMatch(/content type "text\/html"/);
  });

  it('an answer the upstream cuts off: the client sees it cut, the proxy reports it and goes on', async () => {
    const r = await raw('GET', B2('broken'));
    expect(r.error ?? (r.body.length < 1000 ? 'short' : undefined)).toBeDefined();
    await sleep(50);
    expect(proxy.recorder.findings.some((f) => f.kind === 'upstream' && f.operation.endsWith('/broken'))).toBe(true);
    expect((await raw('GET', B2('ok'))).status).toBe(200);
  });

  it('a client that hangs up mid-answer is counted, not reported as the fault of the upstream', async () => {
    const before = proxy.recorder.findingCount;
    const aborts = proxy.recorder.clientAborts;
    await new Promise<void>((resolve) => {
      const req = request(proxy.url + B2('slow'), (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.end();
    });
    // the upstream holds the rest of its answer until the client's going has been counted
    const answer = slow!;
    try {
      await expect.poll(() => proxy.recorder.clientAborts).toBe(aborts + 1);
    } finally {
      answer.end();
    }
    // the end of the answer, had the proxy still been reading it, has been read: the upstream is
    // done with it, and the proxy has answered a request since (findingCount judges every
    // exchange ended before it)
    await answer.gone;
    await raw('GET', REPORT_PATH);
    expect(proxy.recorder.findingCount).toBe(before);
  });

  it('an unreachable upstream: 502 from the proxy, reported', async () => {
    const dead = await startLiveProxy({ upstream: `http://127.0.0.1:${await freePort()}`, variant: 1 });
    try {
      const res = await fetch(dead.url + B2('ok'), { headers: { 'X-Api-Key': KEY } });
      expect(res.status).toBe(502);
      expect(dead.recorder.findings.map((f) => f.kind)).toEqual(['upstream']);
      expect(JSON.stringify(dead.recorder.report())).not.toContain(KEY);
    } finally {
      await dead.close();
    }
  });
});

describe('a kept-alive connection the upstream closes', () => {
  it('a request that finds its reused connection closed, before any byte of the answer, is sent once more on a new one', async () => {
    // the upstream answers the first request of each connection and closes the connection on the
    // next one without answering (as a server closing an idle connection just as it is reused)
    const served = new WeakSet<object>();
    const ports: number[] = [];
    const closing = createServer((req, res) => {
      req.resume();
      if (served.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      ports.push(req.socket.remotePort ?? 0);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(record));
    });
    await new Promise<void>((r) => closing.listen(0, '127.0.0.1', () => r()));
    const p = await startLiveProxy({ upstream: `http://127.0.0.1:${(closing.address() as { port: number }).port}`, variant: 1 });
    try {
      const get = () => fetch(p.url + B2(record.id as string), { headers: { 'X-Api-Key': KEY } });
      const first = await get();
      expect(first.status).toBe(200);
      await first.arrayBuffer();
      const second = await get();
      expect(second.status).toBe(200);
      expect(await second.json()).toEqual(record);
      // answered on a second connection, after the first was closed under the request
      expect(ports).toHaveLength(2);
      expect(ports[1]).not.toBe(ports[0]);
      expect(p.recorder.findings.filter((f) => f.kind === 'upstream')).toEqual([]);
    } finally {
      await p.close();
      closing.closeAllConnections();
      await new Promise<void>((r) => closing.close(() => r()));
    }
  });
  it('a POST that finds its reused connection closed is not sent again (it may have been applied): 502, recorded', async () => {
    const served = new WeakSet<object>();
    let posts = 0;
    const closing = createServer((req, res) => {
      req.resume();
      if (req.method === 'POST') posts++;
      if (served.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(record));
    });
    await new Promise<void>((r) => closing.listen(0, '127.0.0.1', () => r()));
    const p = await startLiveProxy({ upstream: `http://127.0.0.1:${(closing.address() as { port: number }).port}`, variant: 1 });
    try {
      const first = await fetch(p.url + B2(record.id as string), { headers: { 'X-Api-Key': KEY } });
      expect(first.status).toBe(200);
      await first.arrayBuffer();
      const post = await fetch(`${p.url}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Service-Key': KEY },
        body: '{}',
      });
      expect(post.status).toBe(502);
      expect(((await post.json()) as { error: { code: string } }).error.code).toBe('PROXY_UPSTREAM_ERROR');
      expect(posts).toBe(1);
    } finally {
      await p.close();
      closing.closeAllConnections();
      await new Promise<void>((r) => closing.close(() => r()));
    }
  });
});
