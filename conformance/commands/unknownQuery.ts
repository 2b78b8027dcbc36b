/** ADR-022: a query parameter the operation does not declare gets 400 VALIDATION_ERROR naming it; nothing is read or changed. */
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { checkErrorDetails } from '../http.ts';

export type QueryOp = 'getPartnerTransaction' | 'sandboxGetClock';

/** @checks ADR-022 */
export class UnknownQuery implements Cmd {
  constructor(
    readonly op: QueryOp,
    readonly name: string,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    const o = m.state.contract.ops[this.op];
    if (!o || (o.sandbox && !m.state.sandbox)) return false;
    if (m.state.contract.queryParameters(this.op).includes(this.name)) return false; // declared: not an unknown one
    return this.op !== 'getPartnerTransaction' || m.txs.some((t) => t.who === 'main' && t.kind === 'partner');
  }
  async run(m: Model, w: Real): Promise<void> {
    const pathParams: Record<string, string> = {};
    if (this.op === 'getPartnerTransaction')
      pathParams.transactionId = pick(
        m.txs.filter((t) => t.who === 'main' && t.kind === 'partner'),
        this.idx,
      )!.id;
    const ex = await w.client.call(this.op, { pathParams, query: { [this.name]: '1' }, headers: w.auth(this.op, w.cfg.apiKey) });
    w.expectOutcome(ex, [refusal('VALIDATION_ERROR')]);
    checkErrorDetails(
      w,
      ex,
      this.op,
      `query.${this.name}`,
      `the 400 for the undeclared query parameter ${this.name} does not name it (ADR-022)`,
    );
  }
  toString(): string {
    return `unknownQuery(${this.op}, ?${this.name}=1, #${this.idx})`;
  }
}
