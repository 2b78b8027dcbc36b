/**
 * `paylater conform`: runs the conformance suite against any server over HTTP.
 * Exit codes: see EXIT below (printed by --help).
 */
import { parseArgs } from 'node:util';
import { stateMachine } from '../generated/index.ts';
import { DEFAULT_MAX_COMMANDS, DEFAULT_RUNS, EXIT, randomSeed, runConformance } from './index.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../lib/commands.ts';
import { SetupError } from './http.ts';
import { baselineOf, judgeByBaseline, readBaseline, writeBaseline, type Judged } from './baseline.ts';
import { writeJson, writeJunit } from '../judge/report.ts';
import { printSummary } from './summary.ts';

export { DEFAULT_RUNS, EXIT } from './index.ts';
export { printSummary } from './summary.ts';

const USAGE =
  'usage: paylater conform --base-url URL --api-key KEY --other-api-key KEY2 [--variant 1|2] [--profile core|sandbox] [--runs N] [--seed S] [--path P] [--replay-path R] [--max-commands N] [--payment-window SECONDS] [--webhook-port P --webhook-secret SECRET] [--timeout SECONDS] [--bail] [--baseline FILE] [--write-baseline FILE] [--report-json FILE] [--report-junit FILE] [--quiet]';

/** --help: every option with its default, the exit codes and two examples. */
export const HELP = `${USAGE}

Runs the conformance suite (the coverage tour: the probes of every schema boundary, then every
transition, declared error code and time rule; then a model-based random search) against any
implementation of the contract, over HTTP only.

Options:
  --base-url URL            the API's base URL, e.g. http://127.0.0.1:3000 (required)
  --api-key KEY             a test key of merchant A (required)
  --other-api-key KEY2      a test key of merchant B, another merchant of the same variant (required)
  --variant 1|2             the contract variant both keys belong to (default: 1)
  --profile core|sandbox    core: the public operations only; sandbox: also the x-sandbox endpoints
                            (customer actions, clock, payment of a session) (default: core)
  --runs N                  random command sequences tried by the search (default: ${DEFAULT_RUNS})
  --seed S                  seed of the search; printed by every run, to repeat it (default: random)
  --path P                  with --seed, replays the one shrunk sequence a finding printed (default: none)
  --replay-path R           fast-check's replay path of the commands, printed with a finding (default: none)
  --max-commands N          longest random sequence (default: ${DEFAULT_MAX_COMMANDS})
  --payment-window SECONDS  the server's payment window (default: the x-state-machine default, ${stateMachine.paymentWindow.defaultSeconds})
  --webhook-port P          port the suite's webhook receiver listens on (127.0.0.1); merchant A's
                            webhook URL must point at it (default: no receiver, webhooks not checked)
  --webhook-secret SECRET   merchant A's webhook signing secret (whsec_…); goes with --webhook-port
  --timeout SECONDS         a request unanswered this long is a finding, and the run ends there:
                            the server stopped answering (default: ${DEFAULT_REQUEST_TIMEOUT_MS / 1000})
  --bail                    ends the run at its first finding (shrunk as usual), skipping the later
                            phases: a quick red while fixing one fault at a time (default: off)
  --baseline FILE           findings recorded in FILE (by --write-baseline) are known: printed in one
                            line each, skipped in JUnit, not failing the run; only new ones fail it.
                            Entries the run did not meet are listed, to remove (default: none)
  --write-baseline FILE     records this run's findings in FILE, keyed by rule, operation and JSON
                            path (stable across seeds and runs); the run then exits 0 unless
                            --baseline is given too (default: none)
  --report-json FILE        writes the result and every finding (with its curl script) as JSON
  --report-junit FILE       writes a JUnit XML report (one failed test case per finding; with
                            --baseline, a skipped one per known finding, with the reason)
  --quiet                   prints the summary only
  --help                    prints this text

Exit codes:
  ${EXIT.clean}  no finding, and every rule of the profile was exercised; with --baseline, no new
     finding; with --write-baseline alone, the findings were recorded
  ${EXIT.findings}  at least one finding (a contract violation, from the first request on), with
     --baseline one it does not know; reports written
  ${EXIT.setup}  the run could not start: server unreachable, a key rejected, the two keys of one
     merchant or of two variants, a busy --webhook-port, an unreadable --baseline, or a
     bad option (one line on stderr, no report)
  ${EXIT.incomplete}  no finding, but the run is incomplete (core profile): what it could not exercise is
     listed, e.g. A1 answered 429 because an earlier run spent the rate-limit window
  ${EXIT.sigint}  interrupted by SIGINT (Ctrl-C): the request in flight is abandoned, the webhook endpoint
       and the sandbox clock are set back, the findings so far are printed and written; a second
       signal exits at once
  ${EXIT.sigterm}  interrupted by SIGTERM, the same way

A server enforcing the contract's failed-authentication throttle (x-auth-failure-limit, ADR-027)
needs no switch: once it answers 429 AUTH_THROTTLED, the suite waits its Retry-After, sends the
request again and from then on paces its wrong-credential probes under the limit.

Examples:
  paylater conform --base-url http://127.0.0.1:3000 --api-key "$KEY_A" --other-api-key "$KEY_B" \
    --variant 2 --report-junit conform.xml
  paylater conform --base-url http://127.0.0.1:3000 --api-key "$KEY_A" --other-api-key "$KEY_B" \
    --profile sandbox --webhook-port 4400 --webhook-secret "$WHSEC_A" --seed 42 --report-json conform.json
`;

