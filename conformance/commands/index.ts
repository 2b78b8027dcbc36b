/** The command arbitraries of each profile (one file per command in this folder). */
import fc from 'fast-check';
import type { Cmd, Model, Real } from '../model.ts';
import { anyBody, bodyGen } from '../gen.ts';
import type { Contract } from '../../judge/contract.ts';
import { AdvanceClock } from './advanceClock.ts';
import { AuthProbe } from './authProbe.ts';
import { BadParameter } from './badParameter.ts';
import { CancelTransaction } from './cancelTransaction.ts';
import { CreateSession } from './createSession.ts';
import { RateLimitRecovery } from './rateLimitRecovery.ts';
import { CreateTransaction } from './createTransaction.ts';
import { CustomerAction } from './moves.ts';
import { GetTransaction } from './getTransaction.ts';
import { MediaProbe, type MediaOp } from './mediaProbe.ts';
import { MissingTarget, type TargetOp } from './missingTarget.ts';
import { PaySession } from './paySession.ts';
import { SmsOutbox } from './smsOutbox.ts';
import { UnknownQuery } from './unknownQuery.ts';
import { VerifyByKey } from './verifyByKey.ts';
import { VerifyByToken } from './verifyByToken.ts';

/** Records which commands ran (their toString), for the report. */
class Recorded implements Cmd {
  constructor(readonly inner: Cmd) {}
  check(m: Readonly<Model>): boolean {
    return this.inner.check(m);
  }
  async run(m: Model, r: Real): Promise<void> {
    r.executed.push(this.inner.toString());
    await this.inner.run(m, r);
  }
  toString(): string {
    return this.inner.toString();
  }
}

export function recorded(c: Cmd): Cmd {
  return new Recorded(c);
}

const idx = fc.nat({ max: 1000 });

/** `n` copies of an arbitrary: fc.commands picks uniformly among its list, so copies are weights. */
function weight<T>(n: number, a: fc.Arbitrary<T>): fc.Arbitrary<T>[] {
  return Array.from({ length: n }, () => a);
}

/**
 * The command arbitraries of each profile. The state-building commands (create, confirm, pay a
 * session) are weighted so that short targeted sequences (create → confirm → cancel, create(ref) →
 * create(same ref), create → read with the other key, session → pay → verify) are common in the
 * first runs. Commands name the transaction or session they act on by an index into the model's
 * list, resolved modulo its length at run time: removing a command while shrinking keeps every
 * other command valid, and indexes shrink towards 0 (the first one created).
 */
