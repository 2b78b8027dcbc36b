/**
 * `paylater proxy`: the contract judged on live traffic. Sits in front of any implementation,
 * forwards everything unchanged, judges every exchange and the transactions' states across them,
 * and, with the webhook options, sits between the server's webhook sender and the merchant's receiver.
 */
import { stateMachine } from '../generated/index.ts';
import { integers, parseCommand } from '../lib/commands.ts';
import { DEFAULT_CAPTURE_BYTES, REPORT_PATH, startLiveProxy, type LiveProxy } from './server.ts';
import { RING_BODY_CHARS } from './ring.ts';
import { defaultWebhookWindowMs } from '../judge/events.ts';
import { DEFAULT_CLOCK_TOLERANCE_MS, DEFAULT_MAX_TRANSACTIONS } from '../judge/index.ts';

const USAGE =
  'usage: paylater proxy --upstream URL [--variant 1|2] [--sole-client] [--port P] [--host H] [--report-json FILE] [--report-junit FILE] [--har FILE] [--webhook-listen PORT --webhook-forward-to URL --webhook-secret SECRET [--webhook-window MS]] [--payment-window SECONDS] [--clock-tolerance MS] [--max-transactions N] [--capture-bytes N] [--keep-exchanges N] [--keep-body-chars N] [--quiet]';

export const HELP = `${USAGE}

Forwards every request to the upstream implementation unchanged (bodies streamed, keep-alive,
every header but the hop-by-hop ones; Host becomes the upstream's) and, once each answer has gone
back, hands a copy of the exchange to the one judge paylater conform and paylater judge use:
  - each exchange against the contract: status declared for the operation, content type, body and
    header schemas, error code allowed for the status, the answer against its request;
  - the transactions, sessions, lists and sandbox clock across exchanges, per merchant (a digest of
    its key): a status no transition reaches, a read contradicting an earlier answer,
    createdAt/updatedAt rules, a vendorReference reused and answered 201, a 404 for the merchant's
    own transaction, a 200 showing another merchant's transaction, an expiry before or after the
    payment window (time only as the traffic shows it: the sandbox clock's answers, Date headers,
    the interval from a request's start to its answer's end);
  - with the webhook options, every event: signature (Standard Webhooks), payload (AsyncAPI),
    matched to a transition it saw; an event no transition explains, or a transition whose event
    did not come within the delivery window (a test key's with --sole-client only), is a
    finding. Events are forwarded unchanged.
Keys, session tokens and secrets never appear in clear in a report or a log (MASKED_<digest>).

Options:
  --upstream URL            the implementation, e.g. http://127.0.0.1:3000 (required)
  --variant 1|2             hold every key to this variant (default: each key's variant is learned
                            from its first answer only one variant's contract accepts; a key
                            answering later in the other variant's shape is a finding, ADR-070)
  --sole-client             every call made with the keys passes through the proxy (a test run):
                            an effect on a merchant's sandbox no call it saw explains is a finding
                            (a record cancelled, a fault rule set, an endpoint changed by no call
                            of that merchant; ADR-087), and a test key's sandbox clock is followed
                            by its answers. Without it the proxy never assumes it saw every call:
                            another client may move a test key's clock at any moment
  --port P                  port the proxy listens on (default: 8080; 0 picks a free one)
  --host H                  address the proxy listens on (default: 127.0.0.1)
  --report-json FILE        on SIGINT/SIGTERM, writes the report (coverage, findings with their
                            exchanges and curl scripts) as JSON
  --report-junit FILE       on SIGINT/SIGTERM, writes a JUnit XML report (one failed case per finding)
  --har FILE                on SIGINT/SIGTERM, writes the exchanges still held (--keep-exchanges) as HAR 1.2,
                            masked (paylater judge reads it back, or replays it)
  --webhook-listen PORT     port receiving the upstream's webhook deliveries (point the merchant's
                            webhook URL at it); needs the two options below
  --webhook-forward-to URL  the merchant's real receiver: each delivery is forwarded unchanged and
                            its answer returned to the sender
  --webhook-secret SECRET   the merchant's signing secret (whsec_…), to verify signatures
  --webhook-window MS       how long after a transition its event may come (default: ${defaultWebhookWindowMs()},
                            x-webhook-delivery's first attempt, its timeout and the first retry)
  --payment-window SECONDS  the upstream's payment window (default: the x-state-machine default, ${stateMachine.paymentWindow.defaultSeconds})
  --clock-tolerance MS      how far the upstream's clock may be from the proxy's (default: ${DEFAULT_CLOCK_TOLERANCE_MS})
  --max-transactions N      transactions remembered; past it the oldest is dropped first
                            (default: ${DEFAULT_MAX_TRANSACTIONS}; about 0.3 KiB each, see docs/traffic.md)
  --capture-bytes N         most of a body copied for judging; a longer one is forwarded whole and
                            judged on its status only (default: ${DEFAULT_CAPTURE_BYTES})
  --keep-exchanges N        recent exchanges held for findings' curl scripts and the HAR (default: 1000)
  --keep-body-chars N       most characters of each body they keep; a longer one is left out of the
                            HAR, its size kept (default: ${RING_BODY_CHARS}: a HAR to judge offline
                            holds the bodies the proxy judged with --capture-bytes)
  --quiet                   no line per finding while running; the summary only
  --help                    prints this text

The live report: GET ${REPORT_PATH} on the proxy's port (JSON; the one path never forwarded).

Exit codes (on SIGINT/SIGTERM):
  0  no finding
  1  at least one finding; report files written
  2  the proxy could not start: a bad option, a port in use

Example (a staging run: the partner's tests go to :8080 instead of the server's :3000):
  paylater proxy --upstream http://127.0.0.1:3000 --variant 1 --port 8080 \\
    --webhook-listen 8081 --webhook-forward-to http://127.0.0.1:4000/hooks --webhook-secret "$WHSEC" \\
    --report-json proxy.json --report-junit proxy.xml --har proxy.har
`;

