/**
 * The sandbox's clock and reset (ADR-041) as the judge follows them: each clock answer tells the
 * merchant's offset (clock.ts); a reset puts the clock back to real time, forgets the key's rate
 * window, and with `deleteData` the merchant's transactions and tokens; the webhook endpoint may be
 * seeded afresh, so what a 410 disabled is not judged past it.
 */
import { clockOffsetMs } from '../model/index.ts';
import { clockAnswered } from './clock.ts';
import { isRecord, type Judging, type Seen } from './context.ts';
import { enabled } from './deliveries.ts';
import { forgetMerchantData } from './memory.ts';

/** A sandbox clock answer (read, advance, reset): the merchant's offset from then on. */
export function judgeClock(s: Seen): void {
  const m = s.merchant;
  const offsetMs = isRecord(s.json) ? clockOffsetMs(s.json) : undefined;
  if (m === null || s.status !== 200 || offsetMs === undefined) return;
  clockAnswered(m, s.sentAt, s.receivedAt, offsetMs, s.opId === 'sandboxReset');
}

/** A sandbox reset answered: the rate window starts afresh; deleted data is forgotten. */
export function judgeReset(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status !== 200) return;
  m.rateWindow = null;
  enabled(m, s);
  const deleted = isRecord(s.json) && isRecord(s.json.deleted) ? s.json.deleted.transactions : 0;
  if (typeof deleted === 'number' && deleted > 0) forgetMerchantData(j.memory, m);
}