export function commandArbitraries(contract: Contract, profile: 'core' | 'sandbox'): fc.Arbitrary<Cmd>[] {
  const create = fc
    .tuple(
      anyBody(contract, 'createPartnerTransaction'),
      fc.constantFrom('main', 'main', 'main', 'other'),
      fc.constantFrom('fresh', 'fresh', 'none', 'reuse-own', 'reuse-other-merchant') as fc.Arbitrary<'fresh'>,
      idx,
    )
    .map(([b, who, ref, i]) => new CreateTransaction(b.body, b.label, who, ref, i));
  const read = fc
    .tuple(
      fc.constantFrom('id', 'vendorReference') as fc.Arbitrary<'id'>,
      fc.constantFrom('own', 'own', 'other-merchant', 'missing') as fc.Arbitrary<'own'>,
      idx,
    )
    .map(([by, k, i]) => new GetTransaction(by, k, i));
  const cancel = fc.tuple(fc.boolean(), idx).map(([o, i]) => new CancelTransaction(o, i));
  const session = anyBody(contract, 'createSession').map((b) => new CreateSession(b.body, b.label));
  const core: fc.Arbitrary<Cmd>[] = [
    ...weight(4, create),
    ...weight(3, read),
    ...weight(2, cancel),
    fc
      .tuple(
        fc.constantFrom(
          'createPartnerTransaction',
          'getPartnerTransaction',
          'getPartnerTransactionByVendorReference',
          'cancelPartnerTransactionByVendorReference',
          'createSession',
          'verifyTransaction',
          'sandboxConfirmTransaction',
          'sandboxCancelTransaction',
          'sandboxCompleteTransaction',
          'sandboxPaySession',
          'sandboxAdvanceClock',
        ) as fc.Arbitrary<'createSession'>,
        fc.constantFrom('missing', 'wrong', 'wrong-header-name') as fc.Arbitrary<'wrong'>,
        idx,
      )
      .map(([op, mode, i]) => new AuthProbe(op, mode, i)),
    fc
      .tuple(
        fc.constantFrom(
          'getTransactionStatusBySessionToken',
          'getPartnerTransaction',
          'getPartnerTransactionByVendorReference',
          'cancelPartnerTransactionByVendorReference',
          'verifyTransaction',
          'sandboxConfirmTransaction',
          'sandboxCancelTransaction',
          'sandboxCompleteTransaction',
        ) as fc.Arbitrary<'getPartnerTransaction'>,
        fc.stringMatching(/^[a-z0-9]{1,8}$/),
      )
      .map(([op, v]) => new BadParameter(op, v)),
    fc
      .tuple(
        fc.constantFrom('text/plain', 'too-large', 'malformed-json', 'invalid') as fc.Arbitrary<'text/plain'>,
        fc.constantFrom(
          'createPartnerTransaction',
          'createPartnerTransaction',
          'createSession',
          'sandboxPaySession',
          'sandboxAdvanceClock',
        ) as fc.Arbitrary<MediaOp>,
      )
      .map(([m, op]) => new MediaProbe(m, op)),
    session,
    fc
      .tuple(fc.constantFrom('expand', 'debug', 'vendor_reference', 'limit'), idx)
      .map(([n, i]) => new UnknownQuery('getPartnerTransaction', n, i)),
  ];
  if (profile === 'core') return core.map((a) => a.map(recorded));
  const sandbox: fc.Arbitrary<Cmd>[] = [
    ...weight(2, session),
    ...weight(
      3,
      fc
        .tuple(
          fc.constantFrom(
            'sandboxConfirmTransaction',
            'sandboxConfirmTransaction',
            'sandboxCancelTransaction',
            'sandboxCompleteTransaction',
          ) as fc.Arbitrary<'sandboxConfirmTransaction'>,
          idx,
        )
        .map(([op, i]) => new CustomerAction(op, i)),
    ),
    ...weight(
      2,
      fc
        .tuple(
          fc.constantFrom(
            'seconds',
            'just-before-expiry',
            'at-expiry',
            'at-expiry',
            'past-token-lifetime',
            'past-token-lifetime',
            'past-rate-window',
          ) as fc.Arbitrary<'seconds'>,
          fc.integer({ min: 1, max: 600 }),
          idx,
        )
        .map(([t, s, i]) => new AdvanceClock(t, s, i)),
    ),
    ...weight(
      3,
      fc
        .tuple(
          idx,
          fc.constantFrom('success', 'failed') as fc.Arbitrary<'success'>,
          fc.constantFrom('own', 'own', 'own', 'own', 'unknown', 'other-merchant') as fc.Arbitrary<'own'>,
        )
        .map(([i, o, t]) => new PaySession(i, o, t)),
    ),
    ...weight(
      3,
      fc
        .tuple(idx, fc.constantFrom('own', 'own', 'other-session', 'garbage', 'missing-transaction') as fc.Arbitrary<'own'>)
        .map(([i, t]) => new VerifyByToken(i, t)),
    ),
    fc.tuple(idx, fc.boolean()).map(([i, o]) => new VerifyByKey(i, o)),
    fc
      .tuple(
        fc.constantFrom('sandboxConfirmTransaction', 'sandboxCancelTransaction', 'sandboxCompleteTransaction') as fc.Arbitrary<TargetOp>,
        fc.boolean(),
        idx,
      )
      .map(([op, o, i]) => new MissingTarget(op, o, i)),
    bodyGen(contract, 'createSession').valid.map((b) => new RateLimitRecovery(b)),
    fc.constantFrom('debug', 'merchant').map((n) => new UnknownQuery('sandboxGetClock', n, 0)),
    fc.constant(null).map(() => new SmsOutbox()),
  ];
  return [...core, ...sandbox].map((a) => a.map(recorded));
}
