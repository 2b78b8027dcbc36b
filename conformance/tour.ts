/**
 * The coverage tour: fixed command sequences that drive every transition of the state machine,
 * every drivable declared error code and every boundary of the request schemas, whatever the seed
 * (the random search finds most faults; the tour makes the coverage certain). Three parts, all
 * run before the random search: the first look (`firstLook`: the commonest faults in under twenty
 * commands), the probes (`probeCommands`: boundaries, methods, JSON reading, the service probes:
 * checks that move no clock and spend no rate-limit window) and the rest (`tourCommands`), then the
 * sandbox scenarios and the retry schedule: a fault only these show is found without waiting out
 * the search.
 */
import { AdvanceClock } from './commands/advanceClock.ts';
import { CancelById } from './commands/cancelById.ts';
import { BadParameter } from './commands/badParameter.ts';
import { CancelTransaction } from './commands/cancelTransaction.ts';
import { AgedRateWindow, classifyBody, CreateSession, OtherKeySession, RateLimitBurst } from './commands/createSession.ts';
import { CreateTransaction } from './commands/createTransaction.ts';
import { ConfirmationSms } from './commands/confirmationSms.ts';
import { CustomerAction } from './commands/moves.ts';
import { CaseReference, phoneProbes } from './commands/nearMiss.ts';
import { DateForm } from './commands/dateForm.ts';
import { ForbiddenMoves } from './commands/moves.ts';
import { CrossMerchant } from './commands/crossMerchant.ts';
import { GetTransaction } from './commands/getTransaction.ts';
import { HeadProbe, MethodProbe } from './commands/routeProbes.ts';
import { recorded } from './commands/index.ts';
import { InvalidBody } from './commands/invalidBody.ts';
import { JsonReader } from './commands/jsonReader.ts';
import { ListTransactions } from './commands/listTransactions.ts';
import { ListSms } from './commands/listSms.ts';
import { ListWebhookDeliveries } from './commands/listWebhookDeliveries.ts';
import { MediaProbe } from './commands/mediaProbe.ts';
import { MissingTarget } from './commands/missingTarget.ts';
import { parameterProbes } from './commands/parameterProbe.ts';
import { PaySession } from './commands/paySession.ts';
import { SandboxDataReset, SandboxReset } from './commands/sandboxReset.ts';
import { FilteredLists } from './commands/filteredLists.ts';
import { WebhookSecret } from './commands/webhookEndpoint.ts';
import { SimulateFailure } from './commands/simulateFailure.ts';
import { ApiLogCheck } from './commands/apiLog.ts';
import { ServiceProbe } from './commands/serviceProbe.ts';
import { SmsOutbox } from './commands/smsOutbox.ts';
import { probeFamilies } from './commands/probeFamilies.ts';
import { VerifyByKey } from './commands/verifyByKey.ts';
import { VerifyByToken } from './commands/verifyByToken.ts';
import type { Cmd } from './model.ts';
import { a1Cost, spending } from './commands/a1Budget.ts';
import { maxBodyBytes } from '../generated/index.ts';
import { bodyGen, fixedBody, fixedTotal } from './gen.ts';
import type { Contract } from '../judge/contract.ts';

/** Valid bodies derived from the request schemas, with distinct totals inside x-amount-range. */
function bodies(contract: Contract): {
  body: (k: number) => Record<string, unknown>;
  sess: (k: number) => Record<string, unknown>;
} {
  return {
    body: (k) => fixedBody(contract, 'createPartnerTransaction', fixedTotal(contract, 'createPartnerTransaction', k)),
    sess: (k) => fixedBody(contract, 'createSession', fixedTotal(contract, 'createSession', k)),
  };
}

/**
 * The tour's probes, before the random search: every path and query parameter and every keyword of
 * B1's body at its boundaries (a probe of vendorReference sends its value as generated, however
 * short), the sandbox's own bodies broken one keyword at a time, no cancel by transaction id
 * (ADR-016), JSON numbers and members (ADR-023), HEAD and 405 (ADR-024), the service probes
 * (ADR-040) and the confirmation SMS. Its own transactions and one session (A2's parameters need
 * a live token); no clock moves but past a spent A1 window (commands/a1Budget.ts); A1 once valid, then its
 * bodies failing in two members (ADR-057).
 */
export function probeCommands(contract: Contract, profile: 'core' | 'sandbox'): Cmd[] {
  return probeTour(contract, profile).commands;
}

