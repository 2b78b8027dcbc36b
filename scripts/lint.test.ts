/**
 * The contract gate itself: the whole lint passes on the committed spec, generated/ is
 * what `npm run generate` would write, and each consistency check does fail when the
 * documents disagree (so a green lint means something).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_DIR, SPEC_DIR } from './lib/paths.ts';
import { amountRangeUses } from './lib/contract-facts.ts';
import { bundleApi, listApis, parseAsyncApi } from './lib/spec.ts';
import {
  checkErrorExamples,
  checkStateMachine,
  checkValidationErrorDeclared,
  checkWebhooksAgainstAsyncApi,
  type AsyncMessage,
} from './lib/consistency.ts';
import {
  amountRangeCopies,
  authThrottleCopies,
  bodyLimitCopies,
  checkFactStatements,
  checkFactStatementsInSpec,
  checkPatternQuotes,
  factCopies,
  paymentWindowCopies,
  problemsOf,
  rateLimitCopies,
  tokenLifetimeCopies,
} from './lib/facts.ts';
import { copyWrites, sourceOf, where, writeCopies } from './lib/fact-sources.ts';
import { lintContract } from './lint.ts';
import { arrayAt, objectAt, type Json } from '../lib/json.ts';
import { renderGenerated } from './generate.ts';

const problemsAmountRange = (v: number, d: Json) => problemsOf(amountRangeCopies(v, d));
const problemsTokenLifetime = (v: number, d: Json) => problemsOf(tokenLifetimeCopies(v, d));
const problemsRateLimit = (v: number, d: Json) => problemsOf(rateLimitCopies(v, d));
const problemsBodyLimit = (v: number, d: Json) => problemsOf(bodyLimitCopies(v, d));

/** The bundled API of each variant and the AsyncAPI messages, read once for the file (bundling is most of a check's time). */
const bundled = new Map<1 | 2, Promise<{ doc: Json; messages: AsyncMessage[] }>>();
async function readFixtures(variant: 1 | 2): Promise<{ doc: Json; messages: AsyncMessage[] }> {
  const apis = await listApis();
  const doc = await bundleApi(apis.find((a) => a.variant === variant)!);
  const { document } = await parseAsyncApi();
  const messages: AsyncMessage[] = document
    .messages()
    .all()
    .map((m) => ({
      name: String(m.name()),
      payload: m.payload()!.json<{ schema: unknown }>().schema,
      headers: m.headers()!.json<{ schema: unknown }>().schema,
    }));
  return { doc, messages };
}
/** A copy of the fixtures of `variant` each case may alter. */
async function fixtures(variant: 1 | 2 = 1) {
  if (!bundled.has(variant)) bundled.set(variant, readFixtures(variant));
  return structuredClone(await bundled.get(variant)!);
}

describe('npm run lint', () => {
  it('passes on the committed contract with 0 errors and 0 warnings, generated/ as `npm run generate` would write it', async () => {
    const lines: string[] = [];
    expect(await lintContract((l) => lines.push(l))).toEqual([]);
    expect(lines).toContain('redocly lint merchant-v1: 0 errors, 0 warnings');
    expect(lines).toContain('redocly lint merchant-v2: 0 errors, 0 warnings');
    // the lint's own render of generated/ (staleGenerated) found it up to date
    expect(lines).toContain('generated/ up to date: yes');
  }, 120_000);
});

describe('npm run generate', () => {
  it('is deterministic and marks every file do-not-edit', async () => {
    // a second render, compared with the committed files (the first render: the lint above found them up to date)
    const rendered = await renderGenerated();
    for (const [file, content] of rendered) {
      expect(content, file).toBe(readFileSync(path.join(GENERATED_DIR, file), 'utf8'));
      expect(content.slice(0, 200), file).toMatch(/GENERATED FILE — DO NOT EDIT/);
    }
  }, 60_000);
});

