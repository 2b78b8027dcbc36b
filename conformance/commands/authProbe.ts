/** Auth: a missing or wrong API key (in the operation's `authHeader`) gets 401 INVALID_API_KEY on every key-authenticated operation. */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { requestLine } from '../../judge/answer.ts';
import { transitionsOf } from '../../model/index.ts';
import { possibleStatuses } from './advanceClock.ts';

export type AuthOp =
  | 'createPartnerTransaction'
  | 'getPartnerTransaction'
  | 'getPartnerTransactionByVendorReference'
  | 'cancelPartnerTransactionByVendorReference'
  | 'createSession'
  | 'verifyTransaction'
  | 'sandboxGetClock'
  | 'sandboxConfirmTransaction'
  | 'sandboxCancelTransaction'
  | 'sandboxCompleteTransaction'
  | 'sandboxPaySession'
  | 'sandboxAdvanceClock';

/** @checks auth-api-key */
export class AuthProbe implements Cmd {
  constructor(
    readonly op: AuthOp,
    readonly mode: 'missing' | 'wrong' | 'wrong-header-name',
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.contract.has(this.op) && (!m.state.contract.op(this.op).sandbox || m.state.sandbox);
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.vendorReference),
      this.idx,
    );
    const pathParams: Record<string, string> = {
      transactionId: tx?.id ?? randomUUID(),
      vendorReference: tx?.vendorReference ?? w.freshVendorRef(),
    };
    const headers: Record<string, string> = {};
    if (this.mode === 'wrong') headers[w.authHeader(this.op)] = `${w.cfg.apiKey}x`;
    // B1 names the key X-Service-Key: sending the key under another header is no key.
    if (this.mode === 'wrong-header-name')
      headers[this.op === 'createPartnerTransaction' ? 'X-Api-Key-Other' : 'X-Service-Token'] = w.cfg.apiKey;
    const body =
      this.op === 'createPartnerTransaction'
        ? { customerPhone: '212612345678', total: 600, currency: 'MAD', items: [{ name: 'x', quantity: 1, unitPrice: 600 }] }
        : this.op === 'createSession'
          ? { total: w.cfg.variant === 1 ? 600 : '600.00', currency: 'MAD', items: [{ id: 'a', name: 'x', price: 600, quantity: 1 }] }
          : this.op === 'sandboxPaySession'
            ? { session_token: m.sessions[0]?.token ?? 'st_none', outcome: 'failed' }
            : this.op === 'sandboxAdvanceClock'
              ? { seconds: 1 }
              : undefined;
    const before = tx ? possibleStatuses(w.state, tx, performance.now()) : [];
    const ex = await w.client.call(this.op, { pathParams, headers, body });
    w.expectOutcome(ex, [refusal('INVALID_API_KEY')]);
    if (tx && this.op === 'cancelPartnerTransactionByVendorReference') {
      const after = await w.client.call('getPartnerTransaction', {
        pathParams: { transactionId: tx.id },
        headers: w.auth('getPartnerTransaction', w.key(tx.who)),
      });
      w.expectOutcome(after, [w.success(after.opId)]);
      const s = (after.json as { status: string }).status;
      // the status may also have moved on its own (expiry) between the cancel and the read
      const allowed = [...new Set([...before, ...possibleStatuses(w.state, tx, performance.now(), after)])];
      const cancelled = transitionsOf('cancelPartnerTransactionByVendorReference')[0]!.to;
      const read = requestLine(after);
      w.check(
        allowed.includes(s),
        s === cancelled ? 'cancelPartnerTransactionByVendorReference' : 'getPartnerTransaction',
        '$.status',
        s === cancelled
          ? `${requestLine(ex)} answered 401, yet ${read} then shows ${s}: the refused cancel was applied`
          : `${read} after a refused (401) cancel shows ${s}; the model expects ${allowed.join(' or ')} (a cancel cannot cause ${s})`,
        allowed,
        s,
      );
      w.observe(tx, s);
    }
  }
  toString(): string {
    return `authProbe(${this.op}, key ${this.mode})`;
  }
}