/** The options `paylater proxy` takes (each documented in HELP; a test holds them together). */
export const OPTIONS = {
  upstream: { type: 'string' },
  variant: { type: 'string' },
  'sole-client': { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'report-json': { type: 'string' },
  'report-junit': { type: 'string' },
  har: { type: 'string' },
  'webhook-listen': { type: 'string' },
  'webhook-forward-to': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'webhook-window': { type: 'string' },
  'payment-window': { type: 'string' },
  'clock-tolerance': { type: 'string' },
  'max-transactions': { type: 'string' },
  'capture-bytes': { type: 'string' },
  'keep-exchanges': { type: 'string' },
  'keep-body-chars': { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

export interface RunningProxy {
  proxy: LiveProxy;
  /** Writes the reports, closes, and gives the exit code. */
  stop(): Promise<number>;
}

/** Parses the options and starts the proxy; returns a number (exit code) when it does not start. */
export async function startProxyCommand(
  argv: string[],
  out: (s: string) => void = (s) => process.stdout.write(s + '\n'),
  err: (s: string) => void = (s) => process.stderr.write(s + '\n'),
): Promise<RunningProxy | number> {
  const parsed = parseCommand('paylater proxy', argv, { options: OPTIONS, usage: USAGE, help: HELP, positionals: false }, out, err);
  if (typeof parsed === 'number') return parsed;
  const { values, fail } = parsed;
  const upstream = values.upstream as string | undefined;
  if (!upstream || !/^https?:\/\/[^/]/.test(upstream)) return fail(`--upstream must be an http(s) URL. ${USAGE}`);
  const variant = values.variant === '1' ? 1 : values.variant === '2' ? 2 : undefined;
  if (values.variant !== undefined && !variant) return fail('--variant must be 1 or 2');
  const nums = integers(values, [
    ['port', 0],
    ['webhook-listen', 0],
    ['webhook-window', 1],
    ['payment-window', 1],
    ['clock-tolerance', 0],
    ['max-transactions', 1],
    ['capture-bytes', 1],
    ['keep-exchanges', 1],
    ['keep-body-chars', 1],
  ]);
  if (typeof nums === 'string') return fail(nums);
  const hook = [values['webhook-listen'], values['webhook-forward-to'], values['webhook-secret']];
  if (hook.some((x) => x !== undefined) && hook.some((x) => x === undefined))
    return fail('--webhook-listen, --webhook-forward-to and --webhook-secret go together');
  const forwardTo = values['webhook-forward-to'] as string | undefined;
  if (forwardTo !== undefined && !/^https?:\/\/[^/]/.test(forwardTo)) return fail('--webhook-forward-to must be an http(s) URL');
  let proxy: LiveProxy;
  try {
    proxy = await startLiveProxy({
      upstream,
      variant,
      soleClient: values['sole-client'] === true,
      port: nums.port ?? 8080,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      captureBytes: nums['capture-bytes'],
      maxTransactions: nums['max-transactions'],
      paymentWindowSeconds: nums['payment-window'],
      clockToleranceMs: nums['clock-tolerance'],
      keepExchanges: nums['keep-exchanges'],
      keepBodyChars: nums['keep-body-chars'],
      webhooks:
        forwardTo !== undefined
          ? { port: nums['webhook-listen']!, forwardTo, secret: values['webhook-secret'] as string, windowMs: nums['webhook-window'] }
          : undefined,
      log: values.quiet ? undefined : (line) => out(`paylater proxy: ${line}`),
    });
  } catch (e) {
    return fail(`could not start: ${(e as Error).message}`);
  }
  out(
    `paylater proxy: ${proxy.url} -> ${upstream} (${variant ? `variant ${variant}` : 'variant per key'}); live report at ${proxy.url}${REPORT_PATH}`,
  );
  if (proxy.webhookUrl) out(`paylater proxy: webhooks ${proxy.webhookUrl} -> ${forwardTo}`);
  return {
    proxy,
    async stop() {
      await proxy.close();
      proxy.recorder.sweep();
      proxy.recorder.writeFiles({
        json: values['report-json'] as string | undefined,
        junit: values['report-junit'] as string | undefined,
        har: values.har as string | undefined,
      });
      for (const l of proxy.recorder.summary()) out(l);
      return proxy.recorder.findingCount ? 1 : 0;
    },
  };
}

/** `paylater proxy`: runs until SIGINT or SIGTERM, then writes the reports and returns the exit code. */
export async function runProxy(argv: string[]): Promise<number> {
  // listening before the start line is printed: a signal sent as soon as it is read still writes the reports
  const handlers: [NodeJS.Signals, () => void][] = [];
  const signalled = new Promise<string>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) handlers.push([name, () => resolve(name)]);
    for (const [name, h] of handlers) process.once(name, h);
  });
  const started = await startProxyCommand(argv);
  if (typeof started === 'number') {
    for (const [name, h] of handlers) process.off(name, h);
    return started;
  }
  const signal = await signalled;
  process.stdout.write(`paylater proxy: ${signal}, writing the reports\n`);
  return started.stop();
}