/**
 * The tour's first look, before everything else: the faults most implementations have, in 9
 * commands (17 in the sandbox), so a run that will fail usually fails within its first second.
 * Creates for both merchants, a cancel and its read-back (the change's instant), reads by id and by vendorReference
 * for the owner and for the other merchant (ownership, ADR-049's exact reference), a reused
 * vendorReference, and in the sandbox a paid checkout verified with its token, an expiry (the one
 * clock move before the probes) and the transactions list and the SMS outbox in pages of two; the
 * run's end judges the webhooks. The same checks run again, later, in the probes and the tour.
 */
export function firstLook(contract: Contract, profile: 'core' | 'sandbox'): { commands: Cmd[]; setup: number } {
  const { body, sess } = bodies(contract);
  const setup: Cmd[] = [
    new CreateTransaction(body(1), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(2), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(3), 'valid', 'other', 'fresh', 0),
  ];
  const c: Cmd[] = [
    ...setup,
    new CancelTransaction(false, 1),
    new GetTransaction('id', 'own', 1),
    new GetTransaction('vendorReference', 'own', 0),
    new GetTransaction('id', 'other-merchant', 0),
    new GetTransaction('vendorReference', 'other-merchant', 0),
    new CreateTransaction(body(4), 'duplicate', 'main', 'reuse-own', 0),
  ];
  // in the sandbox: a checkout paid and verified with its token (A2's record and dates, the
  // approval's webhook); the main merchant's clock moved to the first transaction's expiry, and
  // that transaction read back (its status, updatedAt and the expiry's webhook)
  if (profile === 'sandbox')
    c.push(
      spending(new CreateSession(sess(1), 'valid')),
      new PaySession(0, 'success', 'own'),
      new VerifyByToken(0, 'own'),
      new AdvanceClock('at-expiry', 0, 0),
      new AdvanceClock('seconds', 2, 0),
      new GetTransaction('id', 'own', 0),
      new GetTransaction('vendorReference', 'own', 0),
      new ListTransactions(2),
      new ListSms(2),
    );
  return { commands: c.map(recorded), setup: setup.length };
}

/**
 * The probes and the commands that set up their state (the first `setup` of `commands`): each
 * probe needs only those, so a failing probe replays alone after them.
 */
export function probeTour(contract: Contract, profile: 'core' | 'sandbox'): { commands: Cmd[]; setup: number } {
  const { body, sess } = bodies(contract);
  const b1Probes = bodyGen(contract, 'createPartnerTransaction').probes.map((p) => {
    const b = p.apply(body(1));
    return new CreateTransaction(b, p.label, 'main', b.vendorReference !== body(1).vendorReference ? 'as-generated' : 'fresh', 0);
  });
  const setup: Cmd[] = [
    new CreateTransaction(body(1), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(2), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(3), 'valid', 'other', 'fresh', 0),
    spending(new CreateSession(sess(1), 'valid')),
  ];
  // A1 bodies failing in two members of different codes: the code x-error-precedence puts first (ADR-057)
  const twoFaults = bodyGen(contract, 'createSession')
    .probes.filter((p) => p.twoFaults)
    .map((p) => spending(new CreateSession(p.apply(sess(1)), p.label)));
  const c: Cmd[] = [
    ...setup,
    ...parameterProbes(contract, profile),
    ...twoFaults,
    new CancelById('PUT', 0),
    new CancelById('POST', 1),
    ...(['category-past-max', 'category-exponent', 'duplicate-member'] as const).map((mode) => new JsonReader(mode, body(1))),
    new HeadProbe(),
    new MethodProbe(),
    new ServiceProbe(),
    // every probe family on every operation it applies to, from the contract (probeFamilies.ts)
    ...probeFamilies(contract, profile),
  ];
  if (profile === 'sandbox') {
    c.push(
      new ConfirmationSms(0),
      // every keyword boundary broken in the sandbox's own request bodies, every sandbox operation
      // with one (x-internal SDK operations are not driven by the suite: their rules are checked by
      // tests, see spec/rules.yaml). Outside values only: each valid body changes what the rest of
      // the run relies on (a payment, the clock, a reset, the webhook endpoint or secret the
      // receiver verifies with, a test event the webhook judge would not expect)
      ...sandboxBodyOps(contract).flatMap((op) => {
        const g = bodyGen(contract, op);
        const base = g.fixed(0);
        return g.probes
          .filter((p) => classifyBody(contract, op, p.apply(base)).validation.length > 0)
          .map((p) => new InvalidBody(op, p.apply(base), p.label));
      }),
    );
  }
  // the realistic near misses of the rules the seed states in words (ADR-049): phone forms, one
  // reference used by both merchants, a reference in the other letter case
  const nearMisses: Cmd[] = [
    ...phoneProbes(contract, body(1)),
    new CreateTransaction(body(2), "vendorReference of the other merchant's transaction", 'main', 'reuse-other-merchant', 0),
    new CreateTransaction(body(3), "vendorReference of the main merchant's transaction", 'other', 'reuse-other-merchant', 0),
    new CaseReference(body(4), 0),
    // x-max-body-bytes on both sides: a valid body of exactly the limit is created, one byte more is 413
    new CreateTransaction(body(5), 'valid, x-max-body-bytes long', 'main', 'fresh', 0, maxBodyBytes),
    new CreateTransaction(body(5), 'valid, x-max-body-bytes + 1 long', 'main', 'fresh', 0, maxBodyBytes + 1),
  ];
  // last: valid ones create transactions, after those the commands above name by index
  c.push(...nearMisses, ...b1Probes);
  // a change and its read-back, last (it changes a setup transaction): the instant of the change,
  // and the same instant on every later read
  c.push(new CancelTransaction(false, 1), new GetTransaction('id', 'own', 1));
  // the sandbox list read to its end in small pages equals what the model holds (ADR-028)
  // and the SMS outbox too: the probes' transactions fill pages enough (the webhook deliveries wait
  // for the tour's events)
  if (profile === 'sandbox') c.push(new ListTransactions(7), new ListSms(7));
  // ---- the sandbox's own operations judged like the API: each list's filters on every page ----
  if (profile === 'sandbox') c.push(new FilteredLists());
  return { commands: c.map(recorded), setup: setup.length };
}

