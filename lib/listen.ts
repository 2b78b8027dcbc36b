/** A server started listening, as the commands and the suite's webhook receiver start theirs. */
import type { Server } from 'node:net';

/** `server` listening on `port` (0: one the kernel picks) at `host`: the port it listens on, or the error that kept it from listening. */
export async function listening(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as { port: number }).port;
}
