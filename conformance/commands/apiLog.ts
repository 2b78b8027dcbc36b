/**
 * ADR-056 (sandbox): while recording, the sandbox's API log holds the merchant's calls, and only
 * its. Starts recording (answered empty, `startedAt` the instant of the start on the merchant's
 * sandbox clock), reads a transaction of the model by B3 with browser headers while the other
 * merchant makes a call of its own, then finds the first call in the log (operation, 200, its
 * vendorReference, the Origin as sent, `at` the instant of the call) and not the other
 * merchant's, and stops. The other merchant's log is read back like every sandbox state
 * (`witness.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';

type Json = Record<string, unknown>;
const B3 = 'getPartnerTransactionByVendorReference';
const ORIGIN = 'https://conformance.invalid';
/** The Origin the other merchant's call carries: an entry with it in the main merchant's log is the other's call. */
const OTHER_ORIGIN = 'https://other.conformance.invalid';

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
    const started = (start.json ?? {}) as Json;
    w.checkInstant(start, '$.startedAt', started.startedAt, 'the instant recording started');
    w.check(
      Array.isArray(started.entries) && started.entries.length === 0,
      'sandboxSetApiLog',
      '$.entries',
      'starting to record answered entries: a new recording forgets the previous one (ADR-056)',
      [],
      started.entries,
    );
    const read = await w.client.call(B3, {
      pathParams: { vendorReference: tx.vendorReference! },
      headers: { ...w.auth(B3, w.key('main')), Origin: ORIGIN },
    });
    w.expectOutcome(read, [w.success(B3)]);
    // the other merchant's call meanwhile: not the main merchant's to record
    const foreign = await w.client.call('getPartnerTransaction', {
      pathParams: { transactionId: randomUUID() },
      headers: { ...w.auth('getPartnerTransaction', w.key('other')), Origin: OTHER_ORIGIN },
    });
    w.expectOutcome(foreign, [refusal('TRANSACTION_NOT_FOUND')]);
    let entries: Json[] = [];
    let found: Json | undefined;
    for (let i = 0; i < 20 && !found; i++) {
      if (i > 0) await w.client.pause(50); // a call is logged once answered
      const log = await w.client.call('sandboxGetApiLog', { headers: w.auth('sandboxGetApiLog', w.key('main')) });
      w.expectOutcome(log, [w.success('sandboxGetApiLog')]);
      entries = (log.json as Json).entries as Json[];
      found = entries.find((e) => e.operationId === B3 && e.vendorReference === tx.vendorReference);
    }
    const theirs = entries.find((e) => e.origin === OTHER_ORIGIN);
    w.check(
      theirs === undefined,
      'sandboxGetApiLog',
      '$.entries',
      `the main merchant's log holds the other merchant's call ${String(theirs?.method)} ${String(theirs?.path)}: it records the caller's calls only (ADR-056)`,
      'absent',
      theirs?.path,
    );
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
      w.checkInstant(read, '$.entries[*].at', found.at, 'the instant of the call');
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