export async function runConform(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  err: (s: string) => void = (s) => process.stderr.write(s + '\n'),
): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'other-api-key': { type: 'string' },
        variant: { type: 'string', default: '1' },
        profile: { type: 'string', default: 'core' },
        runs: { type: 'string' },
        seed: { type: 'string' },
        path: { type: 'string' },
        'replay-path': { type: 'string' },
        'max-commands': { type: 'string' },
        'payment-window': { type: 'string' },
        'webhook-port': { type: 'string' },
        'webhook-secret': { type: 'string' },
        timeout: { type: 'string' },
        'report-json': { type: 'string' },
        'report-junit': { type: 'string' },
        baseline: { type: 'string' },
        'write-baseline': { type: 'string' },
        bail: { type: 'boolean' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (e) {
    err(`paylater conform: ${(e as Error).message}. ${USAGE}`);
    return EXIT.setup;
  }
  if (values.help) {
    out(HELP);
    return EXIT.clean;
  }
  const int = (name: string, v: string | boolean | undefined, def: number): number => {
    if (v === undefined) return def;
    if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw new SetupError(`--${name} must be an integer`);
    return Number(v);
  };
  try {
    const baseUrl = values['base-url'] as string | undefined;
    const apiKey = values['api-key'] as string | undefined;
    const otherApiKey = values['other-api-key'] as string | undefined;
    if (!baseUrl || !apiKey || !otherApiKey) throw new SetupError(`--base-url, --api-key and --other-api-key are required. ${USAGE}`);
    if (!/^https?:\/\//.test(baseUrl)) throw new SetupError(`--base-url must be an http(s) URL, got ${baseUrl}`);
    const variant = values.variant === '1' ? 1 : values.variant === '2' ? 2 : undefined;
    if (!variant) throw new SetupError('--variant must be 1 or 2');
    const profile = values.profile === 'core' || values.profile === 'sandbox' ? values.profile : undefined;
    if (!profile) throw new SetupError('--profile must be core or sandbox');
    const webhookPort = values['webhook-port'] === undefined ? undefined : int('webhook-port', values['webhook-port'], 0);
    const webhookSecret = values['webhook-secret'] as string | undefined;
    if ((webhookPort === undefined) !== (webhookSecret === undefined))
      throw new SetupError('--webhook-port and --webhook-secret go together');
    const seed = int('seed', values.seed, randomSeed());
    const timeout = int('timeout', values.timeout, DEFAULT_REQUEST_TIMEOUT_MS / 1000);
    if (timeout < 1) throw new SetupError('--timeout must be at least 1 second');
    const baselineFile = values.baseline as string | undefined;
    const writeBaselineFile = values['write-baseline'] as string | undefined;
    // read before the run: a damaged baseline is refused at once, naming the file
    const baseline = baselineFile === undefined ? undefined : readBaseline(baselineFile);
    const log = values.quiet ? () => {} : out;
    log(`paylater conform: ${baseUrl}, variant ${variant}, profile ${profile}, seed ${seed}`);
    const result = await whileInterruptible(err, (signal) =>
      runConformance({
        baseUrl,
        apiKey,
        otherApiKey,
        variant,
        profile,
        runs: int('runs', values.runs, DEFAULT_RUNS),
        seed,
        path: values.path as string | undefined,
        replayPath: values['replay-path'] as string | undefined,
        maxCommands: int('max-commands', values['max-commands'], DEFAULT_MAX_COMMANDS),
        paymentWindowSeconds: values['payment-window'] === undefined ? undefined : int('payment-window', values['payment-window'], 0),
        webhooks: webhookPort !== undefined && webhookSecret !== undefined ? { port: webhookPort, secret: webhookSecret } : undefined,
        bail: values.bail === true,
        log,
        requestTimeoutMs: timeout * 1000,
        signal,
      }),
    );
    const judged: Judged | undefined = baseline && baselineFile ? judgeByBaseline(result.findings, baseline, baselineFile) : undefined;
    printSummary(result, out, judged && baselineFile ? { file: baselineFile, judged } : undefined);
    if (values['report-json'])
      writeJson(
        values['report-json'] as string,
        judged
          ? {
              ...result,
              baseline: {
                file: baselineFile,
                new: judged.fresh.map((f) => f.key),
                known: judged.known.map((k) => ({ key: k.finding.key, reason: k.reason })),
                resolved: judged.resolved,
              },
            }
          : result,
      );
    if (values['report-junit'])
      writeJunit(
        values['report-junit'] as string,
        `paylater conform v${variant} ${profile}`,
        result.checks,
        judged ? judged.fresh : result.findings,
        result.durationMs / 1000,
        judged?.known,
      );
    if (writeBaselineFile !== undefined) {
      if (result.interrupted !== undefined)
        out(`baseline not written: the run was interrupted (${result.interrupted}), its findings are not all of them`);
      else {
        const b = baselineOf(result.findings, `paylater conform --variant ${variant} --profile ${profile} --seed ${seed}`);
        writeBaseline(writeBaselineFile, b);
        out(
          `baseline: ${b.entries.length} entr${b.entries.length === 1 ? 'y' : 'ies'} (${result.findings.length} finding(s)) written to ${writeBaselineFile}; later runs with --baseline ${writeBaselineFile} fail only on new findings`,
        );
      }
    }
    if (result.interrupted !== undefined) return result.exitCode;
    if (judged) return judged.fresh.length ? EXIT.findings : result.findings.length ? EXIT.clean : result.exitCode;
    if (writeBaselineFile !== undefined && result.findings.length) return EXIT.clean;
    return result.exitCode;
  } catch (e) {
    if (e instanceof SetupError) {
      err(`paylater conform: ${e.message}`);
      return EXIT.setup;
    }
    throw e;
  }
}

/**
 * Runs `run` with SIGINT and SIGTERM turned into an abort of its signal (the run winds down: the
 * request in flight abandoned, the server's state set back, the summary printed); a second signal
 * exits at once. The handlers are removed when `run` settles.
 */
async function whileInterruptible<T>(err: (s: string) => void, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) {
      err(`paylater conform: ${sig} again: exiting now`);
      process.exit(sig === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint);
    }
    err(`paylater conform: ${sig}: stopping (setting the server back, then the summary); ${sig} again exits at once`);
    ac.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await run(ac.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
