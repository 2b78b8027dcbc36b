/** Test support for the proxy's tests (never imported by the proxy): a webhook relay, and waiting on a condition. */
import { createServer, type Server } from 'node:http';

/** Forwards every request on 127.0.0.1:`port` to `target()` (POST, headers and body as received); answers 200 at once. */
export async function startRelay(port: number, target: () => string): Promise<{ close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
      void fetch(target(), { method: 'POST', headers, body: Buffer.concat(chunks) }).catch(() => undefined);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
