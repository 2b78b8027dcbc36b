/**
 * ADR-056 (sandbox): while recording, the sandbox's API log holds the merchant's calls. Starts
 * recording, reads a transaction of the model by B3 with browser headers, then finds that call
 * in the log (operation, 200, its vendorReference, the Origin as sent) and stops.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { pick } from '../model.ts';

type Json = Record<string, unknown>;
const B3 = 'getPartnerTransactionByVendorReference';
const ORIGIN = 'https://conformance.invalid';

/** @checks ADR-056 */
export class ApiLogCheck implements Cmd {
  constructor(readonly idx: number) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has('sandboxSetApiLog') && m.txs.some((t) => t.who === 'main' && t.vendorReference);
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.who === 'main' && t.vendorReference),
      this.idx,
    )!;
    const auth = w.auth('sandboxSetApiLog', w.key('main'));
    const start = await w.client.call('sandboxSetApiLog', { headers: auth, body: { recording: true } });
    w.expectOutcome(start, [w.success('sandboxSetApiLog')]);
    const read = await w.client.call(B3, {
      pathParams: { vendorReference: tx.vendorReference! },
      headers: { ...w.auth(B3, w.key('main')), Origin: ORIGIN },
    });
    w.expectOutcome(read, [w.success(B3)]);
    let found: Json | undefined;
    for (let i = 0; i < 20 && !found; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50)); // a call is logged once answered
      const log = await w.client.call('sandboxGetApiLog', { headers: w.auth('sandboxGetApiLog', w.key('main')) });
      w.expectOutcome(log, [w.success('sandboxGetApiLog')]);
      found = ((log.json as Json).entries as Json[]).find((e) => e.operationId === B3 && e.vendorReference === tx.vendorReference);
    }
    w.check(
      found !== undefined,
      'sandboxGetApiLog',
      '$.entries',
      `the B3 call of ${tx.vendorReference} made while recording is not in the log`,
    );
    if (found) {
      w.check(
        found.status === 200,
        'sandboxGetApiLog',
        '$.entries[*].status',
        `the logged B3 call has status ${String(found.status)}`,
        200,
        found.status,
      );
      w.check(
        found.origin === ORIGIN,
        'sandboxGetApiLog',
        '$.entries[*].origin',
        `the logged B3 call has origin ${String(found.origin)}`,
        ORIGIN,
        found.origin,
      );
    }
    const stop = await w.client.call('sandboxSetApiLog', { headers: auth, body: { recording: false } });
    w.expectOutcome(stop, [w.success('sandboxSetApiLog')]);
  }
  toString(): string {
    return `apiLog(B3 of #${this.idx} while recording)`;
  }
}
