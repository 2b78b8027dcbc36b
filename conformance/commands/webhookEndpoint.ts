/**
 * ADR-042 and ADR-005 (sandbox): the webhook endpoint's secret and a redelivery, judged by what the
 * next delivery uses. With the suite's receiver at the main merchant's URL (kept):
 * - a secret set by PUT is read back by GET and signs the next delivery;
 * - a rotation answers a new secret, the one before as `previousSecret` until the rotation's instant
 *   plus `overlapSeconds` (the merchant's sandbox clock); meanwhile a delivery carries both
 *   signatures, the new secret's first; once the window has passed on the clock, the new one alone;
 * - a redelivery answers the delivery (its webhook-id and transaction) and sends the event again to
 *   the endpoint, same webhook-id and body (the webhook judge compares them), signed with the secrets
 *   of the moment; the other merchant's key cannot redeliver it (404 DELIVERY_NOT_FOUND);
 * then the secret found at the start is set back. Each delivery judged is the cancel of a
 * transaction made for it; the model expects its event as any other. The other merchant's endpoint
 * is read back after these writes like every sandbox state (`witness.ts`).
 */
import { randomBytes } from 'node:crypto';
import { signatureProblem, signersDue, type SigningState } from '../../model/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import type { Tx } from '../model-state.ts';
import type { Delivery } from '../webhooks.ts';
import { advanceMainClock } from './advanceClock.ts';
import { CreateTransaction } from './createTransaction.ts';
import { drive } from './moves.ts';

type Json = Record<string, unknown>;
const GET = 'sandboxGetWebhookEndpoint';
const PUT = 'sandboxSetWebhookEndpoint';
const ROTATE = 'sandboxRotateWebhookSecret';
const REDELIVER = 'sandboxRedeliverWebhook';
const B4 = 'cancelPartnerTransactionByVendorReference';
/** The rotation window the check asks for (s of sandbox time); the clock is then moved past it. */
const OVERLAP_SECONDS = 60;
/** How long a delivery is waited for (ms): the webhook judge's default timeout; one still missing is its finding. */
const WAIT_MS = 3000;

/** A new Standard Webhooks secret (`WebhookSecret`'s pattern). */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The endpoint's signing state as an answer shows it, its instant on the sandbox clock. */
function signingOf(rec: Json): SigningState {
  const at = typeof rec.previousSecretExpiresAt === 'string' ? Date.parse(rec.previousSecretExpiresAt) : NaN;
  return {
    secret: typeof rec.secret === 'string' ? rec.secret : null,
    previousSecret: typeof rec.previousSecret === 'string' ? rec.previousSecret : null,
    previousSecretExpiresAt: Number.isNaN(at) ? null : at,
  };
}

