/**
 * The contract edited in one place (ADR-086): the edits an API designer makes — every numeric fact,
 * a transition added, a transition removed (with the sandbox scenario lint then names), a rejection
 * moved, a new optional response field — each made
 * once, in a scratch copy of the package, then `npm run lint -- --fix` runs there. Edits that touch
 * different facts or moves share one copy (one lint, one import, one server: the test's time). For each copy:
 *  - lint passes, having written every copy of the edited facts into spec/ (and generated/);
 *  - the copy's reference server and its suite agree: one short sandbox run per variant, 0 findings, full coverage;
 *  - the judge of traffic (scripts/test-support/spec-edit.ts `judgedRun`) agrees on that run's traffic;
 *  - the edited suite finds the unedited server, and the unedited suite finds the edited server;
 *  - the pages read the edits: the built limits, guide and state-machine pages.
 * Every server runs in this process; each copy's time is printed at the end. */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantPair } from '../conformance/merchant-pairs.ts';
import type { MerchantSpec } from '../conformance/mutants/selftest.ts';
import type { SuiteResult } from '../conformance/run.ts';
import type { TestServer } from '../reference-server/testing.ts';
import { editFile, findingLines, judgedRun, lintFix, partsOf, scratchCopy, suiteOptions, type Parts } from './test-support/spec-edit.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const SM = 'spec/components/schemas/TransactionStatus.yaml';

/** One edit, made in one place of spec/. */
interface Edit {
  name: string;
  file: string;
  edit: (text: string) => string;
  /** The places of spec/ `--fix` writes for it (each a `fixed spec/<place>` line of its log). */
  fixes: string[];
  /** What the edited suite finds on the unedited server, and the unedited suite on the edited one (null: nothing to find). */
  finding: RegExp | null;
  /** What the edited copy's pages show. */
  pages?: (p: Parts) => Promise<void> | void;
  /** What the edited copy's server does that no suite run reads: asked of it with a test key, or of the copy's modules. */
  server?: (baseUrl: string, apiKey: string, edited: Parts) => Promise<void>;
  /** The edit adds an optional response field: `optionalField` runs both suites on answers carrying it. */
  newField?: true;
}

/**
 * Edits that share one scratch copy (one lint --fix, one import, one server): they touch different
 * facts or different moves, so each run below still shows every one of them followed.
 */
interface Group {
  name: string;
  /** The variants the edited server and suite are run in (the first also for the cross runs). */
  variants: Array<1 | 2>;
  edits: Edit[];
}

const replace = (from: string | RegExp, to: string) => (text: string) => text.replace(from, to);
/**
 * Requests to `baseUrl` with a credential in `header` (a test key's by default), and a JSON body
 * when one is given.
 */
