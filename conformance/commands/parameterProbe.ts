/**
 * Path and query parameters at their schema's boundaries (`parameterProbesOf`, from the bundled
 * document): a value just outside a keyword gets 400 VALIDATION_ERROR whose details name the
 * parameter (`query.limit`, `path.transactionId`: `error.details` names each failing field, in
 * the form of ADR-022); a value just inside gets what the contract says for a well-formed value —
 * a list's page, or the operation's declared 404 for an id no one issued.
 */
import type { ErrorCode } from '../../generated/index.ts';
import { parameterProbesOf } from '../schema-probes.ts';
import type { Contract } from '../../judge/contract.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { checkErrorDetails } from '../http.ts';
import { tokenExpired } from './verifyByToken.ts';

type Json = Record<string, unknown>;

/** Operations whose parameters are not probed, and why. */
const NOT_PROBED: Record<string, string> = {
  sandboxStreamEvents: 'an event stream: a well-formed `after` opens a stream that does not end (the suite receives webhooks directly)',
};

/** Operations that get outside values only, and why. */
const OUTSIDE_ONLY: Record<string, string> = {
  cancelPartnerTransactionByVendorReference:
    'a well-formed reference may be one B1 created (its probes send the same boundary values): a cancel would change its state',
  getTransactionStatusBySessionToken: 'for an unknown transaction the answer depends on the token (404 or 401); judged by verifyByToken',
};

/**
 * Parameters whose values the server issues (ADR-028's opaque `cursor`): a well-formed value it
 * did not issue is an unknown one, refused with 400 VALIDATION_ERROR naming it.
 */
const ISSUED_BY_SERVER = new Set(['cursor']);

/**
 * Which answer a probe gets (ADR-011's references, ADR-028's cursor); a refusal's details are
 * judged by http.ts's `checkErrorDetails` (error-shape), its body by the judge (as every exchange).
 * @checks ADR-011, ADR-028
 */
export class ParameterProbe implements Cmd {
  constructor(
    readonly op: string,
    readonly name: string,
    readonly location: 'path' | 'query',
    readonly value: string,
    readonly inside: boolean,
    readonly label: string,
  ) {}
  check(m: Readonly<Model>): boolean {
    const o = m.state.contract.ops[this.op];
    if (!o || (o.sandbox && !m.state.sandbox)) return false;
    return !o.security.includes('SessionToken') || m.sessions.some((s) => tokenExpired(m.state, s, m.state.observedAt) === 'no');
  }
  async run(m: Model, w: Real): Promise<void> {
    const o = w.contract.op(this.op);
    const credential = o.security.includes('SessionToken')
      ? m.sessions.find((s) => tokenExpired(w.state, s, performance.now()) === 'no')!.token
      : w.cfg.apiKey;
    const ex = await w.client.call(this.op, {
      pathParams: this.location === 'path' ? { [this.name]: this.value } : {},
      query: this.location === 'query' ? { [this.name]: this.value } : undefined,
      headers: w.auth(this.op, credential),
    });
    const named = `${this.location}.${this.name}`;
    const refused = !this.inside || ISSUED_BY_SERVER.has(this.name);
    let allowed: Outcome[] = [refusal('VALIDATION_ERROR')];
    if (!refused) {
      const notFound = (o.errors['404'] ?? []).map((c) => refusal(c as ErrorCode));
      // a reference the merchant chooses (named as a B1 member) may be one this run created (found),
      // or one an earlier run on the same server did (found or not)
      const chosen =
        this.location === 'path' && this.name in ((w.contract.requestSchema('createPartnerTransaction').properties ?? {}) as Json);
      const created = chosen && w.state.usedVendorRefs.main.has(this.value);
      allowed =
        this.location === 'query' || !notFound.length || created
          ? [w.success(this.op)]
          : chosen
            ? [...notFound, w.success(this.op)]
            : notFound;
    }
    w.expectOutcome(ex, allowed);
    if (refused) checkErrorDetails(w, ex, this.op, named, `the 400 for ${this.label} does not name ${named}`);
  }
  toString(): string {
    return `parameterProbe(${this.op}, ${this.label})`;
  }
}

/**
 * The boundary probes of every path and query parameter of the operations a profile drives
 * (x-internal SDK operations are not driven: their rules are checked by tests, see
 * spec/rules.yaml), from the contract.
 */
export function parameterProbes(contract: Contract, profile: 'core' | 'sandbox'): ParameterProbe[] {
  const out: ParameterProbe[] = [];
  for (const [op, o] of Object.entries(contract.ops)) {
    if (o.internal || (o.sandbox && profile !== 'sandbox') || op in NOT_PROBED) continue;
    for (const p of contract.parameters(op)) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      // each value is sent alone: an operation that also needs a valid body is not known here
      if (contract.hasRequestBody(op)) throw new Error(`parameterProbes: ${op} has parameters and a request body`);
      for (const probe of parameterProbesOf(contract.doc, p.schema, p.name, p.in)) {
        if (probe.inside && op in OUTSIDE_ONLY) continue;
        out.push(new ParameterProbe(op, p.name, p.in, probe.value as string, probe.inside, probe.label));
      }
    }
  }
  return out;
}
