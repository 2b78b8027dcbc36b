/**
 * A keep-alive connection the server closes while a request goes out on it (its idle timeout meeting
 * a slow client): the suite resends an idempotent request once on a new connection (RFC 9110
 * §9.2.2) instead of reporting that the server stopped answering; a POST is never resent. The
 * server is a raw socket server, so the close happens exactly there: the first connection answers
 * one request, then closes when the next one arrives on it, unanswered. Both through the client's
 * default transport (undici's `request`, whose error is the socket's own) and through an injected
 * `fetch` (whose error wraps it).
 */
import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { fetch as undiciFetch, Pool } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { Client, NoAnswerError } from './http.ts';
import { Contract } from '../judge/contract.ts';

const contract = new Contract(1, loadBundledDocument(1));
const KEY = { 'X-API-Key': 'sk_test_keepalive_0001' };

/**
 * A server whose every connection answers its first request and is cut when a second one arrives
 * on it, unanswered (what an idle timeout does to a request already on its way). `connections`: per
 * connection, the first line of each request it received. The client reaches it through its
 * default transport, whose idle connection takes the next request, or through undici's `fetch` on a
 * pool of one connection, so that the second request goes out on the first connection.
 */
async function cuttingServer(transport: 'default' | 'fetch') {
  const connections: string[][] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const seen: string[] = [];
    connections.push(seen);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
        const head = buffered.slice(0, end);
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        seen.push(head.split('\r\n')[0]!);
        if (seen.length === 2) {
          socket.destroy();
          return;
        }
        const body = JSON.stringify({ offsetSeconds: 0, offsetMilliseconds: 0, now: new Date().toISOString() });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
            `Connection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n${body}`,
        );
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const pool = transport === 'fetch' ? new Pool(baseUrl, { connections: 1 }) : undefined;
  servers.push(async () => {
    await pool?.close();
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  if (!pool) return { client: new Client(baseUrl, contract), connections };
  const fetchImpl = ((url: string, init: RequestInit) =>
    undiciFetch(url, { ...init, dispatcher: pool } as never)) as unknown as typeof fetch;
  return { client: new Client(baseUrl, contract, fetchImpl), connections };
}
const servers: Array<() => Promise<void>> = [];
/**
 * The first connection left idle a moment: a pool of undici hands a request to a connection only
 * once the answer before it has been let go (a request sent in the same turn goes out on a new one).
 */
const idle = (): Promise<void> => delay(20);
afterAll(async () => {
  for (const close of servers) await close();
});

describe.each(['default', 'fetch'] as const)('a keep-alive connection closed under a request (%s transport)', (transport) => {
  it('an idempotent request is resent once on a new connection and answered', async () => {
    const { client, connections } = await cuttingServer(transport);
    const first = await client.sendTo('sandboxGetClock', 'GET', '/api/v1/sandbox/clock', { headers: KEY });
    expect(first.status).toBe(200);
    await idle();
    const second = await client.sendTo('sandboxGetClock', 'GET', '/api/v1/sandbox/clock', { headers: KEY });
    expect(second.status).toBe(200);
    expect(client.resent).toBe(1);
    expect(client.gone).toBeUndefined();
    // the second request went out on the first connection, was cut, and was answered on a new one
    expect(connections.map((c) => c.length)).toEqual([2, 1]);
  });

  it('a POST is not resent: the run ends with the server named as not answering', async () => {
    const { client, connections } = await cuttingServer(transport);
    await client.sendTo('sandboxGetClock', 'GET', '/api/v1/sandbox/clock', { headers: KEY });
    await idle();
    const cut = client.sendTo('sandboxAdvanceClock', 'POST', '/api/v1/sandbox/clock/advance', { headers: KEY, body: { seconds: 1 } });
    await expect(cut).rejects.toBeInstanceOf(NoAnswerError);
    await expect(cut).rejects.toThrow(/could not be sent \(other side closed\)/);
    expect(client.resent).toBe(0);
    expect(connections.map((c) => c.length)).toEqual([2]);
  });
});