const keyed =
  (baseUrl: string, credential: string, header = 'X-API-Key') =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${baseUrl}${path}`, {
      method,
      headers: { [header]: credential, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
/** A checkout line of one lamp at `price` MAD. */
const lamp = (price: number) => ({ id: 'SKU-1', name: 'Lamp', price, quantity: 1 });

/**
 * An edit no suite run reads: nothing for `lint --fix` to write, nothing for the cross runs to
 * find; `server` asks the edited server what it changed.
 */
const askedOfServer = (name: string, file: string, edit: Edit['edit'], server: NonNullable<Edit['server']>): Edit => ({
  name,
  file,
  edit,
  fixes: [],
  finding: null,
  server,
});
const guide = async (p: Parts, slug: string) => (await p.docs.loadGuides()).find((g) => g.slug === slug)!.source;

const GROUPS: Group[] = [
  {
    name: 'every numeric fact',
    // the rate limit down to 1 per window in both variants: the suite's A1 budget follows (commands/a1Budget.ts)
    variants: [1, 2],
    edits: [
      {
        name: 'the amount range, 500–15000 → 1000–20000 MAD (AmountRange.yaml)',
        file: 'spec/components/facts/AmountRange.yaml',
        edit: (t) => replace(/^minimum: 500$/m, 'minimum: 1000')(replace(/^maximum: 15000$/m, 'maximum: 20000')(t)),
        fixes: [
          'components/schemas/SessionRequestV1.yaml#/properties/total/minimum',
          'components/schemas/SessionRequestV1.yaml#/properties/total/maximum',
          'components/responses/SessionBadRequest.yaml#/content/application~1json/examples/INVALID_AMOUNT/value/error/message',
          'components/responses/SessionBadRequest.yaml#/content/application~1json/examples/INVALID_AMOUNT/value/error/details/0/message',
          'components/responses/PartnerCreateUnprocessable.yaml#/content/application~1json/examples/AMOUNT_OUT_OF_RANGE/value/error/message',
          'components/facts/SandboxScenarios.yaml#/amounts/0/total',
          'components/facts/SandboxScenarios.yaml#/amounts/1/total',
          'components/facts/SandboxScenarios.yaml#/amounts/2/total',
        ],
        finding: /20000|1000|15000|500|INVALID_AMOUNT|AMOUNT_OUT_OF_RANGE|amount|total/i,
        pages: async (p) => {
          const limits = p.limits.renderLimitsPage();
          expect(limits).toContain('must be between 1000.00 and 20000.00 MAD');
          expect(limits).not.toContain('15000');
          expect(await guide(p, 'checkout')).toMatch(/between\s+1000 and 20000 MAD/);
          expect(await guide(p, 'sandbox')).toContain('`20000.01` | 422 `AMOUNT_OUT_OF_RANGE`');
        },
      },
      {
        name: "A1's rate limit, 100 per 900 s → 1 per 600 s (SessionRateLimit.yaml)",
        file: 'spec/components/facts/SessionRateLimit.yaml',
        edit: (t) => replace(/^limit: 100$/m, 'limit: 1')(replace(/^windowSeconds: 900$/m, 'windowSeconds: 600')(t)),
        fixes: [
          'components/headers/RateLimit-Policy.yaml#/schema/const',
          'components/headers/RateLimit-Policy.yaml#/example',
          'components/headers/RateLimit-Limit.yaml#/example',
        ],
        finding: /RateLimit|429|rate/i,
        pages: async (p) => {
          expect(p.limits.renderLimitsPage()).toContain('1 requests per 600 s window');
          expect(await guide(p, 'checkout')).toContain('1 requests per 600 s per key');
        },
      },
      {
        name: 'the token lifetime, 3600 → 1800 s (SessionToken.yaml)',
        file: 'spec/components/securitySchemes/SessionToken.yaml',
        edit: replace(/^x-token-lifetime-seconds: 3600$/m, 'x-token-lifetime-seconds: 1800'),
        fixes: [
          'components/schemas/SessionResponseV2.yaml#/properties/expires_in/const',
          'paths/api_v1_public_sessions.v2.yaml#/post/responses/200/content/application~1json/examples/created/value/expires_in',
        ],
        finding: /expires_in|3600|1800|token/i,
        pages: async (p) => {
          expect(p.limits.renderLimitsPage()).toContain('1800 s');
          expect(await guide(p, 'checkout')).toContain('The token lives 1800 seconds.');
        },
      },
      {
        name: 'the payment window, 1800 → 600 s (x-state-machine paymentWindow)',
        file: SM,
        edit: replace(/^ {4}defaultSeconds: 1800$/m, '    defaultSeconds: 600'),
        fixes: ['paths/api_v1_sandbox_sms.yaml#/get/responses/200/content/application~1json/examples/one/value/data/0/body'],
        finding: /EXPIRED|expir|PENDING|window|sms/i,
        pages: async (p) => {
          expect(p.limits.renderLimitsPage()).toContain('600 s (10 min) from createdAt');
          expect(await guide(p, 'partner')).toContain('The customer has 600 s from `createdAt`');
          expect(await guide(p, 'sandbox')).toContain('within 10 minutes.');
          expect(await p.docs.loadDecisions()).toContain('`paymentWindow.defaultSeconds` of `x-state-machine`\n  (600 s)');
        },
      },
      // the suite does not hold a stream open: the server is asked below
      askedOfServer(
        "the event stream's keep-alive, every 15 → 1 s (x-keep-alive-seconds of sandboxStreamEvents)",
        'spec/paths/api_v1_sandbox_events.yaml',
        replace(/^ {2}x-keep-alive-seconds: 15$/m, '  x-keep-alive-seconds: 1'),
        async (baseUrl, apiKey) => {
          const gaps = await keepAliveGaps(baseUrl, apiKey, 2);
          for (const gap of gaps) expect(gap).toBeGreaterThan(800);
          for (const gap of gaps) expect(gap).toBeLessThan(5000);
        },
      ),
      // the suite always sends `overlapSeconds`: the server is asked below, with a body without it
      askedOfServer(
        "a secret rotation's default overlap, 86400 → 3600 s (WebhookSecretRotationRequest.yaml)",
        'spec/components/schemas/WebhookSecretRotationRequest.yaml',
        replace(/^ {4}default: 86400$/m, '    default: 3600'),
        async (baseUrl, apiKey) => {
          const call = keyed(baseUrl, apiKey);
          const clock = (await (await call('GET', '/api/v1/sandbox/clock')).json()) as { now: string };
          const res = await call('POST', '/api/v1/sandbox/webhook-endpoint/rotate-secret', {});
          expect(res.status).toBe(200);
          const { previousSecretExpiresAt } = (await res.json()) as { previousSecretExpiresAt: string };
          const overlap = (Date.parse(previousSecretExpiresAt) - Date.parse(clock.now)) / 1000;
          expect(overlap).toBeGreaterThanOrEqual(3600);
          expect(overlap).toBeLessThan(3660);
        },
      ),
      // the suite's judge reads the wait of a 429 it asked for (a cross run may stop there), and the
      // server is asked for a fault rule's too
      {
        ...askedOfServer(
          "a simulated 429's wait, 2 → 7 s (x-simulate of Paylater-Simulate.yaml)",
          'spec/components/parameters/Paylater-Simulate.yaml',
          replace(/^ {4}retryAfterSeconds: 2$/m, '    retryAfterSeconds: 7'),
          async (baseUrl, apiKey) => {
            const call = keyed(baseUrl, apiKey);
            const createSession = (headers: Record<string, string> = {}) =>
              call('POST', '/api/v1/public/sessions', { total: 1500, currency: 'MAD', items: [lamp(1500)] }, headers);
            const wait = async (res: Response) => {
              expect(res.status).toBe(429);
              const { error } = (await res.json()) as { error: { retry_after: number } };
              return [error.retry_after, res.headers.get('retry-after')];
            };
            // asked by the header, and by a fault rule that names no wait
            expect(await wait(await createSession({ 'Paylater-Simulate': '429' }))).toEqual([7, '7']);
            const faults = (rule: unknown) => call('PUT', '/api/v1/sandbox/faults', { rule });
            expect((await faults({ failure: '429', operations: ['createSession'], times: 1 })).status).toBe(200);
            expect(await wait(await createSession())).toEqual([7, '7']);
            expect((await faults(null)).status).toBe(200);
          },
        ),
        finding: /simulated 429 .* waits|retry_after/,
      },
      // the suite's requests fail in one or two places: the server is asked below
      askedOfServer(
        "an error body's details, at most 20 → 3 (maxItems of Error.yaml's details)",
        'spec/components/schemas/Error.yaml',
        replace(/^( {8}type: array\n {8})maxItems: 20$/m, '$1maxItems: 3'),
        async (baseUrl, apiKey) => {
          // four items without any of their members: sixteen failing members
          const res = await keyed(baseUrl, apiKey, 'X-Service-Key')('POST', '/api/v1/public/partner/transactions', {
            customerPhone: '212612345678',
            total: 1500,
            currency: 'MAD',
            items: [{}, {}, {}, {}],
          });
          expect(res.status).toBe(400);
          const { error } = (await res.json()) as { error: { code: string; details: unknown[] } };
          expect(error.code).toBe('VALIDATION_ERROR');
          expect(error.details).toHaveLength(3);
        },
      ),
      // the API's schema refuses a longer one; the merchants file's URLs are held to it as well
      askedOfServer(
        'the longest webhook URL, 2048 → 100 characters (WebhookEndpointRequest.yaml)',
        'spec/components/schemas/WebhookEndpointRequest.yaml',
        replace(/^ {4}maxLength: 2048$/m, '    maxLength: 100'),
        async (_baseUrl, apiKey, edited) => {
          const webhookUrl = `http://127.0.0.1:3000/${'h'.repeat(120)}`;
          const merchants = [{ name: 'Long URL', storeName: 'Long URL', apiKey: `${apiKey}_long`, variant: 1 as const, webhookUrl }];
          const refused = await edited.testing.startTestServer({ merchants, mode: 'sandbox' }).then(
            async (s) => (await s.close(), 'started'),
            (e: Error) => e.message,
          );
          expect(refused).toMatch(/longer than 100 characters/);
        },
      ),
      // the hosted page goes only to URLs a payment intent took: its own check follows the schema
      askedOfServer(
        "a payment intent's longest return URL, 2048 → 100 characters (PaymentIntentRequest.yaml)",
        'spec/components/schemas/PaymentIntentRequest.yaml',
        replace(/maxLength: 2048/g, 'maxLength: 100'),
        async (_baseUrl, _apiKey, edited) => {
          const url = (length: number) => `https://m.example/${'a'.repeat(length - 'https://m.example/'.length)}`;
          expect(edited.generated.maxPaymentIntentUrlLength).toBe(100);
          expect(edited.protocol.safeHttpUrl(url(100))?.href).toHaveLength(100);
          expect(edited.protocol.safeHttpUrl(url(101))).toBeNull();
        },
      ),
    ],
  },
  {
    name: 'the state machine and a response field',
    variants: [1],
    edits: [
      {
        name: 'a transition added: B4 also cancels an APPROVED transaction',
        file: SM,
        edit: (t) =>
          replace(
            /( {4}- id: merchant-cancel\n {6}from: )\[PENDING\]/,
            '$1[PENDING, APPROVED]',
          )(
            replace(
              /( {4}- from: )\[APPROVED, (CANCELED, EXPIRED, COMPLETED\]\n {6}trigger:\n {8}operationId: cancelPartnerTransactionByVendorReference)/,
              '$1[$2',
            )(t),
          ),
        fixes: [],
        finding: /cancelPartnerTransactionByVendorReference|APPROVED|TRANSACTION_NOT_PENDING|TRANSACTION_NOT_FOUND|vendor/,
        pages: async (p) => {
          expect(p.diagram.edgesOf(p.generated.stateMachine).some((e) => e.from === 'APPROVED' && e.to === 'CANCELED')).toBe(true);
          expect(await p.diagram.renderStateMachineSvg(p.generated.stateMachine)).toContain('data-transition="merchant-cancel"');
        },
      },
      {
        name: 'a rejection moved: B4 on a CANCELED or EXPIRED transaction answers 404, not 400',
        file: SM,
        edit: replace(
          / {4}- from: \[CANCELED, EXPIRED, COMPLETED\]\n {6}trigger:\n {8}operationId: cancelPartnerTransactionByVendorReference\n {6}status: 400\n {6}code: TRANSACTION_NOT_PENDING\n/,
          [
            '    - from: [COMPLETED]',
            '      trigger:',
            '        operationId: cancelPartnerTransactionByVendorReference',
            '      status: 400',
            '      code: TRANSACTION_NOT_PENDING',
            '    - from: [CANCELED, EXPIRED]',
            '      trigger:',
            '        operationId: cancelPartnerTransactionByVendorReference',
            '      status: 404',
            '      code: TRANSACTION_NOT_FOUND',
            '',
          ].join('\n'),
        ),
        fixes: [],
        finding: /cancelPartnerTransactionByVendorReference|TRANSACTION_NOT_FOUND|TRANSACTION_NOT_PENDING|404|400/,
        pages: (p) => {
          expect(p.diagram.renderStateMachineKey(p.generated.stateMachine)).toContain('TRANSACTION_NOT_FOUND');
        },
      },
      {
        name: "a transition removed: the sandbox customer's cancel (customer-cancel), refused from PENDING too",
        file: SM,
        edit: (t) =>
          replace(
            /( {4}- from: \[)(APPROVED, CANCELED, EXPIRED, COMPLETED\]\n {6}trigger:\n {8}operationId: sandboxCancelTransaction\n)/,
            '$1PENDING, $2',
          )(replace(/\n {4}- id: customer-cancel\n(?: {6}[^\n]*\n| {8}[^\n]*\n)+/, '\n')(t)),
        fixes: [],
        finding: /sandboxCancelTransaction|TRANSACTION_NOT_PENDING|CANCELED|212600000102|scenario/,
        pages: async (p) => {
          expect(p.diagram.edgesOf(p.generated.stateMachine).some((e) => e.transition.id === 'customer-cancel')).toBe(false);
          expect(await p.diagram.renderStateMachineSvg(p.generated.stateMachine)).not.toContain('data-transition="customer-cancel"');
        },
      },
      {
        // lint refuses a scenario that schedules a move no transition takes from PENDING (ADR-043)
        name: "the magic phone that scheduled the customer's cancel, removed with it",
        file: 'spec/components/facts/SandboxScenarios.yaml',
        edit: replace(/ {2}- customerPhone: '212600000102'\n(?: {4}[^\n]*\n)+/, ''),
        fixes: [],
        finding: /sandboxCancelTransaction|CANCELED|212600000102|scenario/,
        // the sandbox guide's table of magic phones is built from the scenarios: its row goes with the phone
        pages: async (p) => {
          const sandbox = await guide(p, 'sandbox');
          expect(sandbox).not.toContain('212600000102');
          expect(sandbox).toContain('| `212600000101` | confirmed 60 s of sandbox time after creation');
        },
      },
      {
        name: 'a new optional response field: `note` on the partner transaction record (PartnerTransaction.yaml)',
        file: 'spec/components/schemas/PartnerTransaction.yaml',
        edit: replace(
          /^properties:\n/m,
          'properties:\n  note:\n    description: A note the service may add to the transaction.\n    type: string\n    maxLength: 200\n',
        ),
        fixes: [],
        // optional: a server that never sends it conforms to both contracts; an answer that carries
        // it is judged by `optionalField` below
        finding: null,
        newField: true,
      },
      // the suite's payments name no phone, and it reads none back: the server is asked below
      askedOfServer(
        "the test shopper's phone, 212600000000 → 212600000999 (TestShopperPhone.yaml)",
        'spec/components/schemas/TestShopperPhone.yaml',
        replace(/^default: '212600000000'$/m, "default: '212600000999'"),
        async (baseUrl, apiKey) => {
          const call = keyed(baseUrl, apiKey);
          const ok = async (res: Promise<Response>) => {
            const r = await res;
            expect(r.status, r.url).toBe(200);
            return (await r.json()) as Record<string, unknown>;
          };
          const { token } = await ok(call('POST', '/api/v1/public/sessions', { total: 1299.5, currency: 'MAD', items: [lamp(1299.5)] }));
          // paid without a phone
          const paid = await ok(call('POST', '/api/v1/sandbox/sessions/pay', { session_token: token, outcome: 'success' }));
          const status = keyed(baseUrl, String(token), 'X-Session-Token');
          const res = await status('GET', `/api/v1/public/transactions/${String(paid.transaction_id)}/status`);
          expect(res.status).toBe(200);
          expect(((await res.json()) as { customer_phone: string }).customer_phone).toBe('212600000999');
        },
      ),
    ],
  },
];

