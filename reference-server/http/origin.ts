/**
 * This server's own origin for absolute links and self-calls: the configured public base URL
 * (`--public-url`), else the address the connection reached on this server's socket. Never
 * the request's `Host` header, which a client chooses freely.
 */
import type { IncomingMessage } from 'node:http';

/** `http://<local address>:<local port>` of the connection `req` came in on. */
export function listenOrigin(req: IncomingMessage): string {
  const socket = req.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice('::ffff:'.length); // IPv4 reached through a dual-stack socket
  if (host.includes(':')) host = `[${host}]`;
  return `http://${host}:${socket.localPort ?? 80}`;
}

/**
 * The public base URL without a trailing slash, or this connection's listen origin.
 * @rule ADR-025
 */
export function ownOrigin(req: IncomingMessage, publicBaseUrl: string | undefined): string {
  return publicBaseUrl ? publicBaseUrl.replace(/\/+$/, '') : listenOrigin(req);
}

/** Null when `text` is an absolute http(s) URL without query or fragment, else why not. */
export function checkPublicUrl(text: string): string | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return 'must be an absolute URL such as https://sandbox.example.com';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must use http or https';
  if (u.search || u.hash || u.username || u.password) return 'must have no query, fragment or credentials';
  return null;
}
