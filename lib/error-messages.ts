/**
 * The server's catalogue of error messages: every `error.message` the reference server
 * builds itself, by code, as a template (`{name}` marks a value filled in at run time).
 * The server formats its answers from here; `npm run lint` checks that the spec's error
 * examples and the guides' and READMEs' error bodies match a template of their code, so a
 * message shown to a merchant is one the server really sends. Messages of schema validation
 * (ajv's wording, `VALIDATION_ERROR` and the `x-error-code` 400s) are not templated here:
 * the lint holds the documents' copies of those to the spec's examples instead.
 */

export const ERROR_MESSAGES = {
  TRANSACTION_NOT_FOUND: ['Transaction not found'],
  SESSION_NOT_FOUND: ['Session not found', 'Payment intent not found'],
  DELIVERY_NOT_FOUND: ['Webhook delivery not found'],
  INVALID_API_KEY: [
    'Invalid API key',
    'Missing API key: send it in the {header} header',
    'The {header} header was sent more than once',
    'Live keys are not accepted by the sandbox; use a test key (sk_test_…)',
    'Test keys are not accepted in production; use a live key (sk_live_…)',
  ],
  INVALID_SESSION_TOKEN: ['Invalid or expired session token'],
  // {required}: the states the refused operation moves from (read from x-state-machine).
  TRANSACTION_NOT_PENDING: ['Transaction is not in {required} status (current status: {status})'],
  TRANSACTION_NOT_APPROVED: ['Transaction is not in {required} status (current status: {status})'],
  MERCHANT_INACTIVE: ['Merchant account is not active'],
  DUPLICATE_VENDOR_REFERENCE: ['vendorReference {vendorReference} already exists for this merchant'],
  // The second message of RATE_LIMIT_EXCEEDED, STORAGE_UNAVAILABLE and INTERNAL_ERROR: a failure on demand (ADR-052).
  RATE_LIMIT_EXCEEDED: [
    'Too many requests, retry after {seconds} seconds',
    'Simulated (Paylater-Simulate 429): too many requests, retry after {seconds} seconds',
  ],
  AUTH_THROTTLED: ['Too many failed authentications from this address, retry after {seconds} seconds'],
  STORAGE_UNAVAILABLE: [
    'Storage is unavailable, retry after {seconds} seconds',
    'Simulated (Paylater-Simulate 503): storage is unavailable, retry after {seconds} seconds',
  ],
  UNSUPPORTED_MEDIA_TYPE: ['Content-Type must be application/json'],
  PAYLOAD_TOO_LARGE: ['Request body exceeds {kB} kB'],
  INTERNAL_ERROR: ['Internal server error', 'Simulated (Paylater-Simulate 500): internal server error; nothing was changed'],
  NOT_READY: ['The store is not reachable'],
  INVALID_REDIRECT_URL: [
    "redirect_url must be an absolute http(s) URL on one of the merchant's allowed origins",
    'redirect_url is required for the redirect flow',
    "origin must be exactly one of the merchant's allowed origins",
  ],
  // {max}: `x-max-payment-intents` of the operation (ADR-029)
  TOO_MANY_PAYMENT_INTENTS: ['This checkout session already has {max} payment intents; start a new checkout'],
} as const satisfies Record<string, readonly string[]>;

export type CataloguedCode = keyof typeof ERROR_MESSAGES;

/** `template` with each `{name}` replaced by `values[name]`; a missing value is an error (a bug). */
export function formatMessage(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`message "${template}": no value for {${name}}`);
    return String(v);
  });
}

/** The first (or `index`-th) template of `code`, formatted. */
export function errorMessage(code: CataloguedCode, values?: Record<string, string | number>, index = 0): string {
  const t = (ERROR_MESSAGES[code] as readonly string[])[index];
  if (t === undefined) throw new Error(`${code}: no message ${index}`);
  return formatMessage(t, values);
}

/** Each code's templates as patterns, compiled once: every `{name}` captures what a message puts there. */
const PATTERNS = new Map(
  Object.entries(ERROR_MESSAGES as Record<string, readonly string[]>).map(([code, templates]) => [
    code,
    templates.map((t) => ({
      names: [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
      re: new RegExp(
        `^${t
          .split(/\{\w+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('(.+)')}$`,
      ),
    })),
  ]),
);

/**
 * The values `message` gives the `{name}`s of the first of `code`'s templates it is an instance
 * of; null when it is an instance of none; undefined when `code` is not catalogued.
 */
export function catalogueValues(code: string, message: string): Record<string, string> | null | undefined {
  const patterns = PATTERNS.get(code);
  if (!patterns) return undefined;
  for (const p of patterns) {
    const m = p.re.exec(message);
    if (m) return Object.fromEntries(p.names.map((n, i) => [n, m[i + 1]!]));
  }
  return null;
}

/** True when `message` is an instance of one of `code`'s templates; undefined when `code` is not catalogued. */
export function matchesCatalogue(code: string, message: string): boolean | undefined {
  const values = catalogueValues(code, message);
  return values === undefined ? undefined : values !== null;
}
