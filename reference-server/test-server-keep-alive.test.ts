/**
 * The test server keeps a client's connection open between requests: fetch (undici) reuses an idle
 * connection only while more than 2 s of the server's advertised keep-alive remain, so a test
 * server advertising less makes every request of every test open and tear down a connection.
 */
import { afterAll, expect, it } from 'vitest';
import { startTestServer } from './testing.ts';

const server = await startTestServer({
  mount: (app) => app.get('/__client-port', (req, res) => res.json(req.socket.remotePort)),
});
afterAll(() => server.close());

it('answers a client’s successive requests on the connections it keeps open', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 8; i++) ports.push((await (await fetch(`${server.baseUrl}/__client-port`)).json()) as number);
  // fetch may open a second connection while the first one's answer is being read; never one per request
  expect(new Set(ports).size).toBeLessThanOrEqual(2);
});
