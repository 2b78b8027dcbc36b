/** A malformed path parameter gets 400 VALIDATION_ERROR (never 404 or 500). */
import type { Cmd, Model, Real } from '../model.ts';

export type ParamOp = 'getPartnerTransaction' | 'getPartnerTransactionByVendorReference' | 'cancelPartnerTransactionByVendorReference' | 'verifyTransaction' | 'sandboxConfirmTransaction' | 'sandboxCancelTransaction' | 'sandboxCompleteTransaction';

export class BadParameter implements Cmd {
  constructor(readonly op: ParamOp, readonly value: string) {}
  check(m: Readonly<Model>): boolean {
    const o = m.world.contract.ops[this.op];
    return o !== undefined && (!o.sandbox || m.world.sandbox);
  }
  async run(_m: Model, w: Real): Promise<void> {
    const byRef = this.op.includes('VendorReference');
    const value = byRef ? `-${this.value}` : `not-a-uuid-${this.value}`;
    const ex = await w.client.call(this.op, { pathParams: { transactionId: value, vendorReference: value }, headers: { 'X-API-Key': w.cfg.apiKey } });
    w.expectOutcome(ex, [{ status: 400, code: 'VALIDATION_ERROR' }]);
  }
  toString(): string {
    return `badParameter(${this.op}, ${JSON.stringify(this.value)})`;
  }
}
