/**
 * `paylater judge FILE.har`: recorded traffic judged offline by the one judge (judge/ `createJudge`)
 * `paylater proxy` and `paylater conform` use, reported as they report (text, --report-json,
 * --report-junit) with `paylater conform`'s exit codes; `--replay --base-url URL` sends the recorded
 * operations again to another server and judges the new answers, each also compared with its
 * recorded one (replay.ts).
 */
import { stateMachine } from '../generated/index.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, EXIT, integers, parseCommand } from '../lib/commands.ts';
import { jsonOf } from '../lib/json.ts';
import { createJudge, DEFAULT_CLOCK_TOLERANCE_MS, DEFAULT_MAX_TRANSACTIONS, type Exchange, type NamedExchange } from '../judge/index.ts';
import { defaultWebhookWindowMs } from '../judge/events.ts';
import { apiOrigins, judgeRecorded, operationOf, type RecordedOptions } from '../judge/recorded.ts';
import { writeJson } from '../judge/report.ts';
import { harOf } from '../proxy/har.ts';
import { HarError, readHar } from './har.ts';
import {
  coverageLines,
  deliveryExchange,
  findingLines,
  maskedExchange,
  MAX_FINDINGS,
  reportFinding,
  writeReports,
} from '../judge/ear-report.ts';
import { readMerchantKeys, replay, type ReplayResult } from './replay.ts';

const USAGE =
  'usage: paylater judge FILE.har [--variant 1|2] [--sole-client] [--payment-window SECONDS] [--clock-tolerance MS] [--max-transactions N] [--webhook-window MS] [--report-json FILE] [--report-junit FILE] [--quiet] [--replay --base-url URL [--merchants FILE] [--keep-pace] [--timeout SECONDS] [--har FILE]]';

export const HELP = `${USAGE}

Judges recorded traffic offline with the one judge paylater proxy and paylater conform use: each
exchange against the contract, and the transactions, sessions, lists and sandbox clock across them,
per merchant; the webhook deliveries it holds (paylater proxy --har keeps those it forwarded)
against AsyncAPI (not their signatures: masked) and the transitions the exchanges showed. FILE is
HAR 1.2 (or 1.1) as browsers' devtools ("Save all as HAR with content"), Playwright's recordHar
(embedded bodies, or a .zip with attached ones), mitmproxy, k6 Studio and paylater proxy --har
write it. Entries are judged in the order they ended, a transition whose event did not come within
the window as the recording's time passes; those of hosts no operation was sent to, and those no
operation describes (pages, scripts), are counted, not judged. Masked credentials (MASKED_…, as
paylater proxy --har writes them) still tell merchants apart: no key is needed to judge.

With --replay, the recorded requests that are operations are sent again to --base-url, one at a
time in the order they started, with what the new server hands out (transaction ids, session
tokens, payment intent ids, cursors) put in place of what the recording's server did, and each
vendorReference redrawn. The new answers are judged, and each is compared with its recorded one by
meaning (status, error code, the JSON; instants and server-made values not compared): a difference
is a "replay" finding naming both exchanges.

Options:
  --variant 1|2             hold every key to this variant (default: each key's variant is learned,
                            as paylater proxy does)
  --sole-client             the recording holds every call made with its keys (a test run): an
                            effect on a merchant's sandbox no call it holds explains is a finding,
                            and a test key's sandbox clock is followed by its answers (ADR-087;
                            --replay: the replay is the new server's sole client)
  --payment-window SECONDS  the recorded server's payment window (default: the x-state-machine default, ${stateMachine.paymentWindow.defaultSeconds})
  --clock-tolerance MS      how far the server's clock may be from the recording's (default: ${DEFAULT_CLOCK_TOLERANCE_MS})
  --max-transactions N      transactions remembered; past it the oldest is dropped first (default: ${DEFAULT_MAX_TRANSACTIONS})
  --webhook-window MS       how long after a transition its event may come, when the recording holds
                            deliveries (default: ${defaultWebhookWindowMs()}, as paylater proxy's)
  --report-json FILE        writes the report (coverage, findings with their exchanges and curl scripts) as JSON
  --report-junit FILE       writes a JUnit XML report (one failed test case per finding)
  --quiet                   the first 20 findings in short (no exchanges, no curl script), then the summary
  --replay                  replays the recorded operations against --base-url (needs it)
  --base-url URL            the server to replay against, e.g. http://127.0.0.1:3000
  --merchants FILE          the merchants file of paylater serve --merchants: each masked key of the
                            recording is sent as the key of FILE whose mask it is (a recording with
                            keys in clear needs none)
  --keep-pace               waits between requests as long as the recording did (default: no wait)
  --timeout SECONDS         a replayed request unanswered this long is a finding (default: ${DEFAULT_REQUEST_TIMEOUT_MS / 1000})
  --har FILE                writes the replayed exchanges as HAR 1.2, masked
  --help                    prints this text

Exit codes:
  ${EXIT.clean}  no finding
  ${EXIT.findings}  at least one finding; reports written
  ${EXIT.setup}  a bad option, a file that is not a HAR (named, with the reason), a masked key not in
     --merchants, or a replay server that does not answer

Examples:
  paylater judge checkout.har --report-junit judge.xml
  paylater judge proxy.har --replay --base-url http://127.0.0.1:3000 --merchants merchants.json --har replay.har
`;

