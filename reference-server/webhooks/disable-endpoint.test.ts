/**
 * ADR-005: a 410 disables the merchant's endpoint in the same write as the attempt that got it.
 * The conformance suite reads the delivery and then the endpoint; against PostgreSQL (each write
 * a round trip) it saw the delivery `disabled` and the endpoint still enabled, between the two
 * writes the server made. And an instance answers the endpoint as stored: a second instance on
 * the same store that has not had the change notice yet still shows the other's write (the
 * router reads the merchant's state on each request).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { systemClock } from '../domain/clock.ts';
import type { Change } from '../domain/types.ts';
import type { Repository } from '../store/repository.ts';
import { call, partnerBody } from '../test-support/helpers.ts';
import { startTestServer, type TestServer } from '../testing.ts';
import { generateWebhookSecret } from './signing.ts';

let receiver: Server;
let s: TestServer;
const KEY = 'sk_test_disable_endpoint_4b8e1f27c9d3a6';
/** The changes of each committed transaction, in order. */
const transactions: Change[][] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(410).end()));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  s = await startTestServer({
    merchants: [{ name: 'Gone Shop', storeName: 'Gone', apiKey: KEY, variant: 1, webhookUrl: url, webhookSecret: generateWebhookSecret() }],
  });
  // Every transaction's writes, as the core makes them.
  const repo: Repository = s.handle.core.repo;
  const run = repo.transaction.bind(repo);
  repo.transaction = (work) =>
    run(async (tx) => {
      const written: Change[] = [];
      const write = tx.write.bind(tx);
      tx.write = (changes) => {
        written.push(...changes);
        write(changes);
      };
      const out = await work(tx);
      transactions.push(written);
      return out;
    });
});
afterAll(async () => {
  await s.close();
  await new Promise((r) => receiver.close(r));
});

const api = <T>(m: string, p: string, json?: unknown) =>
  call<T>(s.baseUrl, m, p, { headers: { 'X-API-Key': KEY, 'X-Service-Key': KEY }, ...(json === undefined ? {} : { json }) });

// @checks ADR-005
describe('a 410 disables the endpoint', () => {
  it('in the same transaction as the attempt that got it: no write shows the delivery disabled and the endpoint enabled', async () => {
    const tx = await api<{ id: string }>('POST', '/api/v1/public/partner/transactions', partnerBody());
    expect(tx.status).toBe(201);
    expect((await api('POST', `/api/v1/sandbox/transactions/${tx.body.id}/confirm`)).status).toBe(200);
    let state = 'pending';
    for (let i = 0; i < 400 && state === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const d = await api<{ data: Array<{ state: string }> }>('GET', `/api/v1/sandbox/webhook-deliveries?transactionId=${tx.body.id}`);
      state = d.body.data[0]?.state ?? 'pending';
    }
    expect(state).toBe('disabled');
    const disabling = transactions.filter((t) => t.some((c) => c.c === 'outbox' && c.v !== null && c.v.state === 'disabled'));
    expect(disabling).toHaveLength(1);
    expect(disabling[0]!.find((c) => c.c === 'merchantState')?.v).toMatchObject({ endpointEnabled: false });
    expect((await api<{ enabled: boolean }>('GET', '/api/v1/sandbox/webhook-endpoint')).body.enabled).toBe(false);
  });

  it('and an instance that has not had the change notice yet answers the endpoint as stored', async () => {
    // A second instance on the same repository, which stops listening to change notices (as one
    // whose notice is still on its way would be).
    const other = await createApp({
      repository: s.handle.core.repo,
      clock: systemClock,
      config: s.handle.core.config,
    });
    other.core.stop();
    const server: Server = await new Promise((r) => {
      const srv = other.app.listen(0, '127.0.0.1', () => r(srv));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const get = () => call<{ enabled: boolean }>(base, 'GET', '/api/v1/sandbox/webhook-endpoint', { headers: { 'X-API-Key': KEY } });
      expect((await get()).body.enabled).toBe(false);
      // Re-enabled through the first instance (a redelivery does that).
      await s.handle.core.directory.setEndpointEnabled(s.merchants[0]!.id, true);
      expect((await get()).body.enabled).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
