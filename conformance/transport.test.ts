/**
 * The suite's client on its default transport (undici's `request`, transport.ts) sends what the
 * exchange records and no more: none of the headers `fetch` added on its own (accept,
 * accept-language, sec-fetch-mode, user-agent, accept-encoding, a text/plain content type for a
 * body without one), only the connection's own; a redirect is the answer, not followed; the
 * answer's header names are lower-cased, a repeated one's values joined with ", ".
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract } from '../judge/contract.ts';
import type { Judge } from '../judge/index.ts';
import { Client } from './http.ts';

/** The request headers a connection needs, which undici adds (the exchange does not record them). */
const CONNECTION_HEADERS = new Set(['host', 'connection', 'content-length']);

/** Per request the server got: its method and path, and its header names (lower-cased). */
const seen: Array<{ line: string; names: string[] }> = [];
const server = createServer((req: IncomingMessage, res) => {
  seen.push({ line: `${req.method} ${req.url}`, names: req.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()) });
  req.resume();
  req.on('end', () => {
    if (req.url === '/moved') return void res.writeHead(302, { Location: '/elsewhere' }).end();
    res.setHeader('X-Twice', ['a', 'b']);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
  });
});
let base = '';
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** A client on the default transport whose judge finds nothing (the server here speaks no contract). */
const client = (): Client => new Client(base, Contract.for(1), undefined, undefined, { judge: { exchange: () => [] } as unknown as Judge });

describe("the client's default transport", () => {
  it('sends the headers the exchange records and, besides them, only the connection headers', async () => {
    const headers = { 'X-API-Key': 'sk_test_transport_0001' };
    const ex = await client().sendRaw('a body without a content type', 'POST', `${base}/echo`, headers, 'plain words');
    expect(ex.status).toBe(200);
    expect(ex.headers).toEqual(headers);
    expect(seen.at(-1)!.names.filter((n) => !CONNECTION_HEADERS.has(n))).toEqual(['x-api-key']);
  });

  it('does not follow a redirect: the 3xx is the answer recorded', async () => {
    const before = seen.length;
    const ex = await client().sendRaw('moved', 'GET', `${base}/moved`);
    expect(ex.status).toBe(302);
    expect(ex.responseHeaders.location).toBe('/elsewhere');
    expect(seen.slice(before).map((r) => r.line)).toEqual(['GET /moved']);
  });

  it('reads the answer header names lower-cased, the values of a repeated one joined with ", "', async () => {
    const ex = await client().sendRaw('repeated header', 'GET', `${base}/echo`);
    expect(ex.responseHeaders['x-twice']).toBe('a, b');
    expect(ex.responseHeaders['content-type']).toBe('application/json');
    expect(ex.json).toEqual({ ok: true });
  });
});
