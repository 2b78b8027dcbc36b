/**
 * The model's transitions and the webhook events they make it expect (x-state-machine): model data
 * only; the instant a transition was seen is given by the caller. When time makes one (the expiry)
 * is the expiry check's to say (`commands/advanceClock.ts`).
 */
import { EXPIRY, transitionById, type Transition } from '../model/index.ts';
import type { ModelState, Tx } from './model-state.ts';

/**
 * Records a transition read from x-state-machine; expects its event, unless the transaction's run
 * was abandoned (its deliveries are not judged, so its later events are never expected either:
 * left out of every later verdict, never judged half-way). `at`: when the suite saw it.
 */
export function transition(s: ModelState, tx: Tx, id: string, at: number): void {
  const t: Transition = transitionById(id);
  if (t.from !== null && !(t.from as readonly string[]).includes(tx.status)) {
    throw new Error(`model bug: transition ${id} from ${tx.status}`);
  }
  tx.status = t.to;
  s.coverage.transitions.add(id);
  if (t.emits) (tx.emitted ??= []).push(t.emits);
  if (t.emits && tx.who === 'main' && s.receivesWebhooks && !s.abandonedRuns.has(tx.runId)) {
    s.expected.push({ txId: tx.id, event: t.emits, transition: id, runId: tx.runId, at });
  }
}

/** The observed status resolves an open expiry (the model's `EXPIRY`, the clock-triggered transition). */
export function observe(s: ModelState, tx: Tx, status: string, at: number): void {
  if (EXPIRY.from.includes(tx.status) && status === EXPIRY.to) transition(s, tx, EXPIRY.id, at);
}