let base: Parts;
let baseServer: TestServer;
const basePairs = new Map<string, MerchantPair>();
const times: string[] = [];

beforeAll(async () => {
  base = await partsOf();
  const merchants: MerchantSpec[] = [];
  for (const [i, g] of GROUPS.entries()) {
    const { pair, merchants: m } = await base.pairs.merchantPair('old', i, g.variants[0]!, secret);
    basePairs.set(g.name, pair);
    merchants.push(...m);
  }
  baseServer = await base.testing.startTestServer({ merchants, mode: 'sandbox' });
}, 120_000);
afterAll(async () => {
  await baseServer?.close();
  console.log(`spec edits, wall time of each scratch copy (phases in s):\n${times.map((t) => `  ${t}`).join('\n')}`);
});

for (const g of GROUPS)
  describe(`${g.name}, edited in one place of a scratch copy: lint, server, suite, judge and pages follow`, () => {
    let scratch: ReturnType<typeof scratchCopy> | undefined;
    let lint: { problems: string[]; log: string[] };
    let edited: Parts;
    let server: TestServer;
    const pairs = new Map<string, MerchantPair>();
    let started = 0;
    const phases: string[] = [];
    let mark = 0;
    const phase = (name: string) => {
      const now = performance.now();
      phases.push(`${name} ${((now - mark) / 1000).toFixed(1)}`);
      mark = now;
    };

    beforeAll(async () => {
      started = mark = performance.now();
      scratch = scratchCopy('edit');
      for (const e of g.edits) editFile(scratch.dir, e.file, e.edit);
      phase('copy');
      lint = await lintFix(scratch.dir);
      phase('lint --fix');
      edited = await partsOf(scratch.dir);
      phase('import');
      const merchants: MerchantSpec[] = [];
      // a pair per run: each agreeing run, the cross run, and the optional field's two runs
      const runs: Array<[string, 1 | 2]> = [...g.variants.map((v): [string, 1 | 2] => [`agree ${v}`, v]), ['cross', g.variants[0]!]];
      if (g.edits.some((e) => e.newField)) runs.push(['note edited', 1], ['note base', 1]);
      for (const [i, [name, v]] of runs.entries()) {
        const { pair, merchants: m } = await base.pairs.merchantPair('new', i, v, secret);
        pairs.set(name, pair);
        merchants.push(...m);
      }
      server = await edited.testing.startTestServer({ merchants, mode: 'sandbox' });
    }, 300_000);
    afterAll(async () => {
      await server?.close();
      scratch?.dispose();
      times.push(`${((performance.now() - started) / 1000).toFixed(1)} s  ${g.name} (${phases.join(', ')})`);
    });

    it('lint --fix writes every copy of the edited facts, and lint then passes', () => {
      expect(lint.problems).toEqual([]);
      const fixed = lint.log.filter((l) => l.startsWith('fixed ')).map((l) => /^fixed spec\/(\S+):/.exec(l)![1]);
      expect(fixed.sort()).toEqual(g.edits.flatMap((e) => e.fixes).sort());
    });

    for (const v of g.variants)
      it(`variant ${v}: the edited server and the edited suite agree (0 findings, full coverage), and so does the judge on that traffic`, async () => {
        const { result, judged } = await judgedRun(edited, server.baseUrl, (url) =>
          edited.run.runSuite(suiteOptions(url, pairs.get(`agree ${v}`)!, secret)),
        );
        phase(`agree v${v}`);
        expect(findingLines(result)).toEqual([]);
        expect(result.incomplete).toEqual([]);
        expect(result.coverage.transitions.missing).toEqual([]);
        expect(judged).toEqual([]);
      }, 300_000);

    it('the edited suite finds the unedited server, and the unedited suite finds the edited server', async () => {
      const expected = g.edits.flatMap((e) => (e.finding ? [e.finding] : []));
      const onOld = await edited.run.runSuite(suiteOptions(baseServer.baseUrl, basePairs.get(g.name)!, secret, { bail: true }));
      const onNew = await base.run.runSuite(suiteOptions(server.baseUrl, pairs.get('cross')!, secret, { bail: true }));
      phase('cross');
      found(onOld, expected, 'the edited suite on the unedited server');
      found(onNew, expected, 'the unedited suite on the edited server');
    }, 300_000);

    it('the pages read the edits: the limits page, the guides, the state diagram', async () => {
      for (const e of g.edits) await e.pages?.(edited);
      if (g.edits.some((e) => e.newField)) await optionalField(edited, server.baseUrl, pairs);
      phase('pages');
    }, 300_000);

    if (g.edits.some((e) => e.server))
      it('the edited server follows the edits no suite run reads', async () => {
        for (const e of g.edits) await e.server?.(server.baseUrl, pairs.get(`agree ${g.variants[0]!}`)!.main, edited);
        phase('server');
      }, 60_000);
  });