/** @checks ADR-042, ADR-005 */
export class WebhookSecret implements Cmd {
  constructor(readonly body: Json) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.receivesWebhooks && [GET, PUT, ROTATE, REDELIVER].every((op) => m.state.contract.has(op));
  }
  async run(m: Model, w: Real): Promise<void> {
    const rx = w.receiver!;
    const auth = (op: string) => w.auth(op, w.cfg.apiKey);
    const first = await w.client.call(GET, { headers: auth(GET) });
    w.expectOutcome(first, [w.success(GET)]);
    const start = first.json as Json;
    if (typeof start.url !== 'string') return;
    const earlier = rx.secrets;
    // names for the secrets in findings (their values are the suite's own, meaningless to a reader)
    const names = new Map<string | null, string>([[null, 'a secret the endpoint never showed']]);
    for (const s of earlier) names.set(s, 'the secret before the change');
    try {
      // a secret set by PUT, the URL kept
      const s1 = newSecret();
      names.set(s1, 'the secret set by PUT');
      rx.accept([s1, ...earlier]);
      const put = await w.client.call(PUT, { headers: auth(PUT), body: { url: start.url, secret: s1 } });
      w.expectOutcome(put, [w.success(PUT)]);
      const set = put.json as Json;
      w.check(
        set.secret === s1 && set.url === start.url,
        PUT,
        '$.secret',
        'the PUT answered another secret or URL than it set',
        names.get(s1),
        names.get(set.secret as string) ?? 'another',
      );
      const read = await w.client.call(GET, { headers: auth(GET) });
      w.expectOutcome(read, [w.success(GET)]);
      w.check((read.json as Json).secret === s1, GET, '$.secret', 'after a PUT of a secret, GET shows another', names.get(s1), 'another');
      const cancelled = await this.delivered(m, w, signingOf(set), names, 'after a PUT of a secret');
      // a rotation: both secrets sign until the window's end, the new one first
      const rot = await w.client.call(ROTATE, { headers: auth(ROTATE), body: { overlapSeconds: OVERLAP_SECONDS } });
      w.expectOutcome(rot, [w.success(ROTATE)]);
      const rotated = rot.json as Json;
      const s2 = String(rotated.secret);
      names.set(s2, 'the rotated secret');
      rx.accept([s2, s1, ...earlier]);
      w.check(s2 !== s1, ROTATE, '$.secret', 'the rotation answered the secret it replaces', 'a new secret', names.get(s1));
      w.check(
        rotated.previousSecret === s1,
        ROTATE,
        '$.previousSecret',
        'the rotation does not keep the secret it replaces as previousSecret',
        names.get(s1),
        names.get(rotated.previousSecret as string) ?? rotated.previousSecret,
      );
      w.checkInstant(
        rot,
        '$.previousSecretExpiresAt',
        rotated.previousSecretExpiresAt,
        `the rotation's instant + overlapSeconds`,
        OVERLAP_SECONDS * 1000,
      );
      const signing = signingOf(rotated);
      await this.delivered(m, w, signing, names, 'during the rotation window');
      if (cancelled) await this.redeliver(w, cancelled, signing, names);
      // past the window on the merchant's clock: the new secret alone
      await advanceMainClock(w, OVERLAP_SECONDS + 1);
      await this.delivered(m, w, signing, names, 'after the rotation window');
    } finally {
      // the secret found at the start, set back, also after a finding (a finding of this request is
      // dropped: the run's own stands); the receiver still takes the suite's secrets, for deliveries in flight
      const body = typeof start.secret === 'string' ? { url: start.url, secret: start.secret } : { url: start.url };
      await w.client.cleanup(() => w.client.call(PUT, { headers: auth(PUT), body })).catch(() => undefined);
      rx.accept([...(typeof start.secret === 'string' ? [start.secret] : []), ...rx.secrets]);
    }
  }

  /**
   * A transaction created and cancelled by B4: its event's delivery, judged against the secrets due
   * when it was signed (between the cancel's sending and its arrival, on the sandbox clock).
   * Returns the delivery, or undefined when it did not come in time (the webhook judge reports it).
   */
  private async delivered(
    m: Model,
    w: Real,
    signing: SigningState,
    names: Map<string | null, string>,
    when: string,
  ): Promise<Delivery | undefined> {
    const n = m.txs.length;
    await new CreateTransaction(this.body, 'valid', 'main', 'fresh', 0).run(m, w);
    const tx: Tx | undefined = m.txs.length > n ? m.txs[m.txs.length - 1] : undefined;
    if (!tx) return undefined;
    const cancel = await drive(w, tx, B4);
    if (tx.status !== 'CANCELED') return undefined;
    const d = await arrival(w, (x) => x.payload?.data?.id === tx.id);
    if (d)
      judgeSigned(
        w,
        d,
        { sentAt: cancel.sentAt, receivedAt: d.receivedAt },
        signing,
        names,
        `the delivery of transaction ${tx.id}'s cancel ${when}`,
      );
    return d;
  }

  /** The delivery `d` sent again: answered as itself, received again with its webhook-id, signed with the secrets of the moment; not by the other merchant. */
  private async redeliver(w: Real, d: Delivery, signing: SigningState, names: Map<string | null, string>): Promise<void> {
    const id = d.webhookId!;
    const txId = d.payload?.data?.id;
    const seen = w.receiver!.deliveries.length;
    const ex = await w.client.call(REDELIVER, { pathParams: { deliveryId: id }, headers: w.auth(REDELIVER, w.cfg.apiKey) });
    w.expectOutcome(ex, [w.success(REDELIVER)]);
    const rec = ex.json as Json;
    w.check(
      rec.id === id && rec.transactionId === txId,
      REDELIVER,
      '$.id',
      `the redelivery of ${id} answered delivery ${String(rec.id)} of transaction ${String(rec.transactionId)}`,
      id,
      rec.id,
    );
    const again = await arrival(w, (x) => x.webhookId === id, seen);
    w.check(
      again !== undefined,
      REDELIVER,
      '$',
      `delivery ${id} was redelivered (answered ${ex.status}) but the endpoint did not receive it again within ${WAIT_MS} ms`,
      'a delivery',
      'none',
    );
    judgeSigned(w, again!, { sentAt: ex.sentAt, receivedAt: again!.receivedAt }, signing, names, `the redelivery of ${id}`);
    // the delivery is the main merchant's: the other merchant's key does not reach it
    const foreign = await w.client.call(REDELIVER, { pathParams: { deliveryId: id }, headers: w.auth(REDELIVER, w.cfg.otherApiKey) });
    w.expectOutcome(foreign, [refusal('DELIVERY_NOT_FOUND')]);
  }
  toString(): string {
    return 'webhookSecret(a secret set by PUT, a rotation, a redelivery: what the next delivery is signed with)';
  }
}

/** The first delivery (from index `from` of the receiver's) that `match` accepts, waited for up to WAIT_MS. */
async function arrival(w: Real, match: (d: Delivery) => boolean, from = 0): Promise<Delivery | undefined> {
  const rx = w.receiver!;
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const d = rx.deliveries.slice(from).find(match);
    if (d || performance.now() >= deadline) return d;
    await rx.waitForDelivery(Math.max(1, deadline - performance.now()));
  }
}

/** The signatures of `d` (sent within `during`) against the secrets due then (the model's `signersDue`, `signatureProblem`). */
function judgeSigned(
  w: Real,
  d: Delivery,
  during: { sentAt: number; receivedAt: number },
  signing: SigningState,
  names: Map<string | null, string>,
  what: string,
): void {
  const iv = w.instantOf(during);
  if (!iv) return;
  const due = signersDue(signing, { from: iv[0], to: iv[1] });
  const problem = signatureProblem(due, d.signers);
  const label = (s: string | null) => names.get(s) ?? 'another secret';
  w.check(
    problem === null,
    `webhook ${d.payload?.event ?? '?'}`,
    'header webhook-signature',
    `${what} (webhook-id ${String(d.webhookId)}): ${problem}; the endpoint signs with ${due.must.map(label).join(', then ')} now (ADR-042)`,
    due.must.map(label),
    d.signers.map(label),
  );
}
