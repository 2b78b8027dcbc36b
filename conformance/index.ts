/**
 * The conformance suite's programmatic API, for an implementer's own test runner:
 *
 *   import { runConformance } from 'paylater-contract/conformance';
 *   const result = await runConformance({ baseUrl, apiKey, otherApiKey });
 *   expect(result.findings).toEqual([]);
 *
 * Black-box like `paylater conform` (which calls it): HTTP and the contract only. It never exits
 * the process; a setup problem (server unreachable, a key refused) rejects with `SetupError`,
 * the one line `paylater conform` prints before exiting with 2.
 */
import { EXIT } from '../lib/commands.ts';
import { runSuite, type SuiteResult } from './run.ts';

export { EXIT } from '../lib/commands.ts';

export { SetupError } from './http.ts';
export { baselineOf, findingKey, judgeByBaseline, readBaseline, writeBaseline } from './baseline.ts';
export type { Baseline, BaselineEntry, Judged } from './baseline.ts';
export type { Finding } from '../judge/report.ts';
export type { Coverage } from './coverage.ts';
export type { SuiteResult } from './run.ts';
export { printSummary } from './summary.ts';

/** Runs of the model-based property when not told. */
export const DEFAULT_RUNS = 30;
/** Commands per run when not told. */
export const DEFAULT_MAX_COMMANDS = 25;

export interface ConformanceOptions {
  /** The implementation under test, e.g. `http://127.0.0.1:4010`. */
  baseUrl: string;
  /** A test API key of one merchant, and one of another merchant of the same variant (ownership checks). */
  apiKey: string;
  otherApiKey: string;
  /** Default 1. */
  variant?: 1 | 2;
  /** `core` (default): any implementation; `sandbox`: also the x-sandbox operations (clock, pay step). */
  profile?: 'core' | 'sandbox';
  /** Default `DEFAULT_RUNS`. */
  runs?: number;
  /** Default: a random seed, reported in the result (pass it back to replay a run). */
  seed?: number;
  /** fast-check path of a failing run, with `seed`, to replay it alone. */
  path?: string;
  /** fast-check commands replay path, printed with a finding. */
  replayPath?: string;
  /** Default `DEFAULT_MAX_COMMANDS`. */
  maxCommands?: number;
  /** The server's payment window in seconds (default: the contract's, `x-state-machine` `paymentWindow`). */
  paymentWindowSeconds?: number;
  /** Receive and judge webhooks on 127.0.0.1:`port`, signed with `secret` (the merchant's whsec_ secret). */
  webhooks?: { port: number; secret: string };
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Bounds the property (runs and shrinking) in wall time (ms). */
  timeLimitMs?: number;
  /** End the run at its first finding (after shrinking it); the later phases are skipped. Default false. */
  bail?: boolean;
  /** A request unanswered this long (ms) is a finding that ends the run. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Interrupts the run when aborted, its reason naming the signal ('SIGINT', 'SIGTERM'): the request
   * in flight is abandoned, what the run changed on the server is restored, and the result reports
   * the findings so far with `interrupted` set.
   */
  signal?: AbortSignal;
}

export interface ConformanceResult extends SuiteResult {
  /**
   * What `paylater conform` exits with: 130 or 143 when interrupted by SIGINT or SIGTERM; else 1 with
   * findings; 3 without, when the run could not exercise everything; else 0.
   */
  exitCode: (typeof EXIT)['clean' | 'findings' | 'incomplete' | 'sigint' | 'sigterm'];
}

/** A seed for a run that was not given one. */
export function randomSeed(): number {
  return (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const result = await runSuite({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    otherApiKey: options.otherApiKey,
    variant: options.variant ?? 1,
    profile: options.profile ?? 'core',
    runs: options.runs ?? DEFAULT_RUNS,
    seed: options.seed ?? randomSeed(),
    path: options.path,
    replayPath: options.replayPath,
    maxCommands: options.maxCommands ?? DEFAULT_MAX_COMMANDS,
    paymentWindowSeconds: options.paymentWindowSeconds,
    webhookPort: options.webhooks?.port,
    webhookSecret: options.webhooks?.secret,
    log: options.log,
    timeLimitMs: options.timeLimitMs,
    bail: options.bail,
    requestTimeoutMs: options.requestTimeoutMs,
    signal: options.signal,
  });
  const exitCode =
    result.interrupted !== undefined
      ? result.interrupted === 'SIGTERM'
        ? EXIT.sigterm
        : EXIT.sigint
      : result.findings.length
        ? EXIT.findings
        : result.incomplete.length
          ? EXIT.incomplete
          : EXIT.clean;
  return { ...result, exitCode };
}
