/** The suite: setup, the model-based property, the coverage tour, webhook judgement, coverage and findings. */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { stateMachine, tokenLifetimeSeconds } from '../generated/index.ts';
import { commandArbitraries, recorded } from './commands/index.ts';
import { AdvanceClock } from './commands/advanceClock.ts';
import { AuthProbe } from './commands/authProbe.ts';
import { BadParameter } from './commands/badParameter.ts';
import { UnknownQuery } from './commands/unknownQuery.ts';
import { CancelTransaction } from './commands/cancelTransaction.ts';
import { CreateSession } from './commands/createSession.ts';
import { CreateTransaction } from './commands/createTransaction.ts';
import { CustomerAction } from './commands/customerAction.ts';
import { GetTransaction } from './commands/getTransaction.ts';
import { MediaProbe } from './commands/mediaProbe.ts';
import { MissingTarget } from './commands/missingTarget.ts';
import { PaySession } from './commands/paySession.ts';
import { RateLimitBurst } from './commands/rateLimitBurst.ts';
import { VerifyByKey } from './commands/verifyByKey.ts';
import { VerifyByToken } from './commands/verifyByToken.ts';
import { ConformanceError, SetupError, type Exchange } from './http.ts';
import type { Cmd, Model } from './model.ts';
import { curlScript, type Finding } from './report.ts';
import { asyncApiValidators, WebhookReceiver } from './webhooks.ts';
import { World, type SuiteConfig } from './world.ts';

export interface SuiteOptions extends SuiteConfig {
  runs: number;
  seed: number;
  path?: string;
  replayPath?: string;
  maxCommands?: number;
  webhookPort?: number;
  log?: (line: string) => void;
  fetchImpl?: typeof fetch;
  /** Sees every exchange (request and response), e.g. to record it. */
  onExchange?: (ex: Exchange) => void | Promise<void>;
  /** Webhook deliveries are awaited this long after the last expected one (ms). */
  webhookGraceMs?: number;
  /** An expected webhook missing after this long (ms) is a finding. Default 3000. */
  webhookTimeoutMs?: number;
  /**
   * Bounds the model-based property (runs and shrinking) in wall time: once a finding exists,
   * shrinking stops at this limit and the smallest sequence found so far is reported.
   */
  timeLimitMs?: number;
}

export interface SuiteResult {
  seed: number;
  findings: Finding[];
  checks: number;
  requests: number;
  commands: number;
  runs: number;
  durationMs: number;
  firstFindingMs: number | null;
  coverage: { transitions: { exercised: string[]; missing: string[] }; codes: { exercised: string[]; missing: string[]; notDriven: string[] } };
  webhooks: { received: number; ignored: number } | null;
}

/** Error codes no black-box run can provoke on demand, and why. */
const NOT_DRIVABLE: Record<string, string> = {
  INTERNAL_ERROR: 'a server fault cannot be provoked',
  MERCHANT_INACTIVE: 'needs an inactive merchant',
  CREDIT_LIMIT_EXCEEDED: 'depends on the merchant credit limit (the suite assumes none)',
};

const DRIVEN_CORE = ['createSession', 'verifyTransaction', 'createPartnerTransaction', 'getPartnerTransaction', 'getPartnerTransactionByVendorReference', 'cancelPartnerTransactionByVendorReference'];
const DRIVEN_SANDBOX = [...DRIVEN_CORE, 'getTransactionStatusBySessionToken', 'sandboxConfirmTransaction', 'sandboxCancelTransaction', 'sandboxCompleteTransaction', 'sandboxPaySession', 'sandboxAdvanceClock'];