export const OPTIONS = {
  variant: { type: 'string' },
  'sole-client': { type: 'boolean' },
  'payment-window': { type: 'string' },
  'clock-tolerance': { type: 'string' },
  'max-transactions': { type: 'string' },
  'webhook-window': { type: 'string' },
  'report-json': { type: 'string' },
  'report-junit': { type: 'string' },
  quiet: { type: 'boolean' },
  replay: { type: 'boolean' },
  'base-url': { type: 'string' },
  merchants: { type: 'string' },
  'keep-pace': { type: 'boolean' },
  timeout: { type: 'string' },
  har: { type: 'string' },
  help: { type: 'boolean' },
} as const;

/** The named form of an exchange (its operation named, its answer parsed), for reports. */
const suiteForm = (x: Exchange): NamedExchange => ({
  ...x,
  opId: operationOf(x) ?? `${x.method} ${new URL(x.url).pathname}`,
  json: jsonOf(x.responseText),
});

export async function runJudge(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  err: (s: string) => void = (s) => process.stderr.write(s + '\n'),
): Promise<number> {
  const parsed = parseCommand('paylater judge', argv, { options: OPTIONS, usage: USAGE, help: HELP, positionals: true }, out, err);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals: files, fail } = parsed;
  if (files.length !== 1) return fail(`one HAR file, please. ${USAGE}`);
  const file = files[0]!;
  const nums = integers(values, [
    ['payment-window', 1],
    ['clock-tolerance', 0],
    ['max-transactions', 1],
    ['webhook-window', 1],
    ['timeout', 1],
  ]);
  if (typeof nums === 'string') return fail(nums);
  const variant = values.variant === '1' ? 1 : values.variant === '2' ? 2 : undefined;
  if (values.variant !== undefined && !variant) return fail('--variant must be 1 or 2');
  const baseUrl = values['base-url'] as string | undefined;
  if (values.replay && (!baseUrl || !/^https?:\/\/[^/]/.test(baseUrl))) return fail('--replay needs --base-url, an http(s) URL');
  for (const name of ['base-url', 'merchants', 'keep-pace', 'timeout', 'har'] as const)
    if (values[name] !== undefined && !values.replay) return fail(`--${name} goes with --replay`);
  const started = Date.now();
  try {
    const har = readHar(file);
    const options: RecordedOptions = {
      variant,
      soleClient: values['sole-client'] === true,
      paymentWindowSeconds: nums['payment-window'],
      clockToleranceMs: nums['clock-tolerance'],
      maxTransactions: nums['max-transactions'],
      webhookWindowMs: nums['webhook-window'],
    };
    const judged = await judgeRecorded(har, options);
    let findings = judged.findings;
    const held = new Map<number, NamedExchange>([
      ...har.exchanges.map((x) => [x.seq, suiteForm(x)] as const),
      ...har.deliveries.map((d) => [d.seq, deliveryExchange(d, d.url, d.status)] as const),
    ]);
    let upstream = [...apiOrigins(har.exchanges)][0] ?? '';
    let replayed: ReplayResult | undefined;
    let coverage = judged.judge.coverage();
    if (values.replay) {
      const keys = values.merchants === undefined ? new Map<string, string>() : readMerchantKeys(values.merchants as string);
      const { webhookWindowMs: _window, ...judgeOptions } = options;
      const judge = createJudge({ ...judgeOptions, timeOrigin: 0 });
      replayed = await replay(
        judged.exchanges.flatMap((x) => {
          const opId = operationOf(x);
          return opId ? [{ ...x, opId }] : [];
        }),
        {
          baseUrl: baseUrl!,
          keys,
          keepPace: values['keep-pace'] === true,
          timeoutMs: (nums.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS / 1000) * 1000,
          firstSeq: har.exchanges.length + har.deliveries.length + 1,
          judge: (x) => judge.exchange(x),
        },
        file,
      );
      // the report is the replay's: the new server's findings and coverage, the recorded exchanges beside them
      findings = replayed.findings;
      coverage = judge.coverage();
      upstream = baseUrl!.replace(/\/$/, '');
      for (const x of replayed.exchanges) held.set(x.seq, suiteForm(x));
      if (values.har)
        writeJson(
          values.har as string,
          harOf(
            replayed.exchanges.map((x) => maskedExchange(x.seq, suiteForm(x), [], 0)),
            'paylater judge --replay',
          ),
        );
    }
    const list = findings
      .slice(0, MAX_FINDINGS)
      .map((f, i) => reportFinding(f, i + 1, held, { upstream, secrets: [], ear: 'the recording holds', timeOrigin: 0 }));
    if (values.quiet) findingLines(list, findings.length).forEach((l) => out(l));
    else
      for (const f of list) {
        out(`\n--- finding ${f.n} (${f.kind}): ${f.operation} ${f.jsonPath}`);
        out(f.message);
        if (f.expected !== undefined || f.actual !== undefined)
          out(`expected: ${JSON.stringify(f.expected)}\nactual:   ${JSON.stringify(f.actual)}`);
        out(`exchanges:\n  ${f.exchanges.map((e) => `#${e.n} ${e.method} ${e.url} -> ${e.status}`).join('\n  ')}`);
        if (f.curl) out(`curl script:\n${f.curl}`);
      }
    const counts = {
      entries: har.exchanges.length + har.deliveries.length + har.unanswered.length,
      deliveries: har.deliveries.length,
      judged: (replayed ?? judged).exchanges.length - coverage.unrouted,
      notOperations: coverage.unrouted,
      otherHosts: judged.otherHosts,
      unanswered: har.unanswered.length,
    };
    out(
      `\n${file} (${har.creator}): ${counts.entries} entries: ${counts.judged} operations judged, ${counts.notOperations} not an operation, ${counts.deliveries} webhook deliveries, ${counts.otherHosts} of other hosts, ${counts.unanswered} without an answer${replayed ? `; replayed ${replayed.exchanges.length} against ${baseUrl} (${replayed.filler} with a filler body the recording did not keep, not compared; ${replayed.notReplayed} not replayed: a body of unknown size), ${replayed.substitutions} values substituted` : ''}; ${findings.length} finding(s)`,
    );
    coverageLines(coverage).forEach((l) => out(l));
    const exitCode = findings.length ? EXIT.findings : EXIT.clean;
    writeReports(
      { json: values['report-json'] as string | undefined, junit: values['report-junit'] as string | undefined },
      {
        tool: 'paylater judge',
        file,
        creator: har.creator,
        variant: variant ?? 'per key',
        ...counts,
        replay: replayed && {
          baseUrl,
          replayed: replayed.exchanges.length,
          filler: replayed.filler,
          notReplayed: replayed.notReplayed,
          substitutions: replayed.substitutions,
        },
        findings: findings.length,
        exitCode,
        coverage,
        findingList: list,
        findingsNotListed: findings.length - list.length,
      },
      {
        tool: 'paylater judge',
        findings: list,
        name: `paylater judge ${file}${replayed ? ` --replay ${baseUrl}` : ''}`,
        checks: counts.judged,
        seconds: (Date.now() - started) / 1000,
      },
    );
    return exitCode;
  } catch (e) {
    if (e instanceof HarError) return fail(e.message);
    throw e;
  }
}
