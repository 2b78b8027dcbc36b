/**
 * The suite: setup (preflight, webhook receiver, sandbox clock), the model-based property, the
 * coverage tour (`tour.ts`), webhook judgement at each run's end (`webhook-judge.ts`), then the
 * coverage (`coverage.ts`) and findings.
 */
import fc from 'fast-check';
import { commandArbitraries } from './commands/index.ts';
import { rateLimit } from './commands/createSession.ts';
import { a1Room } from './commands/a1Budget.ts';
import { paymentWindowSeconds } from './commands/advanceClock.ts';
import { coverageOf, notExercised, type SuiteCoverage } from './coverage.ts';
import { findingKey } from './baseline.ts';
import { checkRetrySchedule, retryScheduleCheckable } from './retries.ts';
import { checkScenarios } from './scenarios.ts';
import { resetSandbox, settleSandbox } from './sandbox-run.ts';
import { InterruptedError, SetupError, type Exchange, type Transport } from './http.ts';
import type { Cmd, Model } from './model.ts';
import { curlScript, type Finding } from '../judge/report.ts';
import { ConformanceError } from '../judge/answer.ts';
import { checkKeys, checkMerchants } from './preflight.ts';
import { firstLook, probeTour, tourA1Cost, tourCommands } from './tour.ts';
import { webhookCheckpoint } from './webhook-judge.ts';
import { startWebhookReceiver } from './webhooks.ts';
import { World, type SuiteConfig } from './world.ts';

export interface SuiteOptions extends SuiteConfig {
  runs: number;
  seed: number;
  path?: string;
  replayPath?: string;
  maxCommands?: number;
  log?: (line: string) => void;
  fetchImpl?: Transport;
  /** Sees every exchange (request and response), e.g. to record it. */
  onExchange?: (ex: Exchange) => void | Promise<void>;
  /** Sees the commands each run (of the search or the tour) executed, in order, e.g. to compare two replays of a seed and path. */
  onRun?: (commands: readonly string[]) => void;
  /** Webhook deliveries are awaited this long after the last expected one (ms). */
  webhookGraceMs?: number;
  /**
   * Bounds the model-based property (runs and shrinking) in wall time: once a finding exists,
   * shrinking stops at this limit and the smallest sequence found so far is reported.
   */
  timeLimitMs?: number;
  /** Shrinking a finding stops this long (ms) after the first failure. Default DEFAULT_SHRINK_TIME_MS. */
  shrinkTimeMs?: number;
  /**
   * Ends the run at its first finding (after shrinking it): the later phases are skipped and what
   * they would have exercised is not judged. For a quick red while fixing one fault at a time.
   */
  bail?: boolean;
}

/** Shrinking a finding is bounded to this much wall time (ms) from its first failure. */
export const DEFAULT_SHRINK_TIME_MS = 20_000;

/** Sequences longer than this come with the reason they could not shrink further. */
const LONG_SEQUENCE = 6;

/** How shrinking ended, said for a sequence longer than LONG_SEQUENCE commands. */
function shrinkNote(numShrinks: number, length: number, byTime: boolean, budgetMs: number): string {
  const done = `${numShrinks} shrink step(s) to ${length} command(s)`;
  if (byTime) return `${done}; shrinking stopped at its time limit (${(budgetMs / 1000).toFixed(0)} s): a shorter sequence may exist`;
  if (length <= LONG_SEQUENCE) return done;
  return `${done}; no shorter sequence fails: removing any command or simplifying any value made the run pass (the fault needs this state, or depends on timing, e.g. a webhook or the payment window)`;
}

/** Why a finding outside the random search is not shrunk, said with it. */
const NOT_SHRUNK = {
  tour: 'not shrunk: the coverage tour is one fixed sequence, not generated, so there is nothing to shrink; its commands build the state the last one needs, and the last command is the one whose answer broke the rule',
  probe:
    "reduced: the failing probe of the coverage tour run again after the commands that set up the probes' state (its other probes removed); not shrunk further",
  setup: 'not shrunk: found while setting up, before any command ran',
} as const;

export interface SuiteResult {
  seed: number;
  findings: Finding[];
  checks: number;
  requests: number;
  commands: number;
  runs: number;
  durationMs: number;
  firstFindingMs: number | null;
  coverage: SuiteCoverage;
  webhooks: { received: number; ignored: number } | null;
  /**
   * What a full core-profile run without findings could not exercise (a spent A1 budget, …): such a
   * run is incomplete, not clean. Empty otherwise (the sandbox profile reports these as findings).
   */
  incomplete: string[];
  /** The signal that interrupted the run (SIGINT, SIGTERM), if one did: the run stopped there, its findings so far reported. */
  interrupted?: string;
  /** 429 AUTH_THROTTLED answers met (each waited for and sent again) and the time spent waiting on the throttle (ms). */
  authThrottle: { throttled: number; waitedMs: number };
  /** The client's time slept on purpose (ms): the throttle's waits, a rate window left to age (a sandbox clock cannot be moved in the core profile), the polls' intervals. */
  pausedMs: number;
}

