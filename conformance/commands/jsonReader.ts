/**
 * ADR-023: B1 with a `categoryId` past the largest safe integer (the `CategoryId` schema's
 * `maximum` + 1, or a power of ten above it in exponent form), or with an object naming
 * `vendorReference` twice, answers 400 VALIDATION_ERROR and stores nothing. The body is sent as
 * raw text: a JSON writer could neither keep the digits nor name a member twice.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { errorOf, refusal } from '../model.ts';

type Json = Record<string, unknown>;
export type JsonReaderMode = 'category-past-max' | 'category-exponent' | 'duplicate-member';

/** A number in exponent form (`9.007199254740992e+15`), not inside an id such as `cf-3e45…`. */
const EXPONENT_FORM = /(?<![\w.-])\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.-])/;

/** @checks ADR-023 */
export class JsonReader implements Cmd {
  constructor(
    readonly mode: JsonReaderMode,
    readonly body: Json,
  ) {}
  check(): boolean {
    return true;
  }
  async run(_m: Model, w: Real): Promise<void> {
    const op = 'createPartnerTransaction';
    const refs = [w.freshVendorRef()];
    const body = structuredClone(this.body) as Json & { items: Json[] };
    body.vendorReference = refs[0];
    let raw: string;
    let sent: string;
    if (this.mode === 'duplicate-member') {
      refs.push(w.freshVendorRef());
      raw = `${JSON.stringify(body).slice(0, -1)},"vendorReference":${JSON.stringify(refs[1])}}`;
      sent = 'vendorReference named twice';
    } else {
      const max = w.contract.schema('CategoryId').maximum;
      if (typeof max !== 'number') throw new Error('CategoryId declares no maximum');
      // 2^53 itself: one past the bound, and the first integer a double cannot tell from its neighbour
      sent = this.mode === 'category-past-max' ? (BigInt(max) + 1n).toString() : `1e${String(max).length}`;
      body.items[0]!.categoryId = '@categoryId@';
      raw = JSON.stringify(body).replace('"@categoryId@"', sent);
    }
    const ex = await w.client.call(op, { headers: { ...w.auth(op, w.cfg.apiKey), 'Content-Type': 'application/json' }, rawBody: raw });
    w.expectOutcome(ex, [refusal('VALIDATION_ERROR')]);
    if (this.mode === 'duplicate-member') {
      const named = JSON.stringify(errorOf(ex) ?? {}).includes('vendorReference');
      w.check(named, op, '$.error', 'the 400 for a member named twice does not name the member (ADR-023)', 'vendorReference', errorOf(ex));
    } else {
      const echoed = EXPONENT_FORM.exec(ex.responseText)?.[0];
      w.check(
        echoed === undefined,
        op,
        '$.error',
        `the 400 for categoryId ${sent} echoes a number in exponent form (ADR-023)`,
        'digits',
        echoed,
      );
    }
    for (const ref of refs) {
      const read = await w.client.call('getPartnerTransactionByVendorReference', {
        pathParams: { vendorReference: ref },
        headers: w.auth('getPartnerTransactionByVendorReference', w.cfg.apiKey),
      });
      w.check(
        read.status === refusal('TRANSACTION_NOT_FOUND').status,
        read.opId,
        '$',
        `a B1 refused for ${this.mode} stored a transaction with vendorReference ${ref}`,
        refusal('TRANSACTION_NOT_FOUND'),
        read.status,
      );
    }
  }
  toString(): string {
    return `jsonReader(${this.mode})`;
  }
}