export async function runSuite(opts: SuiteOptions): Promise<SuiteResult> {
  const log = opts.log ?? (() => {});
  const started = performance.now();
  const w = new World(opts, opts.fetchImpl, opts.onExchange);
  const findings: Finding[] = [];
  let firstFindingMs: number | null = null;
  let commands = 0;
  const keys = { apiKey: opts.apiKey, otherApiKey: opts.otherApiKey, baseUrl: opts.baseUrl };

  await preflight(w);
  if (opts.webhookPort !== undefined && opts.webhookSecret) {
    w.receiver = new WebhookReceiver(opts.webhookPort, opts.webhookSecret, await asyncApiValidators());
    await w.receiver.start();
    log(`webhook receiver on 127.0.0.1:${opts.webhookPort}`);
  }
  try {
    if (w.sandbox) {
      const c = await w.client.call('sandboxGetClock', { headers: { 'X-API-Key': opts.apiKey } });
      if (c.status !== 200) throw new SetupError(`GET /api/v1/sandbox/clock answered ${c.status}: the sandbox profile needs the sandbox endpoints and a test key`);
      w.suiteStartIso = (c.json as { now: string }).now;
      // Settle what earlier runs left: their transactions expire, tokens lapse, the rate window resets.
      const drain = opts.paymentWindowSeconds + tokenLifetimeSeconds + w.rateLimit().windowSeconds;
      const a = await w.client.call('sandboxAdvanceClock', { headers: { 'X-API-Key': opts.apiKey }, body: { seconds: drain } });
      if (a.status !== 200) throw new SetupError(`POST /api/v1/sandbox/clock/advance answered ${a.status}`);
      w.clockBase = (a.json as { offsetSeconds: number }).offsetSeconds;
      w.suiteStartIso = (a.json as { now: string }).now;
      const limit = w.rateLimit().limit;
      w.rate.main = { usedLo: 0, usedHi: limit, endLo: -Infinity, endHi: Infinity };
      if (w.receiver) {
        await sleep(opts.webhookGraceMs ?? 150);
        w.judged = w.receiver.deliveries.length;
      }
    } else w.suiteStartIso = new Date(Date.now() - 1000).toISOString();
    w.client.transcript = [];

    // ---- the model-based property ----
    let lastFailing: { transcript: Exchange[]; commands: string[] } | undefined;
    const arbs = commandArbitraries(opts.variant, opts.profile);
    const property = fc.asyncProperty(fc.commands(arbs, { maxCommands: opts.maxCommands ?? 25, size: 'medium', replayPath: opts.replayPath }), async (cmds) => {
      w.runId++;
      w.client.transcript = [];
      w.executed = [];
      const model: Model = { world: w, txs: [], sessions: [] };
      try {
        await fc.asyncModelRun(() => ({ model, real: w }), cmds);
        await webhookCheckpoint(w, opts.webhookGraceMs ?? 150, opts.webhookTimeoutMs);
      } catch (e) {
        // A failed run is abandoned: its events are no longer expected, and its late deliveries are
        // not judged by the next run (so a shrunk sequence never depends on an earlier run's state).
        w.abandonedRuns.add(w.runId);
        // events it expected of earlier runs' transactions (e.g. expiries its clock advance caused) too
        for (const x of w.expected.splice(0, w.expected.length)) w.abandonedRuns.add(x.runId);
        lastFailing = { transcript: [...w.client.transcript], commands: [...w.executed] };
        if (firstFindingMs === null) firstFindingMs = performance.now() - started;
        throw e;
      } finally {
        commands += w.executed.length;
      }
    });
    log(`property: ${opts.runs} runs, seed ${opts.seed}${opts.path ? `, path ${opts.path}` : ''}`);
    const details = await fc.check(property, { numRuns: opts.runs, seed: opts.seed, path: opts.path, endOnFailure: opts.path !== undefined, verbose: 0, ...(opts.timeLimitMs ? { interruptAfterTimeLimit: opts.timeLimitMs } : {}) });
    if (details.failed && lastFailing) {
      const cex = details.counterexample?.[0] as { toString(): string } | undefined;
      const replayPath = /replayPath="([^"]*)"/.exec(String(cex ?? ''))?.[1];
      findings.push(toFinding(details.errorInstance, 'property', lastFailing, keys, opts, details.counterexamplePath ?? undefined, replayPath));
      log(`finding after ${details.numRuns} runs and ${details.numShrinks} shrinks`);
    } else log(`property passed ${details.numRuns} runs`);

    // ---- the coverage tour: a fixed sequence that drives every transition and code ----
    if (opts.path === undefined) {
      w.runId++;
      w.client.transcript = [];
      w.executed = [];
      const model: Model = { world: w, txs: [], sessions: [] };
      try {
        await fc.asyncModelRun(() => ({ model, real: w }), tour(opts));
        await webhookCheckpoint(w, opts.webhookGraceMs ?? 150, opts.webhookTimeoutMs);
        log(`coverage tour passed (${w.executed.length} commands)`);
      } catch (e) {
        if (firstFindingMs === null) firstFindingMs = performance.now() - started;
        findings.push(toFinding(e, 'tour', { transcript: [...w.client.transcript], commands: [...w.executed] }, keys, opts));
        log('coverage tour: finding');
      }
      commands += w.executed.length;
    }
  } finally {
    await w.receiver?.close();
  }

  // ---- coverage ----
  const driven = w.sandbox ? DRIVEN_SANDBOX : DRIVEN_CORE;
  const wantTransitions = stateMachine.transitions.filter((t) => w.sandbox || !w.contract.op(t.trigger.operationId).sandbox).map((t) => t.id);
  const declared: string[] = [];
  const notDriven: string[] = [];
  for (const op of driven.filter((o) => w.contract.has(o))) {
    for (const [status, codes] of Object.entries(w.contract.op(op).errors)) {
      for (const code of codes) {
        const k = `${op} ${status} ${code}`;
        if (code in NOT_DRIVABLE) notDriven.push(`${k} (${NOT_DRIVABLE[code]})`);
        else declared.push(k);
      }
    }
  }
  const exercisedCodes = declared.filter((k) => w.coverage.codes.has(k));
  const missingCodes = declared.filter((k) => !w.coverage.codes.has(k));
  const missingTransitions = wantTransitions.filter((t) => !w.coverage.transitions.has(t));
  if (w.sandbox && opts.path === undefined) {
    for (const m of [...missingTransitions.map((t) => `transition ${t}`), ...missingCodes.map((c) => `error ${c}`)]) {
      findings.push({ title: `not exercised: ${m}`, operation: m.split(' ')[1]!, jsonPath: '$', message: `${m} was never exercised: the server never answered it where the model expected it`, phase: 'coverage', commands: [], curl: '', seed: opts.seed, replay: '' });
    }
  }
  return {
    seed: opts.seed,
    findings,
    checks: w.client.checks,
    requests: w.client.requests,
    commands,
    runs: opts.runs,
    durationMs: performance.now() - started,
    firstFindingMs,
    coverage: {
      transitions: { exercised: [...w.coverage.transitions].sort(), missing: missingTransitions },
      codes: { exercised: exercisedCodes, missing: missingCodes, notDriven },
    },
    webhooks: w.receiver ? { received: w.receiver.deliveries.length, ignored: w.ignoredEvents } : null,
  };
}

