/** A malformed path parameter gets 400 VALIDATION_ERROR (never 404 or 500). */
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { tokenExpired } from './verifyByToken.ts';

export type ParamOp =
  | 'getTransactionStatusBySessionToken'
  | 'getPartnerTransaction'
  | 'getPartnerTransactionByVendorReference'
  | 'cancelPartnerTransactionByVendorReference'
  | 'verifyTransaction'
  | 'sandboxConfirmTransaction'
  | 'sandboxCancelTransaction'
  | 'sandboxCompleteTransaction';

/** @checks ADR-011 */
export class BadParameter implements Cmd {
  constructor(
    readonly op: ParamOp,
    readonly value: string,
  ) {}
  check(m: Readonly<Model>): boolean {
    const o = m.state.contract.ops[this.op];
    return (
      o !== undefined &&
      (!o.sandbox || m.state.sandbox) &&
      (this.op !== 'getTransactionStatusBySessionToken' || m.sessions.some((s) => tokenExpired(m.state, s, m.state.observedAt) === 'no'))
    );
  }
  async run(m: Model, w: Real): Promise<void> {
    const byRef = this.op.includes('VendorReference');
    const value = byRef ? `-${this.value}` : `not-a-uuid-${this.value}`;
    const token = m.sessions.find((s) => tokenExpired(w.state, s, performance.now()) === 'no')?.token;
    const headers = w.auth(this.op, this.op === 'getTransactionStatusBySessionToken' ? token! : w.cfg.apiKey);
    const ex = await w.client.call(this.op, {
      pathParams: { transactionId: value, vendorReference: value, transaction_id: value },
      headers,
    });
    w.expectOutcome(ex, [refusal('VALIDATION_ERROR')]);
  }
  toString(): string {
    return `badParameter(${this.op}, ${JSON.stringify(this.value)})`;
  }
}
