/**
 * ADR-052 (sandbox): failures on demand. The header's name and the statuses it may ask for are
 * read from the spec (the header parameter carrying `x-simulate`, declared by B1). For each
 * status, B1 (A1 for a status only A1 declares, 429) with the header answers that status with a
 * code the operation declares there, and B1's simulated call stored nothing: B3 by its
 * `vendorReference` answers 404. With `sandboxSetFaultRule`, a rule of two B1 calls: it is the
 * caller's only (the other merchant's B1 runs as usual), a header wins over it uncounted, it answers
 * the next two calls with its failure, storing nothing, then calls run as usual; it reads back its
 * count each time (`used`, `remaining`) and `setAt` the real time it was set (`faultRule`).
 */
import type { ErrorCode } from '../../generated/index.ts';
import { faultRuleProblems, type FaultRuleCounts } from '../../model/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import type { Contract, Simulation } from '../../judge/contract.ts';
import { inContext } from '../witness.ts';
import { CreateTransaction } from './createTransaction.ts';

type Json = Record<string, unknown>;

const B1 = 'createPartnerTransaction';
const A1 = 'createSession';
const B3 = 'getPartnerTransactionByVendorReference';
/** The calls the fault rule of the check answers: two, so the count between them and its end are both seen. */
const TIMES = 2;

/** The header parameter of `opId` carrying `x-simulate`, or null when it declares none (or is not served). */
export function simulateHeader(w: { contract: Contract }, opId: string): Simulation | null {
  return w.contract.has(opId) ? w.contract.simulation(opId) : null;
}

/** @checks ADR-052 */
export class SimulateFailure implements Cmd {
  constructor(
    readonly body: Json,
    readonly session: Json,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && simulateHeader(m.state, B1) !== null;
  }
  async run(m: Model, w: Real): Promise<void> {
    const header = simulateHeader(w, B1)!;
    const declared = (opId: string, status: string) => (w.contract.op(opId).errors[status] ?? []).filter((c) => c !== 'AUTH_THROTTLED');
    for (const status of header.statuses) {
      const opId = declared(B1, status).length ? B1 : declared(A1, status).length ? A1 : null;
      w.check(opId !== null, B1, '$', `${header.name}: ${status} is declared by neither B1 nor A1`);
      if (!opId) continue;
      const allowed = declared(opId, status).map((c) => refusal(c as ErrorCode));
      const headers = { ...w.auth(opId, w.key('main')), [header.name]: status };
      if (opId === A1) {
        const ex = await w.client.call(A1, { headers, body: this.session });
        w.expectOutcome(ex, allowed);
        checkWait(w, ex.opId, ex.json, ex.responseHeaders);
        continue;
      }
      const body = { ...this.body, vendorReference: w.freshVendorRef() };
      const ex = await w.client.call(B1, { headers, body });
      w.expectOutcome(ex, allowed);
      if (Number(status) === 503 || Number(status) === 429) checkWait(w, B1, ex.json, ex.responseHeaders);
      await expectNotStored(w, body.vendorReference, `after B1 with ${header.name}: ${status}`);
    }

    if (!w.contract.has('sandboxSetFaultRule')) return;
    const status = header.statuses.find((s) => declared(B1, s).length > 0);
    if (!status) return;
    await this.faultRule(m, w, status, header, declared);
  }

