/**
 * The sandbox's lists and webhook endpoint judged on live traffic, per merchant: each list's pages
 * (pages.ts: repeats, skips, filters, order; the transactions list read whole holds every
 * transaction B1 made through the proxy), the SMS outbox against the B1 answers (sms.ts), the
 * webhook deliveries against the retry schedule and the endpoint a 410 disables (deliveries.ts).
 * What it keeps: on each transaction B1 made through the proxy, when and the customerPhone's hash
 * (two small integers of TxState).
 */
import type { Observation, StateFinding } from './finding.ts';
import { DeliveryJudge } from './deliveries.ts';
import { PageJudge, type ListKnowledge } from './pages.ts';
import { smsPage, smsWalk, type Made, type SmsKnowledge } from './sms.ts';
import { SessionTracker } from './state-session.ts';
import { NOT_MADE, isRecord, smallHash, type Json, type TxState } from './state-store.ts';

export class SandboxTracker extends SessionTracker {
  private readonly pages = new PageJudge(this.max);
  private readonly deliveries = new DeliveryJudge(this.max, this.tol, (m, from, to) => this.serverTime(m, from, to));

  /** B1 answered 201 with `tx` at `at` (wall ms): its customer gets one confirmation SMS, to `phone`. */
  protected madeByB1(tx: TxState, phone: unknown, at: number): void {
    tx.b1 = this.sinceStart(at);
    tx.ph = smallHash(phone);
  }

  override forgetMerchant(m: string): void {
    super.forgetMerchant(m);
    this.deliveries.forget(m);
  }

  /** The transactions B1 made through the proxy for merchant `m`. */
  private *madeBy(m: string): Iterable<[string, Made]> {
    for (const [id, tx] of this.txs) if (tx.m === m && tx.b1 !== NOT_MADE) yield [id, { ph: tx.ph, at: this.wall(tx.b1) }];
  }

  private sms(m: string): SmsKnowledge {
    return {
      made: (id) => {
        const tx = this.txs.get(id);
        return tx && tx.m === m && tx.b1 !== NOT_MADE ? { ph: tx.ph, at: this.wall(tx.b1) } : undefined;
      },
      allMade: () => this.madeBy(m),
      ownerOf: (id) => this.txs.get(id)?.m,
      hash: smallHash,
    };
  }

  /** What the proxy knows of merchant `m`'s list `op` (ours; what a whole read must hold; its own judgement of one). */
  private knowledge(op: string, m: string): ListKnowledge {
    const ours = (item: Json) => this.txs.get(String(item.transactionId ?? item.id))?.m === m;
    if (op === 'sandboxListSms') return { ours, complete: (walk, ob) => smsWalk(walk, ob, m, this.sms(m)) };
    if (op !== 'sandboxListTransactions') return { ours };
    return {
      ours,
      expected: (query, sentAt) => {
        // read unfiltered: every transaction B1 made through the proxy before the read began
        if ([...query.keys()].some((k) => k !== 'limit')) return undefined;
        const ids = [...this.madeBy(m)].filter(([, x]) => x.at <= sentAt).map(([id]) => id);
        return { member: 'id', ids };
      },
    };
  }

  /** A sandbox exchange of merchant `m`: its list pages, its deliveries, its webhook endpoint. */
  protected sandbox(ob: Observation, m: string): StateFinding[] {
    const out = this.deliveries.observe(ob, m);
    if (ob.status !== 200 || !ob.opId.startsWith('sandboxList')) return out;
    out.push(...this.pages.page(ob, m, ob.variant ?? 1, ob.search ?? '', this.knowledge(ob.opId, m)));
    const data = isRecord(ob.json) && Array.isArray(ob.json.data) ? ob.json.data.filter(isRecord) : [];
    if (ob.opId === 'sandboxListSms') out.push(...smsPage(ob, m, data, this.sms(m)));
    return out;
  }
}