describe('consistency checks catch drift', () => {
  it('a webhook payload that differs from the AsyncAPI message', async () => {
    const { doc, messages } = await fixtures();
    expect(checkWebhooksAgainstAsyncApi(1, doc, messages)).toEqual([]);
    const altered = structuredClone(messages);
    objectAt(altered[0]!.payload, 'properties').extra = { type: 'string' };
    expect(checkWebhooksAgainstAsyncApi(1, doc, altered).join('\n')).toMatch(/payload of webhook .* differs/);
    expect(checkWebhooksAgainstAsyncApi(1, doc, messages.slice(1)).join('\n')).toMatch(/differ from AsyncAPI messages/);
  });
  it('a transition that emits an event no document defines', async () => {
    const { doc } = await fixtures();
    expect(checkStateMachine(1, doc)).toEqual([]);
    const transitions = arrayAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine', 'transitions');
    objectAt(transitions.find((t) => objectAt(t).id === 'expire')).emits = 'transaction.timed_out';
    expect(checkStateMachine(1, doc).join('\n')).toMatch(/emits transaction.timed_out, which no webhook/);
  });
  it('a rejection whose code the operation does not declare', async () => {
    const { doc } = await fixtures();
    objectAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine', 'rejections', 0).code = 'NOT_ALLOWED';
    expect(checkStateMachine(1, doc).join('\n')).toMatch(/NOT_ALLOWED is not declared/);
  });
  it('a transition added from a status its rejection still lists', async () => {
    const { doc } = await fixtures();
    const sm = objectAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine');
    objectAt(arrayAt(sm, 'transitions').find((t) => objectAt(t).id === 'merchant-cancel')).from = ['PENDING', 'APPROVED'];
    expect(checkStateMachine(1, doc)).toEqual([
      'rejection of cancelPartnerTransactionByVendorReference: from APPROVED, which a transition of cancelPartnerTransactionByVendorReference also moves from (remove it from the rejection)',
    ]);
  });
  it('a transition removed, leaving a rejection code that asks for no status', async () => {
    const { doc } = await fixtures();
    const sm = objectAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine');
    sm.transitions = arrayAt(sm, 'transitions').filter((t) => objectAt(t).id !== 'complete');
    expect(checkStateMachine(1, doc).join('\n')).toMatch(
      /^rejection code TRANSACTION_NOT_APPROVED: no transition of the operations it rejects moves from any status/m,
    );
  });
  it('a transition removed that a sandbox scenario still schedules', async () => {
    const { doc } = await fixtures();
    const sm = objectAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine');
    sm.transitions = arrayAt(sm, 'transitions').filter((t) => objectAt(t).id !== 'customer-cancel');
    const rejection = arrayAt(sm, 'rejections').find((r) => objectAt(r, 'trigger').operationId === 'sandboxCancelTransaction');
    objectAt(rejection).from = ['PENDING', 'APPROVED', 'CANCELED', 'EXPIRED', 'COMPLETED'];
    expect(checkStateMachine(1, doc)).toEqual([
      "Variant 1's sandbox scenario 212600000102 of POST /api/v1/public/partner/transactions: schedules sandboxCancelTransaction, which no transition takes from PENDING (remove the scenario, or keep a transition)",
    ]);
  });
  it('an error example whose code is not declared', async () => {
    const { doc } = await fixtures();
    expect(checkErrorExamples(1, doc)).toEqual([]);
    objectAt(
      doc,
      'components',
      'responses',
      'TransactionNotFound',
      'content',
      'application/json',
      'examples',
      'TRANSACTION_NOT_FOUND',
      'value',
      'error',
    ).code = 'NOT_FOUND';
    expect(checkErrorExamples(1, doc).join('\n')).toMatch(/uses code NOT_FOUND, not declared/);
  });

  it('an operation without 400 VALIDATION_ERROR (ADR-022)', async () => {
    const { doc } = await fixtures();
    expect(checkValidationErrorDeclared(1, doc)).toEqual([]);
    delete objectAt(doc, 'paths', '/api/v1/sandbox/clock', 'get', 'responses')['400'];
    expect(checkValidationErrorDeclared(1, doc)).toEqual([
      'Variant 1 sandboxGetClock: declares no 400 VALIDATION_ERROR (ADR-022: an undeclared query parameter gets one)',
    ]);
  });
});