  /**
   * A fault rule of TIMES B1 calls (ADR-052): read back as set (`setAt` the real time of the PUT);
   * the other merchant's B1 meanwhile runs as usual, uncounted (the rule is the caller's); a call with
   * the header answers the header's failure, uncounted; the next TIMES calls answer the rule's
   * failure and store nothing; the one after runs as usual, and the rule reads used TIMES, remaining 0.
   */
  private async faultRule(
    m: Model,
    w: Real,
    status: string,
    header: { name: string; statuses: string[] },
    declared: (opId: string, status: string) => string[],
  ): Promise<void> {
    const SET = 'sandboxSetFaultRule';
    const keyHeaders = w.auth(SET, w.key('main'));
    const failure = declared(B1, status).map((c) => refusal(c as ErrorCode));
    const expect = async (used: number, when: string): Promise<void> => {
      if (!w.contract.has('sandboxGetFaultRule')) return;
      const got = await w.client.call('sandboxGetFaultRule', { headers: keyHeaders });
      w.expectOutcome(got, [w.success('sandboxGetFaultRule')]);
      judgeRule(w, 'sandboxGetFaultRule', (got.json as Json | undefined)?.rule, { times: TIMES, used }, when);
    };
    const set = await w.client.call(SET, { headers: keyHeaders, body: { rule: { failure: status, operations: [B1], times: TIMES } } });
    w.expectOutcome(set, [w.success(SET)]);
    const rule = (set.json as Json | undefined)?.rule as Json | undefined;
    judgeRule(w, SET, rule, { times: TIMES, used: 0 }, 'as set');
    // setAt is real time: the merchant's sandbox clock less its offset
    const offset = (w.state.clockBase ?? 0) + w.state.advanced.main;
    w.checkInstant(set, '$.rule.setAt', rule?.setAt, 'the real time the rule was set', -offset * 1000);
    await inContext(`with the main merchant's fault rule set (ADR-052: the caller's calls only)`, () =>
      new CreateTransaction(this.body, 'valid', 'other', 'fresh', 0).run(m, w),
    );
    const byHeader = header.statuses.find((s) => s !== status && declared(B1, s).length > 0);
    if (byHeader) {
      const body = { ...this.body, vendorReference: w.freshVendorRef() };
      const ex = await w.client.call(B1, { headers: { ...w.auth(B1, w.key('main')), [header.name]: byHeader }, body });
      w.expectOutcome(
        ex,
        declared(B1, byHeader).map((c) => refusal(c as ErrorCode)),
      );
    }
    await expect(0, `after the other merchant's B1${byHeader ? ` and a B1 with ${header.name}: ${byHeader}` : ''}, neither counted`);
    for (let i = 1; i <= TIMES; i++) {
      const body = { ...this.body, vendorReference: w.freshVendorRef() };
      const ex = await w.client.call(B1, { headers: w.auth(B1, w.key('main')), body });
      w.expectOutcome(ex, failure);
      await expectNotStored(w, body.vendorReference, `after B1 answered by the fault rule (${status}, call ${i} of ${TIMES})`);
    }
    await expect(TIMES, `after ${TIMES} calls answered`);
    // the rule answered its `times` calls: the next one runs as usual
    await inContext(`after the fault rule answered its ${TIMES} calls (ADR-052: later calls run as usual)`, () =>
      new CreateTransaction(this.body, 'valid', 'main', 'fresh', 0).run(m, w),
    );
    await expect(TIMES, 'after one more call, which it did not answer');
    const off = await w.client.call(SET, { headers: keyHeaders, body: { rule: null } });
    w.expectOutcome(off, [w.success(SET)]);
    judgeRule(w, SET, (off.json as Json | undefined)?.rule, null, 'after it was removed');
  }
  toString(): string {
    return `simulateFailure(Paylater-Simulate statuses, then a fault rule of ${TIMES} B1 calls)`;
  }
}

/** The fault rule `rule` as answered by `op` against what it answered (the model's `faultRuleProblems`). */
function judgeRule(w: Real, op: string, rule: unknown, expected: FaultRuleCounts | null, when: string): void {
  const [p] = faultRuleProblems(rule, expected);
  if (p)
    w.check(
      false,
      op,
      `$.rule${p.member === 'rule' ? '' : `.${p.member}`}`,
      `the fault rule ${when} reads ${p.member} ${JSON.stringify(p.actual)} (ADR-052: it answers exactly its times calls, remaining = times - used)`,
      p.expected,
      p.actual,
    );
}

/** A 429's or 503's wait is one number: `error.retry_after` equals `Retry-After`. */
function checkWait(w: Real, opId: string, json: unknown, headers: Record<string, string>): void {
  const ra = ((json as Json | undefined)?.error as Json | undefined)?.retry_after;
  const h = headers['retry-after'];
  w.check(
    typeof ra === 'number' && String(ra) === h,
    opId,
    '$.error.retry_after',
    `a simulated failure's retry_after ${String(ra)} differs from Retry-After ${String(h)}`,
    h,
    ra,
  );
}

/** B3 by `vendorReference` answers 404: nothing was stored. */
async function expectNotStored(w: Real, vendorReference: string, when: string): Promise<void> {
  const ex = await w.client.call(B3, { pathParams: { vendorReference }, headers: w.auth(B3, w.key('main')) });
  const notFound = (w.contract.op(B3).errors['404'] ?? []).map((c) => refusal(c as ErrorCode));
  w.check(
    ex.status === 404,
    B3,
    '$',
    `${when}, B3 by its vendorReference answered ${ex.status}: the simulated call stored the transaction`,
    404,
    ex.status,
  );
  if (ex.status === 404) w.expectOutcome(ex, notFound);
}
