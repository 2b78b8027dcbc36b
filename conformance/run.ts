/**
 * The suite: setup (preflight, webhook receiver, sandbox clock), the model-based property, the
 * coverage tour (`tour.ts`), webhook judgement at each run's end (`webhook-judge.ts`), then the
 * coverage (`coverage.ts`) and findings.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { errorCatalog, tokenLifetimeSeconds } from '../generated/index.ts';
import { commandArbitraries } from './commands/index.ts';
import { coverageOf, type Coverage } from './coverage.ts';
import { checkScenarios } from './scenarios.ts';
import { ConformanceError, SetupError, type Exchange } from './http.ts';
import type { Cmd, Model } from './model.ts';
import { curlScript, type Finding } from './report.ts';
import { tourCommands } from './tour.ts';
import { webhookCheckpoint } from './webhook-judge.ts';
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
  coverage: Coverage;
  webhooks: { received: number; ignored: number } | null;
}

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
    if (w.sandbox) await settleSandbox(w, opts);
    else w.suiteStartIso = new Date(Date.now() - 1000).toISOString();
    w.client.transcript = [];

    // ---- the model-based property ----
    let lastFailing: { transcript: Exchange[]; commands: string[] } | undefined;
    const arbs = commandArbitraries(opts.variant, opts.profile);
    const property = fc.asyncProperty(fc.commands(arbs, { maxCommands: opts.maxCommands ?? 25, size: 'medium', replayPath: opts.replayPath }), async (cmds) => {
      try {
        await runCommands(w, cmds, opts);
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
      try {
        await runCommands(w, tourCommands(opts.variant, opts.profile), opts);
        log(`coverage tour passed (${w.executed.length} commands)`);
      } catch (e) {
        if (firstFindingMs === null) firstFindingMs = performance.now() - started;
        findings.push(toFinding(e, 'tour', { transcript: [...w.client.transcript], commands: [...w.executed] }, keys, opts));
        log('coverage tour: finding');
      }
      commands += w.executed.length;
      // ---- the sandbox scenarios (ADR-043), after the tour: they move the clock ----
      if (w.sandbox) {
        try {
          const n = await checkScenarios(w, opts.paymentWindowSeconds);
          if (n > 0) log(`sandbox scenarios passed (${n})`);
        } catch (e) {
          if (firstFindingMs === null) firstFindingMs = performance.now() - started;
          findings.push(toFinding(e, 'tour', { transcript: [...w.client.transcript], commands: ['sandbox scenarios'] }, keys, opts));
          log('sandbox scenarios: finding');
        }
      }
    }
  } finally {
    await w.receiver?.close();
    if (w.sandbox) await resetSandbox(w, opts, log);
  }

  // ---- coverage: in a full sandbox run, what was not exercised is a finding ----
  const cov = coverageOf(w, w.sandbox && opts.path === undefined, opts.seed);
  findings.push(...cov.findings);
  return {
    seed: opts.seed,
    findings,
    checks: w.client.checks,
    requests: w.client.requests,
    commands,
    runs: opts.runs,
    durationMs: performance.now() - started,
    firstFindingMs,
    coverage: cov.coverage,
    webhooks: w.receiver ? { received: w.receiver.deliveries.length, ignored: w.ignoredEvents } : null,
  };
}

/** One run of a command sequence against a fresh model, judged with the webhooks it caused. */
async function runCommands(w: World, cmds: Iterable<Cmd>, opts: SuiteOptions): Promise<void> {
  w.runId++;
  w.client.transcript = [];
  w.executed = [];
  const model: Model = { world: w, txs: [], sessions: [] };
  await fc.asyncModelRun(() => ({ model, real: w }), cmds);
  await webhookCheckpoint(w, opts.webhookGraceMs ?? 150, opts.webhookTimeoutMs);
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

/**
 * Sandbox setup: reads the merchant's clock, then advances it past everything earlier runs left
 * (their transactions expire, tokens lapse, the rate window resets) and lets those deliveries pass.
 */
async function settleSandbox(w: World, opts: SuiteOptions): Promise<void> {
  const c = await w.client.call('sandboxGetClock', { headers: w.auth('sandboxGetClock', opts.apiKey) });
  if (!w.succeeded(c)) throw new SetupError(`GET /api/v1/sandbox/clock answered ${c.status}: the sandbox profile needs the sandbox endpoints and a test key`);
  w.suiteStartIso = (c.json as { now: string }).now;
  const drain = opts.paymentWindowSeconds + tokenLifetimeSeconds + w.rateLimit().windowSeconds;
  const a = await w.client.call('sandboxAdvanceClock', { headers: w.auth('sandboxAdvanceClock', opts.apiKey), body: { seconds: drain } });
  if (!w.succeeded(a)) throw new SetupError(`POST /api/v1/sandbox/clock/advance answered ${a.status}`);
  w.clockBase = (a.json as { offsetSeconds: number }).offsetSeconds;
  w.suiteStartIso = (a.json as { now: string }).now;
  const limit = w.rateLimit().limit;
  w.rate.main = { usedLo: 0, usedHi: limit, endLo: -Infinity, endHi: Infinity };
  if (w.receiver) {
    await sleep(opts.webhookGraceMs ?? 150);
    w.judged = w.receiver.deliveries.length;
  }
}

/**
 * Leaves the sandbox as the run found it where the sandbox offers a reset (ADR-041): each
 * key's clock back to real time and its rate-limit window cleared; the data stays for
 * inspection. Outside the judged run: a sandbox without the operation is not a finding.
 */
async function resetSandbox(w: World, opts: SuiteOptions, log: (line: string) => void): Promise<void> {
  if (!w.contract.has('sandboxReset')) return;
  const url = new URL(w.contract.op('sandboxReset').path, opts.baseUrl).toString();
  for (const key of [opts.apiKey, opts.otherApiKey]) {
    try {
      const r = await (opts.fetchImpl ?? fetch)(url, { method: 'POST', headers: { ...w.auth('sandboxReset', key), 'Content-Type': 'application/json' }, body: '{}' });
      await r.arrayBuffer();
      log(r.ok ? 'sandbox reset: clock back to real time, rate-limit window cleared' : `sandbox reset not offered (${r.status}): the clock stays where the run left it`);
    } catch (e) {
      log(`sandbox reset failed: ${(e as Error).message}`);
    }
  }
}

/** Both keys work and belong to two merchants, and the base URL answers the contract. */
async function preflight(w: World): Promise<void> {
  for (const who of ['main', 'other'] as const) {
    let ex: Exchange;
    try {
      ex = await w.client.call('getPartnerTransaction', { pathParams: { transactionId: randomUUID() }, headers: w.auth('getPartnerTransaction', w.key(who)) });
    } catch (e) {
      if (e instanceof ConformanceError) throw new SetupError(`the server at ${w.cfg.baseUrl} does not speak the contract: ${e.message}`);
      throw new SetupError(`cannot reach ${w.cfg.baseUrl}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
    if (ex.status === errorCatalog.INVALID_API_KEY.status) throw new SetupError(`the ${who === 'main' ? '--api-key' : '--other-api-key'} was rejected (${ex.status}) by ${w.cfg.baseUrl}`);
    const notFound = errorCatalog.TRANSACTION_NOT_FOUND.status;
    if (ex.status !== notFound) throw new SetupError(`GET of a missing transaction answered ${ex.status}, expected ${notFound}: is ${w.cfg.baseUrl} the API's base URL?`);
  }
  if (w.cfg.apiKey === w.cfg.otherApiKey) throw new SetupError('--api-key and --other-api-key must belong to two different merchants');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
