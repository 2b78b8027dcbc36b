/**
 * Webhook events matched to the transitions the proxy saw: an event expected from each transition
 * that emits one, a received event held until its transition shows (or a later answer rules it
 * out), a transition whose event did not come within the window.
 */
import { stateMachine } from '../generated/index.ts';
import { finding, type Observation, type StateFinding } from './finding.ts';
import { TrackerStore, type TxState } from './state-store.ts';
import { bit, names, reach } from './statuses.ts';

/** The pseudo-exchange of a webhook event (no HTTP exchange of the API shows it). */
const eventOb = (name: string, merchant: string, seq: number, at: number): Observation => ({
  seq,
  opId: `webhook ${name}`,
  merchant,
  params: {},
  requestJson: undefined,
  status: 0,
  json: undefined,
  sentAt: at,
  receivedAt: at,
});

const emitting = (event: string) => stateMachine.transitions.filter((x) => x.emits === event);

export class EventTracker extends TrackerStore {
  protected expect(tx: TxState, event: string, transition: string, at: number): void {
    // while the merchant's endpoint is answered pointing elsewhere, its events go there
    if (this.o.webhookWindowMs === undefined || this.elsewhere.has(tx.m)) return;
    tx.ev ??= [];
    const got = tx.ev.findIndex((e) => e.received && e.transition === undefined && e.name === event);
    if (got >= 0) {
      tx.ev[got]!.transition = transition;
      this.events.add(event);
      return;
    }
    tx.ev.push({ name: event, transition, at, received: false });
  }

  /** Events received earlier whose transition the status `now` (shown by `ob`) rules out: events with no transition. */
  protected ruledOut(tx: TxState, id: string, now: number, ob: Observation, out: StateFinding[]): void {
    if (!tx.ev) return;
    for (const e of tx.ev.filter((x) => x.received && x.transition === undefined)) {
      const t = emitting(e.name)[0]!;
      if (reach(bit(t.to)) & now || e.at >= ob.sentAt) continue;
      out.push(
        finding({
          kind: 'webhook-no-transition',
          ob,
          txId: id,
          tx,
          jsonPath: '$',
          message: `event ${e.name} (webhook-id ${e.id ?? '?'}) came for transaction ${id}, but a later answer shows ${names(now)[0]}: no ${t.id} happened`,
          expected: t.to,
          actual: names(now)[0],
        }),
      );
      tx.ev.splice(tx.ev.indexOf(e), 1);
    }
  }

  /**
   * A verified event about transaction `id`: matched to the transition seen that emits it, held
   * until a transition shows (or rules it out), or a finding when the transaction's state excludes it.
   */
  event(name: string, id: string, webhookId: string, at: number, seq: number): StateFinding[] {
    const tx = this.txs.get(id);
    if (!tx) {
      this.unknownEvents++;
      return [];
    }
    this.eventMerchants.add(tx.m);
    // its events reach the proxy whatever its endpoint was answered as (a relay in between)
    this.elsewhere.delete(tx.m);
    tx.ev ??= [];
    if (tx.ev.some((e) => e.received && e.id === webhookId)) return []; // a retry of one delivery
    const waiting = tx.ev.findIndex((e) => !e.received && e.name === name);
    if (waiting >= 0) {
      const e = tx.ev[waiting]!;
      e.received = true;
      e.id = webhookId;
      this.events.add(name);
      return [];
    }
    const second = tx.ev.some((e) => e.received && e.name === name);
    const t = emitting(name);
    if (!second) {
      // its transition may still come (a customer's confirmation the proxy has not seen yet): held
      if (t.some((x) => x.from!.some((f) => reach(tx.st) & bit(f)) && !(tx.st & bit(x.to)))) {
        tx.ev.push({ name, at, received: true, id: webhookId });
        if (tx.ev.length > 6) tx.ev.shift();
        return [];
      }
      // the transaction may have passed through the transition's status (seen before events were
      // expected of this merchant): the event of that transition
      if (t.some((x) => reach(bit(x.to)) & tx.st)) {
        tx.ev.push({ name, transition: t[0]!.id, at, received: true, id: webhookId });
        if (tx.ev.length > 6) tx.ev.shift();
        this.events.add(name);
        return [];
      }
    }
    return [
      finding({
        kind: 'webhook-no-transition',
        ob: eventOb(name, tx.m, seq, at),
        txId: id,
        tx,
        jsonPath: '$',
        message: second
          ? `a second ${name} for transaction ${id} under a new webhook-id ${webhookId}: x-state-machine emits one per transition`
          : `event ${name} (webhook-id ${webhookId}) for transaction ${id}, which is ${names(tx.st).join(' or ')}: no transition seen or possible emits it`,
        expected: 'no event',
        actual: name,
      }),
    ];
  }

  /** Transitions whose event did not come within the window, as of `now` (wall ms). */
  sweep(now: number): StateFinding[] {
    const w = this.o.webhookWindowMs;
    if (w === undefined) return [];
    const out: StateFinding[] = [];
    for (const [id, tx] of this.txs) {
      if (!tx.ev || !this.eventMerchants.has(tx.m)) continue;
      if (this.elsewhere.has(tx.m)) {
        tx.ev = tx.ev.filter((e) => e.received);
        if (!tx.ev.length) delete tx.ev;
        continue;
      }
      for (const e of [...tx.ev]) {
        if (e.received || e.at + w > now) continue;
        out.push(
          finding({
            kind: 'webhook-missing',
            ob: eventOb(e.name, tx.m, tx.last, e.at),
            txId: id,
            tx,
            jsonPath: '$',
            message: `transition ${e.transition} of transaction ${id} emitted no ${e.name} within ${w} ms`,
            expected: e.name,
            actual: 'no delivery',
          }),
        );
        tx.ev.splice(tx.ev.indexOf(e), 1);
      }
      if (!tx.ev.length) delete tx.ev;
    }
    return out;
  }
}