function toFinding(e: unknown, phase: Finding['phase'], run: { transcript: Exchange[]; commands: string[] }, keys: { apiKey: string; otherApiKey: string; baseUrl: string }, opts: SuiteOptions, path?: string, replayPath?: string): Finding {
  const ce = e instanceof ConformanceError ? e : undefined;
  const message = ce ? ce.message : `unexpected error: ${(e as Error)?.stack ?? String(e)}`;
  const replay = phase === 'property'
    ? `paylater conform --base-url ${opts.baseUrl} --api-key $API_KEY --other-api-key $OTHER_API_KEY --variant ${opts.variant} --profile ${opts.profile} --seed ${opts.seed}${path ? ` --path ${path}` : ''}${replayPath ? ` --replay-path ${replayPath}` : ''}`
    : `paylater conform --base-url ${opts.baseUrl} --api-key $API_KEY --other-api-key $OTHER_API_KEY --variant ${opts.variant} --profile ${opts.profile} --seed ${opts.seed} (coverage tour)`;
  return {
    title: ce ? `${ce.operation} ${ce.jsonPath}` : 'unexpected error',
    operation: ce?.operation ?? '?',
    jsonPath: ce?.jsonPath ?? '$',
    message,
    expected: ce?.expected,
    actual: ce?.actual,
    phase,
    commands: run.commands,
    curl: curlScript(run.transcript, keys),
    seed: opts.seed,
    path,
    replay,
  };
}

