/**
 * ADR-052 (sandbox): failures on demand. The header's name and the statuses it may ask for are
 * read from the spec (the header parameter carrying `x-simulate`, declared by B1). For each
 * status, B1 (A1 for a status only A1 declares, 429) with the header answers that status with a
 * code the operation declares there, and B1's simulated call stored nothing: B3 by its
 * `vendorReference` answers 404. With `sandboxSetFaultRule`, a rule of one B1 call answers
 * the next B1 call with its failure, stores nothing, and reads back as used once.
 */
import type { ErrorCode } from '../../generated/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import type { Contract } from '../../judge/contract.ts';

type Json = Record<string, unknown>;

const B1 = 'createPartnerTransaction';
const A1 = 'createSession';
const B3 = 'getPartnerTransactionByVendorReference';

/** The header parameter of `opId` carrying `x-simulate`: its name and statuses, or null when it declares none. */
export function simulateHeader(w: { contract: Contract }, opId: string): { name: string; statuses: string[] } | null {
  if (!w.contract.has(opId)) return null;
  for (const p of w.contract.parameters(opId)) {
    const ext = (p.schema as Json | undefined)?.['x-simulate'] as { statuses?: unknown[] } | undefined;
    if (p.in === 'header' && ext?.statuses) return { name: p.name, statuses: ext.statuses.map(String) };
  }
  return null;
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
  async run(_m: Model, w: Real): Promise<void> {
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
    const keyHeaders = w.auth('sandboxSetFaultRule', w.key('main'));
    const set = await w.client.call('sandboxSetFaultRule', {
      headers: keyHeaders,
      body: { rule: { failure: status, operations: [B1], times: 1 } },
    });
    w.expectOutcome(set, [w.success('sandboxSetFaultRule')]);
    const body = { ...this.body, vendorReference: w.freshVendorRef() };
    const ex = await w.client.call(B1, { headers: w.auth(B1, w.key('main')), body });
    w.expectOutcome(
      ex,
      declared(B1, status).map((c) => refusal(c as ErrorCode)),
    );
    await expectNotStored(w, body.vendorReference, `after B1 answered by the fault rule (${status})`);
    const got = await w.client.call('sandboxGetFaultRule', { headers: keyHeaders });
    w.expectOutcome(got, [w.success('sandboxGetFaultRule')]);
    const used = ((got.json as Json | undefined)?.rule as Json | null | undefined)?.used;
    w.check(used === 1, 'sandboxGetFaultRule', '$.rule.used', `the rule of one call reads used ${String(used)} after one call`, 1, used);
    const off = await w.client.call('sandboxSetFaultRule', { headers: keyHeaders, body: { rule: null } });
    w.expectOutcome(off, [w.success('sandboxSetFaultRule')]);
  }
  toString(): string {
    return 'simulateFailure(Paylater-Simulate statuses, then a fault rule of one B1 call)';
  }
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
