/**
 * Auth: a missing or wrong credential, or one sent under another header name than the operation's
 * `authHeader`, gets 401 — INVALID_API_KEY for a key, INVALID_SESSION_TOKEN for a session token —
 * on every operation that takes one. Path parameters name the model's own records (a missing key
 * answered as some merchant shows a record), or ids no one issued.
 */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import { requestLine } from '../../judge/answer.ts';
import { transitionsOf } from '../../model/index.ts';
import { possibleStatuses, readBack } from './advanceClock.ts';
import { tokenExpired } from './verifyByToken.ts';

/** The header another credential goes under, for a credential sent under the wrong name (B1 names its key X-Service-Key). */
function wrongHeaderName(authHeader: string): string {
  return authHeader === 'X-Service-Key' ? 'X-Api-Key-Other' : authHeader === 'X-Session-Token' ? 'X-Api-Key' : 'X-Service-Token';
}

/** @checks auth-api-key */
export class AuthProbe implements Cmd {
  constructor(
    readonly op: string,
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
    const checkout = m.txs.find((t) => t.kind === 'checkout' && t.who === 'main');
    const pathParams: Record<string, string> = {};
    for (const p of w.contract.parameters(this.op))
      if (p.in === 'path')
        pathParams[p.name] =
          p.name === 'vendorReference'
            ? (tx?.vendorReference ?? w.freshVendorRef())
            : p.name === 'transaction_id'
              ? (checkout?.id ?? randomUUID())
              : p.name === 'transactionId'
                ? (tx?.id ?? randomUUID())
                : randomUUID();
    const authHeader = w.authHeader(this.op);
    const token = authHeader === 'X-Session-Token';
    // a session token's operation gets a live token of the main merchant's, where the model holds one
    const credential = token
      ? (m.sessions.find((ss) => ss.who === 'main' && tokenExpired(w.state, ss, performance.now()) === 'no')?.token ?? 'st_none')
      : w.cfg.apiKey;
    const headers: Record<string, string> = {};
    if (this.mode === 'wrong') headers[authHeader] = `${credential}x`;
    // sending the credential under another header is no credential
    if (this.mode === 'wrong-header-name') headers[wrongHeaderName(authHeader)] = credential;
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
    w.expectOutcome(ex, [refusal(token ? 'INVALID_SESSION_TOKEN' : 'INVALID_API_KEY')]);
    if (tx && this.op === 'cancelPartnerTransactionByVendorReference') {
      // the status may also have moved on its own (expiry) between the cancel and the read
      const { ex: after, status: s, allowed } = await readBack(w, tx, before);
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
