/**
 * Keep-alive of the server's sockets. A client that reuses an idle connection at the moment the
 * server closes it gets "other side closed" on a request the server never saw. Keeping idle
 * connections longer than clients keep them (undici, Node's fetch: 4 s) means the client closes
 * first; headers still have to arrive within `headersTimeout`.
 */
import type { Server } from 'node:http';

export const KEEP_ALIVE_MS = 65_000;

export function keepAliveLongerThanClients(server: Server): Server {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
}
