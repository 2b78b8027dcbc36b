/**
 * `paylater certify`: the merchant's go-live check against the sandbox. Reads the
 * merchant's webhook endpoint from the sandbox, runs the receiver items, then (with --observe)
 * watches the merchant's own traffic for a while: the sandbox records its API calls (ADR-056)
 * and injects failures (ADR-052) so that verification before fulfilment, key hygiene and
 * resilience can be judged. Writes the report to the terminal, and as JSON and HTML on request.
 */
import { writeFile } from 'node:fs/promises';
import { callApi, CliError, parseOptions, targetOf, type SandboxTarget } from '../lib/sandbox-client.ts';
import { reportOf, type CertifyReport, type CheckItem } from './checklist.ts';
import { observationItems, startObservation } from './observe.ts';
import { receiverItems } from './receiver.ts';
import { htmlReport, jsonReport, textReport } from './report.ts';

export const CERTIFY_USAGE = `Usage: paylater certify --base-url URL --api-key KEY [--webhook-url URL] [--observe SECONDS]
                        [--resilience] [--json FILE] [--html FILE] [--docs-url URL]

Runs the go-live checklist against the sandbox with a test key and reports each item as
pass, fail or not observed, with what was seen and the section of the "Before you go live"
guide that fixes it.

  Webhook receiver     sends your webhook URL a valid signed event (2xx within the delivery
                       timeout), a forged signature, another secret, a stale timestamp and a
                       tampered body (each refused), and a redelivery (2xx).
  Verification         every checkout or partner transaction approved while observing is
                       verified (A2, A3, B2 or B3) by your backend after the event.
  Key hygiene          no call carrying your API key came from a browser (Origin, Referer,
                       Sec-Fetch-*) or went to the SDK's routes.
  Resilience           with --resilience the sandbox answers your next A1 call 429 and the
                       one after 500 (ADR-052): your next A1 waits retry_after, and a 500 is
                       retried with a backoff (first retry after 200 ms or more, at most 2
                       calls within 1 s) or not at all.

Options:
  --base-url URL     the sandbox (default PAYLATER_BASE_URL or http://127.0.0.1:4010)
  --api-key KEY      your test key, sk_test_… (default PAYLATER_API_KEY)
  --webhook-url URL  your webhook receiver (default: the URL the sandbox delivers to)
  --observe SECONDS  watch your integration for this long (0 to 3600, default 0: the
                     verification, key hygiene and resilience items are not observed); run
                     a checkout through your shop meanwhile
  --resilience       while observing, inject the 429 and the 500 into your A1 calls (your
                     checkout then sees them: use it on its own run)
  --json FILE        also write the report as JSON to FILE
  --html FILE        also write the report as one self-contained HTML page to FILE
  --docs-url URL     where the guides are served (default <base-url>/docs)
  -h, --help         this help

Exit status: 0 when every item passed, 1 otherwise, 2 on a usage error.
`;

export interface CertifyOptions {
  baseUrl: string;
  apiKey: string;
  webhookUrl?: string | null;
  docsUrl?: string;
  /** Watch the merchant's traffic while `during` runs (or for `observeMs`). */
  observeMs?: number;
  /** While watching, inject a 429 then a 500 into the merchant's A1 calls. */
  resilience?: boolean;
  during?: () => Promise<void>;
  deliveryTimeoutMs?: number;
  log?: (line: string) => void;
}

/** Runs the checklist and returns the report. */
export async function runCertify(o: CertifyOptions): Promise<CertifyReport> {
  const startedAt = new Date();
  const t: SandboxTarget = { baseUrl: o.baseUrl.replace(/\/$/, ''), apiKey: o.apiKey };
  const docsUrl = o.docsUrl ?? `${t.baseUrl}/docs`;
  const endpoint = await callApi(t, 'GET', '/api/v1/sandbox/webhook-endpoint');
  const webhookUrl = o.webhookUrl ?? (typeof endpoint.url === 'string' ? endpoint.url : null);
  const items: CheckItem[] = [];
  o.log?.('webhook receiver …');
  items.push(
    ...(await receiverItems({
      webhookUrl,
      secret: typeof endpoint.secret === 'string' ? endpoint.secret : null,
      docsUrl,
      deliveryTimeoutMs: o.deliveryTimeoutMs,
    })),
  );
  const watching = o.during !== undefined || (o.observeMs ?? 0) > 0;
  const observation = watching ? await startObservation(t, o.resilience ?? false) : null;
  if (observation) {
    o.log?.(
      o.during ? 'observing your integration …' : `observing your integration for ${Math.round(o.observeMs! / 1000)} s: run a checkout now`,
    );
    try {
      if (o.during) await o.during();
      else await new Promise((r) => setTimeout(r, o.observeMs));
    } finally {
      await observation.stop();
    }
  }
  items.push(...(await observationItems(t, observation, docsUrl)));
  return reportOf(items, { baseUrl: t.baseUrl, webhookUrl, startedAt, finishedAt: new Date() });
}

/** Every option the command takes (`--help` documents each; certify.test.ts checks it). */
export const CERTIFY_OPTIONS = ['base-url', 'api-key', 'webhook-url', 'observe', 'json', 'html', 'docs-url'] as const;
/** The options without a value. */
export const CERTIFY_FLAGS = ['resilience'] as const;

/** The command: parses `argv`, runs, writes the report; returns the exit code. */
export async function runCertifyCli(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    out(CERTIFY_USAGE);
    return 0;
  }
  const { options, positionals } = parseOptions(argv, CERTIFY_OPTIONS, CERTIFY_FLAGS);
  if (positionals.length > 0) throw new CliError(`unexpected argument ${positionals[0]}\n\n${CERTIFY_USAGE}`, 2);
  const t = targetOf(options);
  if (!t.apiKey.startsWith('sk_test_')) throw new CliError('--api-key must be a test key (sk_test_…): certify runs against the sandbox', 2);
  const webhookUrl = options.get('webhook-url');
  if (webhookUrl !== undefined && !/^https?:\/\//.test(webhookUrl)) throw new CliError(`--webhook-url must be an http(s) URL`, 2);
  const observe = Number(options.get('observe') ?? '0');
  if (!Number.isInteger(observe) || observe < 0 || observe > 3600) throw new CliError('--observe must be whole seconds from 0 to 3600', 2);
  if (options.has('resilience') && observe === 0) throw new CliError('--resilience needs --observe SECONDS', 2);
  const report = await runCertify({
    ...t,
    webhookUrl: webhookUrl ?? null,
    docsUrl: options.get('docs-url'),
    observeMs: observe * 1000,
    resilience: options.has('resilience'),
    log: (l) => process.stderr.write(`${l}\n`),
  });
  out(textReport(report));
  const json = options.get('json');
  if (json) await writeFile(json, jsonReport(report));
  const html = options.get('html');
  if (html) await writeFile(html, htmlReport(report));
  return report.ready ? 0 : 1;
}
