/**
 * The webhook retry schedule as the sandbox deliveries list shows it (ADR-005, `x-webhook-delivery`),
 * judged on live traffic by the suite's `judgeListedDelivery` (conformance/retries.ts, the model's
 * `deliveryProblems`): each listed delivery's attempts, its state and its next due time. And the
 * endpoint a 410 disables (ADR-005, ADR-042), judged by the suite's `judgeEndpoint`: once a listed
 * attempt shows a 410 made after the last PUT or redelivery the proxy saw, the endpoint reads
 * disabled until the next one; a PUT of a URL answers it enabled. This file keeps what the proxy
 * remembers (the deliveries redelivered through it, when a 410 and an enabling were seen) and words
 * the findings. A delivery redelivered through the proxy (an attempt made at once) is not judged on
 * its schedule; one redelivered before the proxy started or not through it cannot be told apart
 * (docs/proxy.md).
 */
import { attemptOutcome } from '../model/retry.ts';
import type { Interval } from '../model/index.ts';
import { judgeEndpoint, judgeListedDelivery } from '../conformance/retries.ts';
import { finding, type Observation, type StateFinding } from './finding.ts';
import { isRecord, iso } from './state-store.ts';

const LIST = 'sandboxListWebhookDeliveries';
const SET = 'sandboxSetWebhookEndpoint';
const GET = 'sandboxGetWebhookEndpoint';
const REDELIVER = 'sandboxRedeliverWebhook';

export class DeliveryJudge {
  /** Deliveries redelivered through the proxy (bounded). */
  private readonly redelivered = new Set<string>();
  /** Per merchant: the latest its endpoint may have been enabled again (a PUT or a redelivery answered), on its server's clock. */
  private readonly enabledUntil = new Map<string, number>();
  /** Per merchant: the exchange whose list showed a 410 attempt made after the latest enabling, and when (wall ms) its answer ended. */
  private readonly disabled = new Map<string, { seq: number; at: number }>();

  constructor(
    private readonly max: number,
    private readonly tol: number,
    private readonly serverTime: (m: string, from: number, to: number) => Interval,
  ) {}

  private keep<V>(map: Map<string, V> | Set<string>, k: string, v?: V): void {
    if (map instanceof Set) map.add(k);
    else map.set(k, v as V);
    if (map.size > this.max) map.delete(map.keys().next().value as string);
  }

  /** A sandbox reset (the endpoint may be seeded afresh): what the proxy knew of it goes. */
  forget(m: string): void {
    this.disabled.delete(m);
    this.enabledUntil.delete(m);
  }

  /** The findings of a deliveries list, an endpoint answer or a redelivery of merchant `m`; [] for any other exchange. */
  observe(ob: Observation, m: string): StateFinding[] {
    if (ob.status < 200 || ob.status >= 300) return [];
    if (ob.opId === 'sandboxReset') this.forget(m);
    if (ob.opId === LIST) return this.list(ob, m);
    if (ob.opId === REDELIVER || ob.opId === SET) {
      if (ob.opId === REDELIVER && ob.params.deliveryId !== undefined) this.keep(this.redelivered, ob.params.deliveryId);
      this.enabledUntil.set(m, this.serverTime(m, ob.sentAt, ob.receivedAt).to + this.tol);
      this.disabled.delete(m);
    }
    if (ob.opId === SET || ob.opId === GET) return this.endpoint(ob, m);
    return [];
  }

  /**
   * Each listed delivery judged against the schedule by the suite's `judgeListedDelivery`
   * (conformance/retries.ts), told which ones were redelivered through the proxy; a 410 attempt
   * made after the latest enabling the proxy saw disables the merchant's endpoint.
   */
  private list(ob: Observation, m: string): StateFinding[] {
    const data = isRecord(ob.json) && Array.isArray(ob.json.data) ? ob.json.data : [];
    const out: StateFinding[] = [];
    for (const [i, d] of data.entries()) {
      if (!isRecord(d)) continue;
      const id = String(d.id);
      const judged = judgeListedDelivery(d, this.redelivered.has(id));
      if (judged === null) continue;
      for (const p of judged.problems)
        out.push(
          finding({
            kind: 'webhook-retries',
            ob,
            txId: typeof d.transactionId === 'string' ? d.transactionId : undefined,
            jsonPath: `$.data[${i}].${p.path}`,
            message: `delivery ${id}: ${p.message} (ADR-005)`,
            expected: p.expected,
            actual: p.actual,
          }),
        );
      const last = judged.view.attempts.at(-1);
      if (last && attemptOutcome(last.status) === 'disabled' && last.at > (this.enabledUntil.get(m) ?? -Infinity))
        this.keep(this.disabled, m, { seq: ob.seq, at: ob.receivedAt });
    }
    return out;
  }

  /**
   * The endpoint as GET and PUT answer it, judged by the suite's `judgeEndpoint` (conformance/retries.ts)
   * told whether a listed 410 attempt was made after the latest enabling the proxy saw.
   */
  private endpoint(ob: Observation, m: string): StateFinding[] {
    const json = ob.json;
    if (!isRecord(json) || typeof json.enabled !== 'boolean') return [];
    const off = this.disabled.get(m);
    const set = ob.opId === SET && typeof json.url === 'string';
    if (!set && ob.opId !== GET) return [];
    const verdict = judgeEndpoint({ set, enabled: json.enabled }, off !== undefined && ob.sentAt >= off.at);
    if (verdict === 'enabled-after-gone')
      return [
        finding({
          kind: 'webhook-retries',
          ob,
          tx: { first: off!.seq, last: off!.seq },
          jsonPath: '$.enabled',
          message: `the webhook endpoint reads enabled; exchange ${off!.seq} listed a 410 attempt, which disables it, made after the last PUT or redelivery (ADR-005)`,
          expected: false,
          actual: true,
        }),
      ];
    if (verdict === 'set-but-disabled')
      return [
        finding({
          kind: 'webhook-retries',
          ob,
          jsonPath: '$.enabled',
          message: `${SET} set the URL and answered the endpoint disabled; setting a URL enables an endpoint a 410 disabled (ADR-042, at ${iso(ob.receivedAt)})`,
          expected: true,
          actual: false,
        }),
      ];
    return [];
  }
}
