/**
 * `paylater conform`: runs the conformance suite against any server over HTTP.
 * Exit 0: no findings; 1: findings; 2: a usage or setup error, said in one line.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_COMMANDS, DEFAULT_RUNS, randomSeed, runConformance } from './index.ts';
import { SetupError } from './http.ts';
import { writeJson, writeJunit } from './report.ts';
import { printSummary } from './summary.ts';

export { DEFAULT_RUNS } from './index.ts';
export { printSummary } from './summary.ts';

const USAGE = 'usage: paylater conform --base-url URL --api-key KEY --other-api-key KEY2 [--variant 1|2] [--profile core|sandbox] [--runs N] [--seed S] [--path P] [--replay-path R] [--max-commands N] [--payment-window SECONDS] [--webhook-port P --webhook-secret SECRET] [--report-json FILE] [--report-junit FILE] [--quiet]';

export async function runConform(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s + '\n'), err: (s: string) => void = (s) => process.stderr.write(s + '\n')): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'other-api-key': { type: 'string' },
        variant: { type: 'string', default: '1' }, profile: { type: 'string', default: 'core' }, runs: { type: 'string' },
        seed: { type: 'string' }, path: { type: 'string' }, 'replay-path': { type: 'string' }, 'max-commands': { type: 'string' },
        'payment-window': { type: 'string' }, 'webhook-port': { type: 'string' }, 'webhook-secret': { type: 'string' },
        'report-json': { type: 'string' }, 'report-junit': { type: 'string' }, quiet: { type: 'boolean' }, help: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (e) {
    err(`paylater conform: ${(e as Error).message}. ${USAGE}`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
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
    if ((webhookPort === undefined) !== (webhookSecret === undefined)) throw new SetupError('--webhook-port and --webhook-secret go together');
    const seed = int('seed', values.seed, randomSeed());
    const log = values.quiet ? () => {} : out;
    log(`paylater conform: ${baseUrl}, variant ${variant}, profile ${profile}, seed ${seed}`);
    const result = await runConformance({
      baseUrl, apiKey, otherApiKey, variant, profile,
      runs: int('runs', values.runs, DEFAULT_RUNS),
      seed,
      path: values.path as string | undefined,
      replayPath: values['replay-path'] as string | undefined,
      maxCommands: int('max-commands', values['max-commands'], DEFAULT_MAX_COMMANDS),
      paymentWindowSeconds: values['payment-window'] === undefined ? undefined : int('payment-window', values['payment-window'], 0),
      webhooks: webhookPort !== undefined && webhookSecret !== undefined ? { port: webhookPort, secret: webhookSecret } : undefined,
      log,
    });
    printSummary(result, out);
    if (values['report-json']) writeJson(values['report-json'] as string, result);
    if (values['report-junit']) writeJunit(values['report-junit'] as string, `paylater conform v${variant} ${profile}`, result.checks, result.findings, result.durationMs / 1000);
    return result.exitCode;
  } catch (e) {
    if (e instanceof SetupError) {
      err(`paylater conform: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
