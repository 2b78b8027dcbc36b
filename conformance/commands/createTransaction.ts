/** B1: create a partner transaction (valid or with one fault; vendorReference fresh, absent or reused). */
import { maxBodyBytes, type ErrorCode } from '../../generated/index.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { checkCreated, pick, refusal } from '../model.ts';
import { classifyBody } from './createSession.ts';
import { vendorReferenceRefusals, INITIAL } from '../../model/index.ts';
import type { Who } from '../world.ts';

type Json = Record<string, unknown>;
/**
 * fresh: a generated reference made unique (a fresh one when too short to be); as-generated: one
 * too short to be made unique sent as it is (its boundary probes); none: omitted; reuse-*: one the
 * model holds; exact: the body's own, sent as it is (a duplicate when the model holds it).
 */
export type RefMode = 'fresh' | 'as-generated' | 'none' | 'reuse-own' | 'reuse-other-merchant' | 'exact';

/** @checks b1-validation, vendor-reference-unique, ADR-002, ADR-021 */
export class CreateTransaction implements Cmd {
  constructor(
    readonly body: Json,
    readonly label: string,
    readonly who: Who,
    readonly ref: RefMode,
    readonly idx: number,
    /** Sent padded with whitespace (valid JSON) to exactly this many bytes: `x-max-body-bytes` on both sides. */
    readonly padTo?: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, w: Real): Promise<void> {
    const body = structuredClone(this.body);
    let duplicate = false;
    const own = m.txs.filter((t) => t.who === this.who && t.vendorReference);
    const other = m.txs.filter((t) => t.who !== this.who && t.vendorReference);
    if (this.ref === 'reuse-own' && own.length) {
      body.vendorReference = pick(own, this.idx)!.vendorReference;
      duplicate = true;
    } else if (this.ref === 'reuse-other-merchant' && other.length) {
      body.vendorReference = pick(other, this.idx)!.vendorReference;
    } else if (this.ref === 'none') delete body.vendorReference;
    // sent as written (the near-miss probes choose it): a duplicate when the model holds it (below)
    else if (this.ref === 'exact') duplicate = false;
    else if (typeof body.vendorReference !== 'string') body.vendorReference = w.freshVendorRef();
    else if (
      this.ref === 'fresh' &&
      classifyBody(w.contract, 'createPartnerTransaction', { ...body, vendorReference: w.freshVendorRef() }).validation.length
    ) {
      // invalid in another member: its reference is made unique all the same, so the probe differs
      // from a valid request in its own member only (a lenient server's 201 is not hidden by a 409)
      body.vendorReference = w.uniqueVendorRef(body.vendorReference) ?? w.freshVendorRef();
    } else if (!classifyBody(w.contract, 'createPartnerTransaction', body).validation.length) {
      // a generated valid reference keeps its shape: made unique when long enough (earlier runs used
      // the same server); a shorter one is sent as generated ('as-generated') after a read by it says
      // whether it is in use, else replaced by a fresh one
      const unique = w.uniqueVendorRef(body.vendorReference);
      if (unique !== undefined) body.vendorReference = unique;
      else if (this.ref !== 'as-generated') body.vendorReference = w.freshVendorRef();
      else if (await inUse(w, this.who, body.vendorReference)) duplicate = true;
    }
    if (typeof body.vendorReference === 'string' && w.state.usedVendorRefs[this.who].has(body.vendorReference)) duplicate = true;
    const cls = classifyBody(w.contract, 'createPartnerTransaction', body);
    const allowed: Outcome[] = cls.validation.map((code) => refusal(code as ErrorCode));
    if (!allowed.length) {
      if (cls.mismatch) allowed.push(refusal('AMOUNT_MISMATCH'));
      for (const code of cls.business) allowed.push(refusal(code as ErrorCode));
      // the model's answer on the reference: refused when the merchant holds it, else not
      const ref = typeof body.vendorReference === 'string' ? body.vendorReference : undefined;
      for (const r of vendorReferenceRefusals(ref, duplicate ? 'yes' : 'no')) if (r) allowed.push(r);
      if (!allowed.length) allowed.push(w.success('createPartnerTransaction'));
    }
    const headers = w.auth('createPartnerTransaction', w.key(this.who));
    const rawBody = this.padTo === undefined ? undefined : paddedJson(body, this.padTo);
    // a body over x-max-body-bytes is refused whatever it holds; one at it is judged as it would be unpadded
    if (rawBody !== undefined && Buffer.byteLength(rawBody) > maxBodyBytes) allowed.splice(0, allowed.length, refusal('PAYLOAD_TOO_LARGE'));
    const ex = await w.client.call(
      'createPartnerTransaction',
      rawBody === undefined ? { headers, body } : { headers: { ...headers, 'Content-Type': 'application/json' }, rawBody },
    );
    w.expectOutcome(ex, allowed);
    if (w.succeeded(ex)) {
      checkCreated(w, ex, body, this.who);
      const rec = ex.json as Json;
      const tx = {
        id: rec.id as string,
        who: this.who,
        kind: 'partner' as const,
        status: INITIAL,
        vendorReference: (rec.vendorReference as string | null) ?? null,
        created: rec,
        sentAt: ex.sentAt,
        receivedAt: ex.receivedAt,
        advAtCreation: w.state.advanced[this.who],
        runId: w.state.runId,
      };
      w.transition(tx, 'create');
      w.state.txs.set(tx.id, tx);
      m.txs.push(tx);
      if (tx.vendorReference) w.state.usedVendorRefs[this.who].add(tx.vendorReference);
    }
  }
  toString(): string {
    return `createTransaction(${this.who}, ${this.label}, vendorReference: ${this.ref}${this.padTo === undefined ? '' : `, ${this.padTo} bytes`})`;
  }
}

/** `body` as JSON with spaces after its opening brace, `bytes` long in UTF-8 (never shorter than the body itself). */
export function paddedJson(body: Json, bytes: number): string {
  const text = JSON.stringify(body);
  return `{${' '.repeat(Math.max(0, bytes - Buffer.byteLength(text)))}${text.slice(1)}`;
}

/** Whether `who` has a transaction with this vendorReference: B3 with its key answers the record or its declared 404. */
async function inUse(w: Real, who: Who, vendorReference: string): Promise<boolean> {
  const op = 'getPartnerTransactionByVendorReference';
  const ex = await w.client.call(op, { pathParams: { vendorReference }, headers: w.auth(op, w.key(who)) });
  const notFound = (w.contract.op(op).errors['404'] ?? []).map((c) => refusal(c as ErrorCode));
  w.expectOutcome(ex, [w.success(op), ...notFound]);
  return w.succeeded(ex);
}
