/**
 * A keep-alive connection the server closes while a request goes out on it (its idle timeout meeting
 * a slow client): the suite resends an idempotent request once on a new connection (RFC 9110
 * §9.2.2) instead of reporting that the server stopped answering; a POST is never resent. The
 * server is a raw socket server, so the close happens exactly there: the first connection answers
 * one request, then closes when the next one arrives on it, unanswered.
 */
import { once } from 'node:events';
import net from 'node:net';
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
 * connection, the first line of each request it received. The client reaches it through a pool of
 * one connection, so that the second request goes out on the first connection.
 */
async function cuttingServer() {
  const connections: string[][] = [];
  const server = net.createServer((socket) => {
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
  const pool = new Pool(baseUrl, { connections: 1 });
  const fetchImpl = ((url: string, init: RequestInit) =>
    undiciFetch(url, { ...init, dispatcher: pool } as never)) as unknown as typeof fetch;
  servers.push(async () => {
    await pool.close();
    server.close();
  });
  return { client: new Client(baseUrl, contract, fetchImpl), connections };
}
const servers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of servers) await close();
});

describe('a keep-alive connection closed under a request', () => {
  it('an idempotent request is resent once on a new connection and answered', async () => {
    const { client, connections } = await cuttingServer();
    const first = await client.sendTo('sandboxGetClock', 'GET', '/api/v1/sandbox/clock', { headers: KEY });
    expect(first.status).toBe(200);
    const second = await client.sendTo('sandboxGetClock', 'GET', '/api/v1/sandbox/clock', { headers: KEY });
    expect(second.status).toBe(200);
    expect(client.resent).toBe(1);
    expect(client.gone).toBeUndefined();
    // the second request went out on the first connection, was cut, and was answered on a new one
    expect(connections.map((c) => c.length)).toEqual([2, 1]);
  });

  it('a POST is not resent: the run ends with the server named as not answering', async () => {
    const { client, connections } = await cuttingServer();
    await client.sendTo('sandboxGetClock', 'GET', '/api/v1/sandbox/clock', { headers: KEY });
    const cut = client.sendTo('sandboxAdvanceClock', 'POST', '/api/v1/sandbox/clock/advance', { headers: KEY, body: { seconds: 1 } });
    await expect(cut).rejects.toBeInstanceOf(NoAnswerError);
    await expect(cut).rejects.toThrow(/could not be sent \(other side closed\)/);
    expect(client.resent).toBe(0);
    expect(connections.map((c) => c.length)).toEqual([2]);
  });
});