/**
 * The milliseconds between the first `count + 1` keep-alive comments of an event stream opened
 * with `apiKey` (the first measured from the stream's opening).
 */
async function keepAliveGaps(baseUrl: string, apiKey: string, count: number): Promise<number[]> {
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/api/v1/sandbox/events`, { headers: { 'X-API-Key': apiKey }, signal: ac.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const at: number[] = [performance.now()];
  let text = '';
  try {
    while (at.length <= count) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended');
      text += value;
      for (let i = text.indexOf(': keep-alive\n\n'); i !== -1; i = text.indexOf(': keep-alive\n\n')) {
        at.push(performance.now());
        text = text.slice(i + 1);
      }
    }
  } finally {
    ac.abort();
  }
  return at.slice(1, count + 1).map((t, i) => t - at[i]!);
}

/** A cross run finds what one of the edits changed (the run stops at its first finding). */
function found(r: SuiteResult, expected: RegExp[], what: string): void {
  expect(r.findings.length, `${what}: no finding`).toBeGreaterThan(0);
  const message = r.findings[0]!.message;
  expect(
    expected.some((x) => x.test(message)),
    `${what}: ${message.split('\n')[0]}`,
  ).toBe(true);
}

/**
 * The new optional field in an answer of the edited server: the edited suite takes it, the
 * unedited one reports a member its contract does not have (the record is the first thing its run reads).
 */
async function optionalField(edited: Parts, baseUrl: string, pairs: Map<string, MerchantPair>): Promise<void> {
  // a server that sends the field: every partner transaction record it answers carries `note`
  const withNote: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const type = res.headers.get('content-type') ?? '';
    const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
    if (!/partner\/transactions/.test(url) || !type.includes('json') || res.status >= 300) return res;
    const text = await res.text();
    const headers = new Headers(res.headers);
    // a HEAD answer has no body: only its headers
    if (text === '') return new Response(null, { status: res.status, headers });
    headers.delete('content-length');
    const rec = JSON.parse(text) as Record<string, unknown>;
    return new Response(JSON.stringify({ ...rec, note: 'Gift wrap' }), { status: res.status, headers });
  };
  const run = (p: Parts, pair: MerchantPair) =>
    p.run.runSuite(suiteOptions(baseUrl, pair, secret, { profile: 'core', fetchImpl: withNote, bail: true }));
  expect(findingLines(await run(edited, pairs.get('note edited')!))).toEqual([]);
  const old = await run(base, pairs.get('note base')!);
  expect(old.findings[0]?.message).toMatch(/note/);
}
