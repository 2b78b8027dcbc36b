/** The webhook judge's quiet wait after a run, and an unsolicited event that comes after it. */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { graceFor, webhookCheckpoint } from './webhook-judge.ts';
import type { Delivery, WebhookReceiver } from './webhooks.ts';
import { World, type Tx } from './world.ts';
import { settle } from './commands/advanceClock.ts';

function world(): { w: World; deliveries: Delivery[] } {
  const w = new World({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'sk_test_main',
    otherApiKey: 'sk_test_other',
    variant: 1,
    profile: 'sandbox',
    paymentWindowSeconds: 1800,
  });
  const deliveries: Delivery[] = [];
  // the receiver's surface the judge reads: its deliveries, and a wait for the next one
  w.receiver = { deliveries, waitForDelivery: (ms: number) => new Promise((r) => setTimeout(r, ms)) } as unknown as WebhookReceiver;
  return { w, deliveries };
}

function partnerTx(w: World): Tx {
  const created = {
    vendorReference: `V-${randomUUID()}`,
    orderReference: 'ORD-1',
    currency: 'MAD',
    customerPhone: '212612345678',
    merchantName: 'Main',
    storeName: 'Main store',
    createdAt: new Date().toISOString(),
    totalAmount: 600,
  };
  const tx: Tx = {
    id: randomUUID(),
    who: 'main',
    kind: 'partner',
    status: 'PENDING',
    vendorReference: created.vendorReference,
    created,
    sentAt: 0,
    receivedAt: 0,
    advAtCreation: 0,
    runId: w.state.runId,
  };
  w.state.txs.set(tx.id, tx);
  return tx;
}

/**
 * The instant the judge recorded for the latest transition, which a delivery's latency counts from: a
 * delivery received a fixed time after it has an exact latency, however long the lines between took.
 */
const sawTransition = (w: World): number => w.state.expected.at(-1)!.at;

function cancelled(tx: Tx, receivedAt: number): Delivery {
  const payload = { event: 'transaction.cancelled', data: { ...tx.created, id: tx.id, status: 'CANCELED', amount: 600 } };
  return { receivedAt, webhookId: `msg_${randomUUID()}`, body: JSON.stringify(payload), payload, problems: [], signers: [] };
}

describe('the quiet wait after a run', () => {
  it('is the configured grace until a delivery is seen, then twice the 90th percentile of the deliveries (at least 10 ms, at most the grace)', async () => {
    const { w, deliveries } = world();
    expect(graceFor(w, 60)).toBe(60);
    w.state.runId = 1;
    const fast = partnerTx(w);
    w.transition(fast, 'merchant-cancel');
    deliveries.push(cancelled(fast, sawTransition(w) + 3));
    await webhookCheckpoint(w, 60, 1000);
    expect(graceFor(w, 60)).toBe(10);
    const slow = partnerTx(w);
    w.transition(slow, 'merchant-cancel');
    deliveries.push(cancelled(slow, sawTransition(w) + 20));
    await webhookCheckpoint(w, 60, 1000);
    expect(graceFor(w, 60)).toBe(40); // latencies 3 and 20 ms: twice the slower
    expect(graceFor(w, 30)).toBe(30);
  });

  it("one slow delivery (a server's first) does not hold every later wait at the grace", async () => {
    const { w, deliveries } = world();
    w.state.runId = 1;
    const first = partnerTx(w);
    w.transition(first, 'merchant-cancel');
    deliveries.push(cancelled(first, sawTransition(w) + 120)); // a cold server's first delivery
    await webhookCheckpoint(w, 150, 1000);
    expect(graceFor(w, 150)).toBe(150);
    for (let i = 0; i < 19; i++) {
      const tx = partnerTx(w);
      w.transition(tx, 'merchant-cancel');
      deliveries.push(cancelled(tx, sawTransition(w) + 2));
      await webhookCheckpoint(w, 150, 1000);
    }
    // 20 deliveries, one of them slow: the wait follows the other 19
    expect(graceFor(w, 150)).toBeLessThan(40);
    expect(w.deliveryLatencies).toHaveLength(20);
  });

  it('a second event for a transition, arriving after its run ended, is a finding at the next run that names the earlier run', async () => {
    const { w, deliveries } = world();
    w.state.runId = 1;
    const tx = partnerTx(w);
    w.transition(tx, 'merchant-cancel');
    deliveries.push(cancelled(tx, performance.now()));
    await webhookCheckpoint(w, 20, 1000);
    w.state.runId = 2;
    deliveries.push(cancelled(tx, performance.now()));
    await expect(webhookCheckpoint(w, 20, 1000)).rejects.toThrow(
      `transaction ${tx.id} (status CANCELED, created by an earlier run, #1) without its transition`,
    );
  });
});

describe("an abandoned run's transactions", () => {
  it('are left out of every later verdict: their expiry, caused by a later run, expects no event', async () => {
    const { w } = world();
    w.state.runId = 1;
    const left = partnerTx(w);
    // run 1 ends in a finding; its PENDING transaction stays behind
    w.state.abandonedRuns.add(1);
    w.state.runId = 2;
    const own = partnerTx(w);
    // run 2 advances the clock past both payment windows; the server expires both
    w.state.advanced.main += 1800 + 1;
    settle(w.state, left, performance.now());
    settle(w.state, own, performance.now());
    expect(left.status).toBe('EXPIRED');
    expect(w.state.expected.map((x) => x.txId)).toEqual([own.id]);
  });

  it("are followed to their end when their run passed: a later expiry's event is expected", () => {
    const { w } = world();
    w.state.runId = 1;
    const earlier = partnerTx(w);
    w.state.runId = 2;
    w.state.advanced.main += 1800 + 1;
    settle(w.state, earlier, performance.now());
    expect(w.state.expected.map((x) => x.txId)).toEqual([earlier.id]);
  });
});