describe('one fact, one place: lint fails when a copy disagrees with the fact', () => {
  const schemas = (doc: Json) => objectAt(doc, 'components', 'schemas');
  const example = (doc: Json, response: string, name: string) =>
    objectAt(doc, 'components', 'responses', response, 'content', 'application/json', 'examples', name, 'value', 'error');

  it('amount range: the V1 minimum/maximum copy', async () => {
    const { doc } = await fixtures(1);
    expect(problemsAmountRange(1, doc)).toEqual([]);
    objectAt(schemas(doc), 'SessionRequestV1', 'properties', 'total').maximum = 20000;
    expect(problemsAmountRange(1, doc).join('\n')).toMatch(/maximum 20000 differs from x-amount-range maximum 15000/);
  });
  it('amount range: a V2 pattern that encodes the range again', async () => {
    const { doc } = await fixtures(2);
    expect(problemsAmountRange(2, doc)).toEqual([]);
    objectAt(schemas(doc), 'SessionRequestV2', 'properties', 'total').pattern =
      '^(?:(?:[5-9][0-9]{2}|[1-9][0-9]{3}|1[0-4][0-9]{3})(?:\\.[0-9]{1,2})?|15000(?:\\.0{1,2})?)$';
    const problems = problemsAmountRange(2, doc).join('\n');
    expect(problems).toMatch(/pattern refuses 499\.99, so it encodes the amount range again/);
    expect(problems).toMatch(/pattern refuses 15000\.01/);
  });
  it('amount range: a second, different statement of the range', async () => {
    const { doc } = await fixtures(1);
    objectAt(schemas(doc), 'PartnerTransactionCreateRequest', 'properties', 'total')['x-amount-range'] = {
      minimum: 100,
      maximum: 15000,
      currency: 'MAD',
    };
    expect(problemsAmountRange(1, doc).join('\n')).toMatch(/x-amount-range at .* differs from the one at .*: state it once/);
  });
  it('amount range: the message and detail of the 400 and 422 examples', async () => {
    const { doc } = await fixtures(1);
    objectAt(example(doc, 'SessionBadRequest', 'INVALID_AMOUNT'), 'details', 0).message = 'must be >= 500';
    example(doc, 'PartnerCreateUnprocessable', 'AMOUNT_OUT_OF_RANGE').message = 'Amount must be between 100.00 and 15000.00 MAD';
    const problems = problemsAmountRange(1, doc).join('\n');
    expect(problems).toMatch(/detail "must be >= 500" differs from the amount range's "must be between 500.00 and 15000.00 MAD"/);
    expect(problems).toMatch(
      /message "Amount must be between 100.00 and 15000.00 MAD" differs from the amount range's "total must be between 500.00 and 15000.00 MAD"/,
    );
  });

  it('token lifetime: the V2 expires_in const and example', async () => {
    const { doc } = await fixtures(2);
    expect(problemsTokenLifetime(2, doc)).toEqual([]);
    objectAt(schemas(doc), 'SessionResponseV2', 'properties', 'expires_in').const = 1800;
    objectAt(
      doc,
      'paths',
      '/api/v1/public/sessions',
      'post',
      'responses',
      '200',
      'content',
      'application/json',
      'examples',
      'created',
      'value',
    ).expires_in = 7200;
    const problems = problemsTokenLifetime(2, doc).join('\n');
    expect(problems).toMatch(/expires_in const 1800 differs from x-token-lifetime-seconds 3600/);
    expect(problems).toMatch(/example created has expires_in 7200, x-token-lifetime-seconds is 3600/);
  });
  it('token lifetime: a second statement, or none', async () => {
    const { doc } = await fixtures(2);
    objectAt(doc, 'components', 'securitySchemes', 'ApiKey')['x-token-lifetime-seconds'] = 1800;
    expect(problemsTokenLifetime(2, doc).join('\n')).toMatch(/exactly one security scheme must state x-token-lifetime-seconds/);
    expect(
      checkFactStatements([
        { rel: 'components/securitySchemes/SessionToken.yaml', doc: { 'x-token-lifetime-seconds': 3600 } },
        { rel: 'components/schemas/SessionResponseV1.yaml', doc: { properties: { expiresAt: { 'x-token-lifetime-seconds': 3600 } } } },
      ]),
    ).toEqual([
      'x-token-lifetime-seconds is stated 2 times (components/securitySchemes/SessionToken.yaml, components/schemas/SessionResponseV1.yaml): state it once',
    ]);
  });

  it('rate limit: the RateLimit-Policy const, the retry_after const and the 429 example', async () => {
    const { doc } = await fixtures(1);
    expect(problemsRateLimit(1, doc)).toEqual([]);
    objectAt(doc, 'components', 'headers', 'RateLimit-Policy', 'schema').const = '120;w=900';
    objectAt(
      doc,
      'components',
      'responses',
      'RateLimited',
      'content',
      'application/json',
      'schema',
      'allOf',
      1,
      'properties',
      'error',
      'properties',
      'retry_after',
    ).const = 30;
    example(doc, 'RateLimited', 'RATE_LIMIT_EXCEEDED').message = 'Too many requests, retry after 30 seconds';
    const problems = problemsRateLimit(1, doc).join('\n');
    expect(problems).toMatch(/createSession 200: header RateLimit-Policy const 120;w=900 differs from x-rate-limit \(100;w=900\)/);
    expect(problems).toMatch(/createSession 429: retry_after const 30: the wait is the time left in the window/);
    expect(problems).toMatch(
      /createSession 429: example RATE_LIMIT_EXCEEDED message says 30, header Retry-After example says 412: one wait/,
    );
  });
  it("rate limit: the headers' examples", async () => {
    const { doc } = await fixtures(2);
    objectAt(doc, 'components', 'headers', 'RateLimit-Limit').example = 60;
    objectAt(doc, 'components', 'headers', 'Retry-After').example = 60;
    const problems = problemsRateLimit(2, doc).join('\n');
    expect(problems).toMatch(/header RateLimit-Limit example 60 differs from x-rate-limit \(100\)/);
    expect(problems).toMatch(/429: header RateLimit-Reset example says 412, header Retry-After example says 60: one wait/);
  });
  it('rate limit: a fixed retryAfterSeconds and a wait longer than the window', async () => {
    const { doc } = await fixtures(1);
    objectAt(doc, 'paths', '/api/v1/public/sessions', 'post')['x-rate-limit'] = { limit: 100, windowSeconds: 900, retryAfterSeconds: 60 };
    for (const h of ['Retry-After', 'RateLimit-Reset']) objectAt(doc, 'components', 'headers', h).example = 1000;
    Object.assign(example(doc, 'RateLimited', 'RATE_LIMIT_EXCEEDED'), {
      retry_after: 1000,
      message: 'Too many requests, retry after 1000 seconds',
    });
    const problems = problemsRateLimit(1, doc).join('\n');
    expect(problems).toMatch(/createSession: x-rate-limit retryAfterSeconds: the wait of a 429 is the time left in the window/);
    expect(problems).toMatch(/429: header Retry-After example 1000 is not a wait within the 900 s window/);
  });
  it('rate limit and amount range: a copy in a source file instead of a $ref to spec/components/facts/', async () => {
    expect(await checkFactStatementsInSpec()).toEqual([]);
    const problems = checkFactStatements([
      {
        rel: 'paths/api_v1_public_sessions.v1.yaml',
        doc: { post: { 'x-rate-limit': { $ref: '../components/facts/SessionRateLimit.yaml' } } },
      },
      {
        rel: 'paths/api_v1_public_sessions.v2.yaml',
        doc: { post: { 'x-rate-limit': { limit: 100, windowSeconds: 900, retryAfterSeconds: 60 } } },
      },
      {
        rel: 'components/schemas/SessionRequestV2.yaml',
        doc: { properties: { total: { 'x-amount-range': { $ref: './AmountRange.yaml' } } } },
      },
    ]);
    expect(problems).toEqual([
      'paths/api_v1_public_sessions.v2.yaml: x-rate-limit must be a $ref to its one statement in spec/components/facts/, not a copy',
      'components/schemas/SessionRequestV2.yaml: x-amount-range must be a $ref to its one statement in spec/components/facts/, not a copy',
    ]);
  });

  it('body limit: the PAYLOAD_TOO_LARGE example', async () => {
    const { doc } = await fixtures(1);
    expect(problemsBodyLimit(1, doc)).toEqual([]);
    example(doc, 'PayloadTooLarge', 'PAYLOAD_TOO_LARGE').message = 'Request body exceeds 1 MB';
    expect(problemsBodyLimit(1, doc).join('\n')).toMatch(
      /message "Request body exceeds 1 MB" differs from x-max-body-bytes 102400 \(100 kB\)/,
    );
  });

  it('amount range: a currency the Currency enum does not have', async () => {
    const { doc } = await fixtures(1);
    for (const name of ['SessionRequestV1', 'PartnerTransactionCreateRequest'])
      objectAt(schemas(doc), name, 'properties', 'total', 'x-amount-range').currency = 'EUR';
    expect(problemsAmountRange(1, doc).join('\n')).toMatch(/currency EUR is not one of the Currency enum \[MAD\]/);
  });

  it('a pattern quoted by an error example', async () => {
    const { doc } = await fixtures(1);
    expect(checkPatternQuotes(1, doc)).toEqual([]);
    objectAt(schemas(doc), 'CustomerPhone').pattern = '^[1-9][0-9]{8,14}$';
    const problems = checkPatternQuotes(1, doc);
    expect(problems.length).toBe(2); // the message and the detail of the example
    expect(problems[0]).toMatch(/quotes pattern "\^\[1-9\]\[0-9\]\{7,14\}\$", which no schema of the document has/);
  });
});

describe('every copy of a fact is derived: lint refuses a disagreeing one, --fix writes it', () => {
  /** Sets the amount range of a bundle (its bundler inlines the fact at each use). */
  const setRange = (doc: Json, range: Json) => {
    for (const use of amountRangeUses(doc)) Object.assign(use.range, range);
  };
  const scenarios = (doc: Json) => objectAt(doc, 'paths', '/api/v1/public/partner/transactions', 'post', 'x-sandbox-scenarios');

  it("the sandbox scenarios' edge amount is the range's maximum + 0.01, their other magic totals lie inside it", async () => {
    const { doc } = await fixtures(1);
    expect(amountRangeCopies(1, doc).copies.filter((c) => c.pointer.includes('x-sandbox-scenarios')).length).toBe(3);
    setRange(doc, { minimum: 600, maximum: 20000 });
    const wrong = amountRangeCopies(1, doc).copies.filter((c) => c.reason && c.pointer.includes('x-sandbox-scenarios'));
    expect(wrong.map((c) => [c.value, c.expected])).toEqual([
      [501.01, 601.01],
      [501.02, 601.02],
      [15000.01, 20000.01],
    ]);
    expect(wrong[2]!.reason).toMatch(/total 15000\.01 \(AMOUNT_OUT_OF_RANGE\) is not the amount range's edge 20000\.01/);
    // a magic phone that would act after the payment window ends
    objectAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine', 'paymentWindow').defaultSeconds = 60;
    expect(problemsOf(amountRangeCopies(1, doc)).join('\n')).toMatch(
      /magic phone 212600000101 acts after 60 s, not before the 60 s payment window ends/,
    );
    // the scenarios' own numbers are the fact's copies, not a second statement of it
    expect(arrayAt(scenarios(doc), 'amounts').length).toBe(3);
  });

  it("AUTH_THROTTLED's example waits lie within x-auth-failure-limit's window", async () => {
    const { doc } = await fixtures(2);
    expect(problemsOf(authThrottleCopies(2, doc))).toEqual([]);
    objectAt(doc, 'components', 'securitySchemes', 'ApiKey', 'x-auth-failure-limit').windowSeconds = 30;
    const { copies } = authThrottleCopies(2, doc);
    expect(copies.filter((c) => c.reason).map((c) => c.expected)).toContain(
      'Too many failed authentications from this address, retry after 30 seconds',
    );
    expect(problemsOf(authThrottleCopies(2, doc)).join('\n')).toMatch(
      /AUTH_THROTTLED: retry_after 42 is not a wait within the 30 s window/,
    );
  });

  it('every operation behind a throttled security scheme declares its 429 AUTH_THROTTLED', async () => {
    const { doc } = await fixtures(1);
    expect(problemsOf(authThrottleCopies(1, doc))).toEqual([]);
    delete objectAt(doc, 'paths', '/api/v1/sandbox/webhook-endpoint', 'get', 'responses')['429'];
    expect(problemsOf(authThrottleCopies(1, doc))).toEqual([
      expect.stringMatching(
        /^Variant 1 sandboxGetWebhookEndpoint: no 429 AUTH_THROTTLED response; its security scheme has x-auth-failure-limit/,
      ),
    ]);
  });

  it('the confirmation SMS of the examples says the payment window', async () => {
    const { doc } = await fixtures(1);
    expect(paymentWindowCopies(1, doc).copies.length).toBeGreaterThan(0);
    expect(problemsOf(paymentWindowCopies(1, doc))).toEqual([]);
    objectAt(doc, 'components', 'schemas', 'TransactionStatus', 'x-state-machine', 'paymentWindow').defaultSeconds = 600;
    expect(paymentWindowCopies(1, doc).copies.map((c) => c.expected)).toContain(
      'Atlas Electronics: confirm your payment of 1299.50 MAD (ORD-7K2M9Q4XAB) within 10 minutes.',
    );
  });

  it('a copy is found in the file under spec/ the bundle took it from', async () => {
    const apis = await listApis();
    const v2 = apis.find((a) => a.variant === 2)!;
    const spec = path.dirname(v2.root);
    const at = (pointer: string) => {
      const place = sourceOf(v2.root, pointer);
      return place && where(spec, place);
    };
    expect(at('#/components/headers/RateLimit-Policy/schema/const')).toBe('components/headers/RateLimit-Policy.yaml#/schema/const');
    expect(at('#/paths/~1api~1v1~1public~1sessions/post/responses/200/content/application~1json/examples/created/value/expires_in')).toBe(
      'paths/api_v1_public_sessions.v2.yaml#/post/responses/200/content/application~1json/examples/created/value/expires_in',
    );
    expect(at('#/paths/~1api~1v1~1public~1partner~1transactions/post/x-sandbox-scenarios/amounts/2/total')).toBe(
      'components/facts/SandboxScenarios.yaml#/amounts/2/total',
    );
    expect(at('#/components/headers/No-Such-Header/example')).toBeUndefined();
  });

  /** @checks ADR-086 */
  it('--fix: three facts edited in a copy of spec/, every copy written where it is, nothing else changed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylater-fix-'));
    try {
      cpSync(SPEC_DIR, path.join(dir, 'spec'), { recursive: true });
      const edit = (file: string, from: RegExp, to: string) => {
        const f = path.join(dir, 'spec', file);
        writeFileSync(f, readFileSync(f, 'utf8').replace(from, to));
      };
      edit('components/facts/AmountRange.yaml', /^maximum: 15000$/m, 'maximum: 20000');
      edit('components/facts/SessionRateLimit.yaml', /^limit: 100\nwindowSeconds: 900$/m, 'limit: 40\nwindowSeconds: 600');
      edit('components/securitySchemes/SessionToken.yaml', /^x-token-lifetime-seconds: 3600$/m, 'x-token-lifetime-seconds: 1800');
      const before = new Map(readdirSync(path.join(dir, 'spec'), { recursive: true, encoding: 'utf8' }).map((f) => [f, readText(dir, f)]));
      const copiesOf = async () => {
        const all = [];
        for (const api of await listApis())
          all.push(...factCopies(api.variant, await bundleApi({ ...api, root: path.join(dir, 'spec', path.basename(api.root)) })).copies);
        return all;
      };
      const roots = Object.fromEntries((await listApis()).map((a) => [a.variant, path.join(dir, 'spec', path.basename(a.root))]));
      const { writes, problems } = copyWrites(path.join(dir, 'spec'), roots, await copiesOf());
      expect(problems).toEqual([]);
      expect(writes.map((w) => where(path.join(dir, 'spec'), w)).sort()).toEqual([
        'components/facts/SandboxScenarios.yaml#/amounts/2/total',
        'components/headers/RateLimit-Limit.yaml#/example',
        'components/headers/RateLimit-Policy.yaml#/example',
        'components/headers/RateLimit-Policy.yaml#/schema/const',
        'components/responses/PartnerCreateUnprocessable.yaml#/content/application~1json/examples/AMOUNT_OUT_OF_RANGE/value/error/message',
        'components/responses/SessionBadRequest.yaml#/content/application~1json/examples/INVALID_AMOUNT/value/error/details/0/message',
        'components/responses/SessionBadRequest.yaml#/content/application~1json/examples/INVALID_AMOUNT/value/error/message',
        'components/schemas/SessionRequestV1.yaml#/properties/total/maximum',
        'components/schemas/SessionResponseV2.yaml#/properties/expires_in/const',
        'paths/api_v1_public_sessions.v2.yaml#/post/responses/200/content/application~1json/examples/created/value/expires_in',
      ]);
      await writeCopies(writes);
      expect((await copiesOf()).filter((c) => c.reason)).toEqual([]);
      // each write changed the one line of its scalar, quoting kept
      let changed = 0;
      for (const [f, text] of before) {
        const now = readText(dir, f).split('\n');
        text.split('\n').forEach((line, i) => void (line !== now[i] && changed++));
      }
      expect(changed).toBe(writes.length);
      expect(readText(dir, 'components/responses/SessionBadRequest.yaml')).toContain(
        "message: 'total must be between 500.00 and 20000.00 MAD'",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

function readText(dir: string, rel: string): string {
  const f = path.join(dir, 'spec', rel);
  return statSync(f).isFile() ? readFileSync(f, 'utf8') : '';
}
