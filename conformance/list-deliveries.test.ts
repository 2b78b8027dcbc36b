/**
 * The deliveries list's expiry check (`commands/listWebhookDeliveries.ts`) against a stub server
 * answering one page: an expiry whose webhook reached the suite before the read began must be
 * listed, one that arrives while the pages are read need not be (the server may write it at its
 * sweep during the read, above the first page: newest first). CI once saw the second flagged
 * against the reference server with its webhooks delayed (`conformance/mutants/controls.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { ListWebhookDeliveries } from './commands/listWebhookDeliveries.ts';
import { ConformanceError } from '../judge/answer.ts';
import type { Delivery, WebhookReceiver } from './webhooks.ts';
import { World, type Tx } from './world.ts';

const TX = '01a210c9-0e75-7e0d-88f1-766e4de5643f';
const expiry: Delivery = {
  receivedAt: 0,
  webhookId: 'msg_1',
  body: '{}',
  payload: { event: 'transaction.expired', data: { id: TX, status: 'EXPIRED' } },
  problems: [],
};

/** A world whose server lists no delivery, and `during` run while it answers each page. */
function world(before: Delivery[], during: (deliveries: Delivery[]) => void): { w: World; pages: () => number } {
  let pages = 0;
  const deliveries = [...before];
  const stub = (async () => {
    pages++;
    during(deliveries);
    return new Response(JSON.stringify({ data: [], nextCursor: null }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  const w = new World(
    { baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test_main', otherApiKey: 'sk_test_other', variant: 1, profile: 'sandbox' },
    stub,
  );
  w.receiver = { deliveries } as unknown as WebhookReceiver;
  const tx: Tx = {
    id: TX,
    who: 'main',
    kind: 'partner',
    status: 'EXPIRED',
    vendorReference: 'REF-1',
    created: {},
    sentAt: 0,
    receivedAt: 1,
    advAtCreation: 0,
    runId: 1,
    emitted: ['transaction.expired'],
  };
  w.state.txs.set(TX, tx);
  return { w, pages: () => pages };
}

const run = (w: World) => new ListWebhookDeliveries(7).run({ state: w.state, txs: [], sessions: [] }, w);

describe('the deliveries list and a transaction that expired', () => {
  it('its webhook received before the read began, missing from the list: a finding', async () => {
    const { w, pages } = world([expiry], () => {});
    const err = await run(w).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConformanceError);
    expect((err as ConformanceError).message).toContain(`0 transaction.expired listed for transaction ${TX}`);
    expect(pages()).toBe(1);
  });

  it('its webhook received while the pages are read: not required of that read', async () => {
    const { w, pages } = world([], (d) => {
      if (d.length === 0) d.push(expiry);
    });
    await expect(run(w)).resolves.toBeUndefined();
    expect(pages()).toBe(1);
    expect(w.receiver!.deliveries).toHaveLength(1);
  });
});