export async function runSuite(opts: SuiteOptions): Promise<SuiteResult> {
  const log = opts.log ?? (() => {});
  const started = performance.now();
  const w = new World(opts, opts.fetchImpl, opts.onExchange);
  const findings: Finding[] = [];
  let firstFindingMs: number | null = null;
  let commands = 0;
  const keys = { apiKey: opts.apiKey, otherApiKey: opts.otherApiKey, baseUrl: opts.baseUrl };
  /** Violation `e` of `phase` recorded as a finding, its commands as the report names them. */
  const recordFinding = (e: unknown, phase: 'setup' | 'tour', commands: string[], what: string): void => {
    if (firstFindingMs === null) firstFindingMs = performance.now() - started;
    findings.push(toFinding(e, phase, { transcript: [...w.client.transcript], commands }, keys, opts));
    log(`${what}: finding`);
  };
  /** A violation seen while setting up is a finding (the run stops there); a SetupError stays one. */
  const setupFinding = (e: unknown): void => {
    if (e instanceof SetupError) throw e;
    if (!(e instanceof InterruptedError)) recordFinding(e, 'setup', [...w.executed], 'setup');
  };
  /**
   * The run ends early: at its first finding with `bail`, when the server stopped answering (that
   * request is the finding), or when interrupted (SIGINT/SIGTERM).
   */
  const bailed = (): boolean =>
    (opts.bail === true && findings.length > 0) || w.client.gone !== undefined || w.client.interrupted !== undefined;
  /** One checked step after the tour's commands (`name` in the report): a check it fails is a finding. */
  const tourStep = async (name: string, step: () => Promise<void>): Promise<'passed' | 'finding' | 'interrupted'> => {
    w.client.transcript = [];
    try {
      await step();
      return 'passed';
    } catch (e) {
      if (e instanceof InterruptedError) return 'interrupted';
      recordFinding(e, 'tour', [name], name);
      return 'finding';
    }
  };
  const finish = (): SuiteResult => {
    // ---- coverage: in a full sandbox run, what was not exercised is a finding ----
    const cov = coverageOf(w, w.sandbox && opts.path === undefined && !findings.some((f) => f.phase === 'setup') && !bailed(), opts.seed);
    findings.push(...cov.findings);
    for (const f of findings) f.key = findingKey(f);
    const full = opts.path === undefined && !w.sandbox && !findings.length;
    const incomplete = full ? notExercised(cov.coverage) : [];
    if (incomplete.length && w.state.rate429 > 1)
      incomplete.push(
        `(A1 answered ${w.state.rate429} time(s) with 429: its rate-limit budget of ${rateLimit(w.state).limit} per ${rateLimit(w.state).windowSeconds} s was spent${w.state.a1TourCost > rateLimit(w.state).limit ? ` (the tour alone needs ${w.state.a1TourCost} A1 requests)` : ', e.g. by an earlier run with this key'}; wait for the window or use the sandbox profile, whose clock moves past a spent window)`,
      );
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
      incomplete,
      ...(w.client.interrupted ? { interrupted: w.client.interrupted } : {}),
      authThrottle: { throttled: w.client.pacer.throttled, waitedMs: Math.round(w.client.pacer.waitedMs) },
      pausedMs: Math.round(w.client.pausedMs),
    };
  };

  await checkKeys(w).catch(setupFinding);
  try {
    if (!findings.length && !bailed() && opts.webhookPort !== undefined && opts.webhookSecret) {
      w.receiver = await startWebhookReceiver(opts.webhookPort, opts.webhookSecret);
      log(`webhook receiver on 127.0.0.1:${opts.webhookPort}`);
    }
    if (!findings.length && !bailed()) {
      if (w.sandbox) await settleSandbox(w, opts).catch(setupFinding);
      else w.suiteStartIso = new Date(Date.now() - 1000).toISOString();
    }
    if (!findings.length && !bailed()) await checkMerchants(w).catch(setupFinding);
    if (findings.length || bailed()) return finish();
    w.client.transcript = [];

    /**
     * Runs one fixed part of the coverage tour; a violation is a finding of the tour. With `setup`
     * (the probes: each needs only the first `setup` commands), the failing command is run again
     * after those alone, and a failure of that short sequence is the one reported.
     */
    const runTour = async (part: string, { commands: cmds, setup }: { commands: Cmd[]; setup?: number }): Promise<void> => {
      w.state.inTour = true;
      try {
        await runCommands(w, cmds, opts);
        commands += w.executed.length;
        log(`${part} passed (${w.executed.length} commands)`);
      } catch (e) {
        abandonRun(w);
        commands += w.executed.length;
        if (e instanceof InterruptedError) return;
        if (firstFindingMs === null) firstFindingMs = performance.now() - started;
        let found = { e, transcript: [...w.client.transcript], commands: [...w.executed], reduced: false };
        const failed = cmds.find((c) => String(c) === w.executed.at(-1));
        if (setup !== undefined && failed && cmds.indexOf(failed) >= setup && !bailed()) {
          try {
            await runCommands(w, [...cmds.slice(0, setup), failed], opts);
          } catch (again) {
            abandonRun(w);
            // an interrupt, a server gone meanwhile, or a failure before the probe (the setup run again
            // on a server the first run changed: a spent A1 window) says nothing of the probe: the first failure stands
            if (!(again instanceof InterruptedError) && !w.client.gone && w.executed.at(-1) === String(failed))
              found = { e: again, transcript: [...w.client.transcript], commands: [...w.executed], reduced: true };
          }
          commands += w.executed.length;
        }
        const f = toFinding(found.e, 'tour', found, keys, opts);
        if (found.reduced) f.shrinking = NOT_SHRUNK.probe;
        findings.push(f);
        log(`${part}: finding`);
      } finally {
        w.state.inTour = false;
      }
    };
    // ---- the tour's first look and its probes first: only they find some faults (the clock moves only past a spent A1 window) ----
    if (opts.path === undefined)
      for (const [part, t] of [
        ['coverage tour, first look', firstLook],
        ['coverage tour probes', probeTour],
      ] as const)
        if (!bailed()) await runTour(part, t(w.contract, opts.profile));
    if (bailed()) return finish();
    // ---- the rest of the coverage tour, a fixed sequence that drives every transition and code, then
    // the scenarios and the retry schedule: before the random search, so that a fault only they show
    // is found without waiting out the search (the search runs on whatever clock they left) ----
    w.state.a1TourCost = tourA1Cost(w.contract, opts.profile);
    if (opts.path === undefined && !bailed()) {
      await runTour('coverage tour', { commands: tourCommands(w.contract, opts.profile) });
      // ---- the sandbox scenarios (ADR-043), after the tour: they move the clock ----
      if (w.sandbox && !bailed()) {
        const scenarios = await tourStep('sandbox scenarios', async () => {
          const n = await checkScenarios(w, paymentWindowSeconds(w.state));
          if (n > 0) log(`sandbox scenarios passed (${n})`);
        });
        if (scenarios === 'interrupted') return finish();
        // ---- the webhook retry schedule (ADR-005), last: it points the endpoint elsewhere for a moment ----
        const retries = bailed()
          ? 'passed'
          : await tourStep('webhook retry schedule', async () => {
              if (retryScheduleCheckable(w)) log('webhook retry schedule: the endpoint points at the suite for a moment');
              const n = await checkRetrySchedule(w);
              if (n > 0) log(`webhook retry schedule passed (${n} attempts)`);
            });
        if (retries === 'interrupted') return finish();
      }
    }
    if (bailed()) return finish();
    // ---- the model-based property (sandbox: past every A1 window the tour left, judged against windows it opens) ----
    // the clock's move that makes room is checked like any other: failing, no search runs on a window it could not clear
    if (
      w.sandbox &&
      (await tourStep('room in the A1 window for the search', () => a1Room(w, 'main', rateLimit(w.state).limit))) !== 'passed'
    )
      return finish();
    let lastFailing: { transcript: Exchange[]; commands: string[] } | undefined;
    // Shrinking is bounded in time from the first failure: once over, every candidate passes at
    // once, so fast-check ends with the smallest failing sequence found so far.
    const shrinkBudgetMs = opts.shrinkTimeMs ?? DEFAULT_SHRINK_TIME_MS;
    let failedAt: number | undefined;
    let shrinkStoppedByTime = false;
    let inFlight: Promise<unknown> | undefined;
    const arbs = commandArbitraries(w.contract, opts.profile);
    let burstsBeforeFailing: number | undefined;
    const property = fc.asyncProperty(
      fc.commands(arbs, { maxCommands: opts.maxCommands ?? 25, size: 'medium', replayPath: opts.replayPath }),
      async (cmds) => {
        if (failedAt !== undefined && performance.now() - failedAt > shrinkBudgetMs) {
          shrinkStoppedByTime = true;
          return;
        }
        // interrupted, or the server stopped answering (the failure that showed it stands): every run passes at once
        if (w.client.interrupted || w.client.gone) return;
        // A shrinking replay gets the rate-limit burst budget the failing run had, so a burst that
        // run made is made again (sandbox: a burst leaves no spent window, RateLimitRecovery).
        if (burstsBeforeFailing !== undefined && w.sandbox) w.state.bursts = burstsBeforeFailing;
        const bursts = w.state.bursts;
        const run = (async () => {
          try {
            await runCommands(w, cmds, opts);
          } catch (e) {
            abandonRun(w);
            if (e instanceof InterruptedError) return;
            lastFailing = { transcript: [...w.client.transcript], commands: [...w.executed] };
            failedAt ??= performance.now();
            burstsBeforeFailing ??= bursts;
            if (firstFindingMs === null) firstFindingMs = performance.now() - started;
            throw e;
          } finally {
            commands += w.executed.length;
          }
        })();
        inFlight = run.catch(() => undefined);
        await run;
      },
    );
    log(`property: ${opts.runs} runs, seed ${opts.seed}${opts.path ? `, path ${opts.path}` : ''}`);
    const details = await fc.check(property, {
      numRuns: opts.runs,
      seed: opts.seed,
      path: opts.path,
      endOnFailure: opts.path !== undefined,
      verbose: 0,
      ...(opts.timeLimitMs ? { interruptAfterTimeLimit: opts.timeLimitMs } : {}),
    });
    // a time limit returns while a run may still be sending: it ends before anything else is sent
    await inFlight;
    if (details.failed && lastFailing) {
      const cex = details.counterexample?.[0] as { toString(): string } | undefined;
      const replayPath = /replayPath="([^"]*)"/.exec(String(cex ?? ''))?.[1];
      const f = toFinding(details.errorInstance, 'property', lastFailing, keys, opts, details.counterexamplePath ?? undefined, replayPath);
      f.shrinking = shrinkNote(details.numShrinks, f.commands.length, shrinkStoppedByTime, shrinkBudgetMs);
      findings.push(f);
      log(`finding after ${details.numRuns} runs and ${details.numShrinks} shrinks`);
    } else log(w.client.interrupted ? `property: interrupted by ${w.client.interrupted}` : `property passed ${details.numRuns} runs`);
  } finally {
    await w.receiver?.close();
    // a server that stopped answering is not asked again; after an interrupt the reset still goes (bounded)
    if (w.sandbox && !w.client.gone) await resetSandbox(w, opts, log);
  }

  return finish();
}