async function preflight(w: World): Promise<void> {
  for (const who of ['main', 'other'] as const) {
    let ex: Exchange;
    try {
      ex = await w.client.call('getPartnerTransaction', { pathParams: { transactionId: randomUUID() }, headers: { 'X-Api-Key': w.key(who) } });
    } catch (e) {
      if (e instanceof ConformanceError) throw new SetupError(`the server at ${w.cfg.baseUrl} does not speak the contract: ${e.message}`);
      throw new SetupError(`cannot reach ${w.cfg.baseUrl}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
    if (ex.status === 401) throw new SetupError(`the ${who === 'main' ? '--api-key' : '--other-api-key'} was rejected (401) by ${w.cfg.baseUrl}`);
    if (ex.status !== 404) throw new SetupError(`GET of a missing transaction answered ${ex.status}, expected 404: is ${w.cfg.baseUrl} the API's base URL?`);
  }
  if (w.cfg.apiKey === w.cfg.otherApiKey) throw new SetupError('--api-key and --other-api-key must belong to two different merchants');
}

/** Waits for the events this run expects, then judges every new delivery. */
async function webhookCheckpoint(w: World, graceMs: number, timeoutMs = 3000): Promise<void> {
  const r = w.receiver;
  if (!r) return;
  const deadline = performance.now() + timeoutMs;
  const matched = new Set<number>();
  const pending = (): number => w.expected.filter((_, i) => !matched.has(i)).length;
  let quietUntil = performance.now() + graceMs;
  for (;;) {
    while (w.judged < r.deliveries.length) judge(w, r.deliveries[w.judged++]!, matched);
    const now = performance.now();
    if (pending() === 0 && now >= quietUntil) break;
    if (now >= deadline) break;
    await r.waitForDelivery(Math.min(50, Math.max(1, (pending() ? deadline : quietUntil) - now)));
    if (pending() === 0 && quietUntil < performance.now()) quietUntil = performance.now();
  }
  const missing = w.expected.find((_, i) => !matched.has(i));
  // every expected event was matched: forget them so the next run starts clean
  w.expected.splice(0, w.expected.length);
  if (missing) throw new ConformanceError(`webhook ${missing.event}`, '$', `transition ${missing.transition} of transaction ${missing.txId} emitted no ${missing.event} (x-state-machine emits it)`, missing.event, 'no delivery');
}

function judge(w: World, d: { webhookId: string | undefined; body: string; payload: { event?: string; data?: { id?: string; createdAt?: string } } | undefined; problems: string[] }, matched: Set<number>): void {
  const ev = d.payload?.event ?? '?';
  const late = w.txs.get(d.payload?.data?.id ?? '');
  if (late && w.abandonedRuns.has(late.runId)) {
    w.ignoredEvents++;
    return;
  }
  if (d.problems.length) throw new ConformanceError(`webhook ${ev}`, '$', d.problems[0]!, 'a valid signed delivery', d.webhookId);
  const id = d.webhookId!;
  const prior = w.seenWebhookIds.get(id);
  if (prior !== undefined) {
    if (prior !== d.body) throw new ConformanceError(`webhook ${ev}`, '$', `a repeat of webhook-id ${id} has a different body`, prior, d.body);
    return;
  }
  w.seenWebhookIds.set(id, d.body);
  const txId = d.payload?.data?.id ?? '';
  const tx = w.txs.get(txId);
  if (!tx) {
    if ((d.payload?.data?.createdAt ?? '') < w.suiteStartIso) {
      w.ignoredEvents++;
      return;
    }
    throw new ConformanceError(`webhook ${ev}`, '$.data.id', `event for transaction ${txId}, which this run never saw make a transition`, 'no event', ev);
  }
  if (ev === 'transaction.expired' && tx.status === 'PENDING' && w.windowPassed(tx) !== 'no') w.observe(tx, 'EXPIRED');
  const i = w.expected.findIndex((x, j) => !matched.has(j) && x.txId === txId && x.event === ev);
  if (i < 0) throw new ConformanceError(`webhook ${ev}`, '$', `${ev} for transaction ${txId} (status ${tx.status}) without its transition, or a second event for one transition with a new webhook-id ${id}`, 'no event', ev);
  matched.add(i);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The fixed coverage tour: every transition and every drivable declared code, in a few dozen commands. */
function tour(opts: SuiteOptions): Cmd[] {
  const v = opts.variant;
  const body = (t: number): Record<string, unknown> => ({ customerPhone: '212612345678', total: t, currency: 'MAD', items: [{ name: 'Tour item', quantity: 1, unitPrice: t }] });
  const sess = (t: number): Record<string, unknown> => ({ total: v === 1 ? t : t.toFixed(2), currency: 'MAD', items: [{ id: 'SKU-1', name: 'Tour item', price: t, quantity: 1 }] });
  const c: Cmd[] = [
    // a fresh rate-limit window for the A1 checks below (sandbox); core relies on the model's count
    new AdvanceClock('past-rate-window', 0, 0),
    new CreateTransaction(body(600), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(700), 'valid', 'main', 'fresh', 0),
    new CreateTransaction(body(800), 'valid', 'other', 'fresh', 0),
    new CreateTransaction(body(900), 'duplicate', 'main', 'reuse-own', 0),
    new CreateTransaction({ ...body(600), total: 600.01 }, 'total ≠ Σ', 'main', 'fresh', 0),
    new CreateTransaction(body(499.99), 'total 499.99', 'main', 'fresh', 0),
    new CreateTransaction({ ...body(600), customerPhone: '+212612345678' }, 'phone with +', 'main', 'fresh', 0),
    new GetTransaction('id', 'own', 0),
    new GetTransaction('vendorReference', 'own', 1),
    new GetTransaction('id', 'other-merchant', 0),
    new GetTransaction('vendorReference', 'missing', 0),
    new AuthProbe('createPartnerTransaction', 'missing', 0),
    new AuthProbe('getPartnerTransaction', 'wrong', 0),
    new AuthProbe('getPartnerTransactionByVendorReference', 'missing', 0),
    new AuthProbe('cancelPartnerTransactionByVendorReference', 'wrong', 0),
    new AuthProbe('createSession', 'missing', 0),
    new AuthProbe('verifyTransaction', 'wrong', 0),
    new BadParameter('getPartnerTransaction', 'x'),
    new BadParameter('getPartnerTransactionByVendorReference', 'x'),
    new BadParameter('cancelPartnerTransactionByVendorReference', 'x'),
    new BadParameter('verifyTransaction', 'x'),
    new UnknownQuery('getPartnerTransaction', 'expand', 0),
    new MediaProbe('text/plain'),
    new MediaProbe('too-large'),
    new MediaProbe('malformed-json'),
    new CreateSession(sess(600), 'valid'),
    new CreateSession({ ...sess(600), total: v === 1 ? 499.99 : '499.99' }, 'total 499.99'),
    new CreateSession({ ...sess(600), currency: 'EUR' }, 'currency EUR'),
    new CreateSession({ ...sess(600), items: [] }, 'items empty'),
    new CreateSession({ ...sess(600), total: v === 1 ? 600.01 : '600.01' }, 'total ≠ Σ'),
    new CreateSession({ ...sess(600), extra: true }, 'unknown field'),
    new CreateSession(sess(650), 'valid'),
    new CancelTransaction(false, 0),
    new CancelTransaction(false, 0),
    new CancelTransaction(true, 1),
  ];
  if (opts.profile === 'sandbox') {
    c.push(
      new CustomerAction('sandboxConfirmTransaction', 1),
      new CancelTransaction(false, 1),
      new CustomerAction('sandboxConfirmTransaction', 1),
      new CustomerAction('sandboxCancelTransaction', 1),
      new CustomerAction('sandboxCompleteTransaction', 1),
      new CancelTransaction(false, 1),
      new CustomerAction('sandboxCompleteTransaction', 1),
      new CreateTransaction(body(1000), 'valid', 'main', 'fresh', 0),
      new CustomerAction('sandboxCancelTransaction', -1),
      new CreateTransaction(body(1100), 'valid', 'main', 'fresh', 0),
      new BadParameter('sandboxConfirmTransaction', 'x'),
      new UnknownQuery('sandboxGetClock', 'debug', 0),
      new BadParameter('sandboxCancelTransaction', 'x'),
      new BadParameter('sandboxCompleteTransaction', 'x'),
      new MissingTarget('sandboxConfirmTransaction', false, 0),
      new MissingTarget('sandboxCancelTransaction', true, 0),
      new MissingTarget('sandboxCompleteTransaction', false, 0),
      ...(['sandboxConfirmTransaction', 'sandboxCancelTransaction', 'sandboxCompleteTransaction', 'sandboxPaySession', 'sandboxAdvanceClock'] as const).map((op) => new AuthProbe(op, 'missing', 0)),
      ...(['sandboxPaySession', 'sandboxAdvanceClock', 'createSession'] as const).flatMap((op) => [new MediaProbe('text/plain', op), new MediaProbe('too-large', op)]),
      new MediaProbe('invalid', 'sandboxPaySession'),
      new MediaProbe('invalid', 'sandboxAdvanceClock'),
      new PaySession(0, 'failed', 'own'),
      new PaySession(0, 'failed', 'own'),
      new VerifyByToken(0, 'own'),
      new PaySession(1, 'success', 'own'),
      new VerifyByToken(1, 'own'),
      new VerifyByToken(0, 'other-session'),
      new VerifyByToken(0, 'garbage'),
      new VerifyByToken(0, 'missing-transaction'),
      new BadParameter('getTransactionStatusBySessionToken', 'x'),
      new VerifyByKey(1, false),
      new VerifyByKey(1, true),
      new PaySession(1, 'success', 'own'),
      new PaySession(0, 'success', 'unknown'),
      new PaySession(0, 'success', 'other-merchant'),
      new AdvanceClock('just-before-expiry', 0, 0),
      new AdvanceClock('at-expiry', 0, 0),
      new CancelTransaction(false, 5),
      new CustomerAction('sandboxConfirmTransaction', 5),
      new VerifyByToken(0, 'own'),
      new AdvanceClock('past-token-lifetime', 0, 1),
      new VerifyByToken(1, 'own'),
      new PaySession(1, 'failed', 'own'),
      new RateLimitBurst(sess(700)),
      new AdvanceClock('past-rate-window', 0, 0),
      new CreateSession(sess(700), 'valid after the window reset'),
    );
  } else c.push(new RateLimitBurst(sess(700)));
  return c.map(recorded);
}