/**
 * The rest of the tour, after the probes: every transition and every drivable declared code, the time rules.
 * Its A1 requests are planned in the key's budget (`x-rate-limit`, commands/a1Budget.ts): the probes
 * that need no state come first, where the sandbox clock may move past a spent window as often as the
 * limit asks, before the transactions and sessions whose payment window and token lifetime the rest
 * relies on.
 */
export function tourCommands(contract: Contract, profile: 'core' | 'sandbox'): Cmd[] {
  const { body, sess } = bodies(contract);
  // every keyword boundary of A1's body and every x- amount rule, one value changed each (their sessions not kept)
  const a1Probes = bodyGen(contract, 'createSession').probes.map((p) => spending(new CreateSession(p.apply(sess(1)), p.label, false)));
  const c: Cmd[] = [
    // a fresh rate-limit window for the A1 checks below (sandbox); core relies on the model's count
    new AdvanceClock('past-rate-window', 0, 0),
    // core: the probes' window a second old, so the A1 answers below show where their waits count from
    new AgedRateWindow(),
    ...a1Probes,
    new CreateTransaction(body(1), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(2), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(3), 'valid', 'other', 'fresh', 0),
    new CreateTransaction(body(4), 'duplicate', 'main', 'reuse-own', 0),
    new GetTransaction('id', 'own', 0),
    new GetTransaction('vendorReference', 'own', 1),
    new GetTransaction('id', 'other-merchant', 0),
    new GetTransaction('vendorReference', 'missing', 0),
    new BadParameter('getPartnerTransaction', 'x'),
    new BadParameter('getPartnerTransactionByVendorReference', 'x'),
    new BadParameter('cancelPartnerTransactionByVendorReference', 'x'),
    new BadParameter('verifyTransaction', 'x'),
    // the two sessions the tour pays and verifies (indexes 0 and 1), before the rate-limit burst
    spending(new CreateSession(sess(1), 'valid')),
    spending(new CreateSession(sess(2), 'valid')),
    new CancelTransaction(false, 0),
    new CancelTransaction(false, 0),
    new CancelTransaction(true, 1),
    // the other merchant cancels its own transaction (#2): its event must not be judged as this merchant's
    new CancelTransaction(false, 2),
  ];
  if (profile === 'sandbox') {
    c.push(
      new SmsOutbox(),
      new CustomerAction('sandboxConfirmTransaction', 1),
      new CancelTransaction(false, 1),
      new CustomerAction('sandboxConfirmTransaction', 1),
      new CustomerAction('sandboxCancelTransaction', 1),
      new CustomerAction('sandboxCompleteTransaction', 1),
      new CancelTransaction(false, 1),
      new CustomerAction('sandboxCompleteTransaction', 1),
      new CreateTransaction(body(5), 'valid', 'main', 'fresh', 0),
      new CustomerAction('sandboxCancelTransaction', -1),
      new CreateTransaction(body(6), 'valid', 'main', 'fresh', 0),
      new BadParameter('sandboxConfirmTransaction', 'x'),
      new BadParameter('sandboxCancelTransaction', 'x'),
      new BadParameter('sandboxCompleteTransaction', 'x'),
      new MissingTarget('sandboxConfirmTransaction', false, 0),
      new MissingTarget('sandboxCancelTransaction', true, 0),
      new MissingTarget('sandboxCompleteTransaction', false, 0),
      new MediaProbe('invalid', 'sandboxPaySession'),
      new MediaProbe('invalid', 'sandboxAdvanceClock'),
      new PaySession(0, 'failed', 'own'),
      new PaySession(0, 'failed', 'own'),
      new VerifyByToken(0, 'own'),
      new PaySession(1, 'success', 'own'),
      new VerifyByToken(1, 'own'),
      new VerifyByToken(0, 'other-session'),
      new VerifyByToken(0, 'garbage'),
      new VerifyByToken(-1, 'missing-transaction'),
      new BadParameter('getTransactionStatusBySessionToken', 'x'),
      new VerifyByKey(1, false),
      new VerifyByKey(1, true),
      new PaySession(1, 'success', 'own'),
      new PaySession(0, 'success', 'unknown'),
      spending(new PaySession(0, 'success', 'other-merchant'), 1, 'other'),
      new AdvanceClock('just-before-expiry', 0, 0),
      new AdvanceClock('at-expiry', 0, 0),
      // every later read agrees with the expiry: B2 and B3 of each transaction of the tour
      ...Array.from({ length: 8 }, (_, i) => [new GetTransaction('id', 'own', i), new GetTransaction('vendorReference', 'own', i)]).flat(),
      // the webhook deliveries read to their end in small pages (ADR-028): after the first look, the probes and the
      // tour's changes and expiries, it holds every event the model saw emitted
      new ListWebhookDeliveries(7),
      new CancelTransaction(false, 5),
      new CustomerAction('sandboxConfirmTransaction', 5),
      new VerifyByToken(0, 'own'),
      new VerifyByKey(0, false),
      // a token still verifies a second before its lifetime ends, not after
      new AdvanceClock('just-before-token-lifetime', 0, 1),
      new VerifyByToken(1, 'own'),
      new AdvanceClock('past-token-lifetime', 0, 1),
      new VerifyByToken(1, 'own'),
      new PaySession(1, 'failed', 'own'),
      // a spent window refuses until its end, not after
      new RateLimitBurst(sess(3)),
      spending(new OtherKeySession(sess(3)), 1, 'other'),
      new AdvanceClock('just-before-rate-window', 0, 0),
      new CreateSession(sess(3), 'limited until the window ends'),
      new AdvanceClock('past-rate-window', 0, 0),
      new CreateSession(sess(3), 'valid after the window reset'),
      // every move x-state-machine forbids, from every status that forbids it (EXPIRED and COMPLETED included);
      // after the token and rate-window edges: its moves advance the clock, past the tour's tokens' lifetime
      new ForbiddenMoves(body, sess(7)),
      // one reference and phone held by both merchants: the other side after each change; the reference's near misses
      new CrossMerchant(body(8)),
    );
  } else
    c.push(
      new RateLimitBurst(sess(3)),
      spending(new OtherKeySession(sess(3)), 1, 'other'),
      new ForbiddenMoves(body, sess(7)),
      new CrossMerchant(body(8)),
    );
  // the confirmation SMS of a late transaction and A2's date form (ADR-007); the sandbox reset
  // last: it moves the merchant's time back (ADR-041)
  if (profile === 'sandbox')
    c.push(
      new ConfirmationSms(-1),
      new PaySession(-1, 'failed', 'own'),
      new DateForm(-1),
      // failures on demand (ADR-052): nothing stored, the model unchanged
      new SimulateFailure(body(6), sess(6)),
      // the API log of the go-live check (ADR-056)
      new ApiLogCheck(0),
      // ---- the sandbox's own operations judged like the API: the webhook secret the next delivery uses ----
      new WebhookSecret(body(9)),
      new SandboxReset(sess(3)),
      new SandboxDataReset(),
    );
  return c.map(recorded);
}

/** The main key's A1 requests the rest of the tour spends (`tourCommands`): named when a core run's budget was short. */
export function tourA1Cost(contract: Contract, profile: 'core' | 'sandbox'): number {
  return a1Cost(tourCommands(contract, profile));
}

/** The sandbox operations with a JSON request body, from the contract (x-internal ones are not driven). */
function sandboxBodyOps(contract: Contract): string[] {
  return Object.entries(contract.ops)
    .filter(([op, o]) => o.sandbox && !o.internal && contract.hasRequestBody(op))
    .map(([op]) => op);
}
