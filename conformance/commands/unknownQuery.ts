/**
 * ADR-022: a query parameter the operation does not declare gets 400 VALIDATION_ERROR naming it;
 * nothing is read or changed. Any operation: a read names one of the model's own records (a server
 * that ignores the parameter answers it), a write names none (an id no one issued, a fresh
 * reference), and a JSON body carries an unknown member too, so that an ignored parameter never
 * lets the write happen: the details must still name the parameter.
 */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { checkErrorDetails } from '../http.ts';
import { validBody } from '../gen.ts';
import { countRateMaybe, rateLimited, withRateLimit } from './createSession.ts';
import { tokenExpired } from './verifyByToken.ts';

export type QueryOp = string;

/** A live session token of the main merchant at `now`, if the model holds one. */
function liveToken(m: Readonly<Model>, now: number): string | undefined {
  return m.sessions.find((ss) => ss.who === 'main' && tokenExpired(m.state, ss, now) === 'no')?.token;
}

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
    // a session token's operation needs a live token (an invalid one is refused before the query is read)
    return !o.security.includes('SessionToken') || liveToken(m, m.state.observedAt) !== undefined;
  }
  async run(m: Model, w: Real): Promise<void> {
    const o = w.contract.op(this.op);
    const read = o.method === 'GET';
    const own = pick(
      m.txs.filter((t) => t.who === 'main' && t.kind === 'partner'),
      this.idx,
    );
    const checkout = m.txs.find((t) => t.who === 'main' && t.kind === 'checkout');
    const pathParams: Record<string, string> = {};
    for (const p of w.contract.parameters(this.op)) {
      if (p.in !== 'path') continue;
      if (p.name === 'vendorReference') pathParams[p.name] = read && own?.vendorReference ? own.vendorReference : w.freshVendorRef();
      else if (p.name === 'transaction_id') pathParams[p.name] = checkout?.id ?? randomUUID();
      else if (p.name === 'transactionId')
        pathParams[p.name] = read ? ((this.op === 'verifyTransaction' ? checkout?.id : own?.id) ?? randomUUID()) : randomUUID();
      else pathParams[p.name] = randomUUID();
    }
    const credential = o.security.includes('SessionToken') ? liveToken(m, performance.now())! : w.cfg.apiKey;
    const body = w.contract.hasRequestBody(this.op) ? { ...validBody(w.contract, this.op), unexpected: true } : undefined;
    // A1 counts every request with a valid key: a spent window answers 429 first
    const a1 = this.op === 'createSession';
    const limited = a1 ? rateLimited(w.state, 'main', performance.now()) : 'no';
    const ex = await w.client.call(this.op, {
      pathParams,
      query: { [this.name]: '1' },
      headers: o.security.length ? w.auth(this.op, credential) : {},
      body,
    });
    w.expectOutcome(ex, withRateLimit(limited, [refusal('VALIDATION_ERROR')]));
    if (a1) countRateMaybe(w.state, 'main', ex, (...c) => w.check(...c));
    if (ex.status === 429) return;
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
