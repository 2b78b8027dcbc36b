/**
 * Failures on demand (ADR-052) judged on live traffic, per merchant: a call carrying
 * `Paylater-Simulate: <status>` is answered that status (or 400 where the operation does not
 * declare it, 401 for an unknown key), never run; B1's simulated call stores nothing (a later B3 of
 * its vendorReference does not find it); a fault rule (`sandboxSetFaultRule`) answers the next
 * `times` calls of its operations with its failure. A call is judged against a rule only when it
 * began after the rule was answered and after the previous call the rule could have answered
 * ended (concurrent calls race for the rule's count). What it keeps is bounded like the rest.
 */
import { finding, type StateFinding } from './finding.ts';
import { isRecord } from './state-store.ts';

export const SIMULATE_HEADER = 'paylater-simulate';
const B1 = 'createPartnerTransaction';
const B3 = 'getPartnerTransactionByVendorReference';

/** One exchange as the simulate judge reads it. */
export interface SimulatedCall {
  seq: number;
  opId: string;
  merchant: string;
  testKey: boolean;
  /** The Paylater-Simulate header's value, when the request carried one. */
  simulate: string | undefined;
  params: Record<string, string>;
  requestJson: unknown;
  status: number;
  json: unknown;
  sentAt: number;
  receivedAt: number;
}

/** A merchant's fault rule as its answer showed it, and the calls it answered since. */
interface Rule {
  failure: string;
  operations: string[];
  remaining: number;
  /** When (wall ms) the answer showing the rule ended, and its exchange. */
  since: number;
  seq: number;
  /** When the latest call the rule could have answered ended. */
  lastEnd: number;
}

export class SimulateJudge {
  private readonly rules = new Map<string, Rule>();
  /** merchant + '\n' + vendorReference → the exchange of a simulated B1 failure with it (nothing was stored). */
  private readonly notStored = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** @judges ADR-052 */
  judge(c: SimulatedCall): StateFinding[] {
    if (!c.testKey) return [];
    const out: StateFinding[] = [];
    const push = (jsonPath: string, message: string, expected: unknown, actual: unknown, earlier?: number) =>
      out.push(
        finding({
          kind: 'simulate',
          ob: c,
          tx: earlier === undefined ? undefined : { first: earlier, last: earlier },
          jsonPath,
          message,
          expected,
          actual,
        }),
      );
    const ref = isRecord(c.requestJson) && typeof c.requestJson.vendorReference === 'string' ? c.requestJson.vendorReference : undefined;
    const key = (r: string) => `${c.merchant}\n${r}`;
    if (c.opId === 'sandboxSetFaultRule' || c.opId === 'sandboxGetFaultRule') {
      if (c.status === 200) this.setRule(c);
      return out;
    }
    if (c.opId === 'sandboxReset' && c.status === 200) this.rules.delete(c.merchant);
    if (c.simulate !== undefined && /^\d{3}$/.test(c.simulate)) {
      const asked = Number(c.simulate);
      if (c.status !== asked && c.status !== 400 && c.status !== 401)
        push(
          '$',
          `${c.opId} with ${SIMULATE_HEADER}: ${c.simulate} answered ${c.status}; the call is answered that failure instead of running (ADR-052)`,
          asked,
          c.status,
        );
      else if (c.status === asked && c.opId === B1 && ref !== undefined) this.keep(key(ref), c.seq);
      return out;
    }
    const rule = this.rules.get(c.merchant);
    if (rule && rule.remaining > 0 && rule.operations.includes(c.opId) && /^\d{3}$/.test(rule.failure)) {
      const sequential = c.sentAt >= rule.since && c.sentAt >= rule.lastEnd;
      rule.lastEnd = Math.max(rule.lastEnd, c.receivedAt);
      if (String(c.status) === rule.failure) {
        rule.remaining--;
        if (c.opId === B1 && ref !== undefined) this.keep(key(ref), c.seq);
      } else if (sequential && c.status < 300)
        push(
          '$',
          `${c.opId} answered ${c.status} while the fault rule answered by exchange ${rule.seq} had ${rule.remaining} call(s) of ${rule.operations.join(', ')} left to answer ${rule.failure} (ADR-052)`,
          Number(rule.failure),
          c.status,
          rule.seq,
        );
    }
    if (c.opId === B1 && c.status < 300 && ref !== undefined) this.notStored.delete(key(ref));
    const asked = c.params.vendorReference;
    const failed = asked === undefined ? undefined : this.notStored.get(key(asked));
    if (c.opId === B3 && c.status === 200 && failed !== undefined)
      push(
        '$',
        `B3 found vendorReference ${asked}, which only a simulated B1 failure (exchange ${failed}) named: a simulated call stores nothing (ADR-052)`,
        404,
        200,
        failed,
      );
    return out;
  }

  private keep(k: string, seq: number): void {
    this.notStored.set(k, seq);
    if (this.notStored.size > this.max) this.notStored.delete(this.notStored.keys().next().value as string);
  }

  /** A fault rule as answered (set, or read back): what it will answer next. */
  private setRule(c: SimulatedCall): void {
    const r = isRecord(c.json) && isRecord(c.json.rule) ? c.json.rule : null;
    if (!r || typeof r.remaining !== 'number' || typeof r.failure !== 'string' || !Array.isArray(r.operations)) {
      this.rules.delete(c.merchant);
      return;
    }
    const ops = r.operations.filter((x): x is string => typeof x === 'string');
    this.rules.set(c.merchant, {
      failure: r.failure,
      operations: ops,
      remaining: r.remaining,
      since: c.receivedAt,
      seq: c.seq,
      lastEnd: c.receivedAt,
    });
    if (this.rules.size > this.max) this.rules.delete(this.rules.keys().next().value as string);
  }
}