/**
 * A failed run is abandoned: its events are no longer expected, and its late deliveries are not
 * judged by the next run (so a shrunk sequence never depends on an earlier run's state); so are
 * the earlier runs' transactions whose events it expected (e.g. expiries its clock advance caused).
 */
function abandonRun(w: World): void {
  w.state.abandonedRuns.add(w.state.runId);
  for (const x of w.state.expected.splice(0, w.state.expected.length)) w.state.abandonedRuns.add(x.runId);
}

/** One run of a command sequence against a fresh model, judged with the webhooks it caused. */
async function runCommands(w: World, cmds: Iterable<Cmd>, opts: SuiteOptions): Promise<void> {
  w.state.runId++;
  w.client.transcript = [];
  w.executed = [];
  const model: Model = { state: w.state, txs: [], sessions: [] };
  try {
    await fc.asyncModelRun(() => ({ model, real: w }), cmds);
  } finally {
    opts.onRun?.(w.executed);
  }
  await webhookCheckpoint(w, opts.webhookGraceMs ?? 150, opts.webhookTimeoutMs);
}

function toFinding(
  e: unknown,
  phase: Finding['phase'],
  run: { transcript: Exchange[]; commands: string[] },
  keys: { apiKey: string; otherApiKey: string; baseUrl: string },
  opts: SuiteOptions,
  path?: string,
  replayPath?: string,
): Finding {
  const ce = e instanceof ConformanceError ? e : undefined;
  const message = ce ? ce.message : `unexpected error: ${(e as Error)?.stack ?? String(e)}`;
  const base = `paylater conform --base-url ${opts.baseUrl} --api-key $API_KEY --other-api-key $OTHER_API_KEY --variant ${opts.variant} --profile ${opts.profile} --seed ${opts.seed}`;
  const replay =
    phase === 'property'
      ? `${base}${path ? ` --path ${path}` : ''}${replayPath ? ` --replay-path ${replayPath}` : ''}`
      : `${base} (${phase === 'setup' ? 'found before the search starts' : 'coverage tour'})`;
  return {
    ...(phase === 'tour' || phase === 'setup' ? { shrinking: NOT_SHRUNK[phase] } : {}),
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
