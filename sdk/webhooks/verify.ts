/**
 * Verify a PayLater webhook on your server (Standard Webhooks v1, ADR-005) and get the typed event.
 *
 * ```ts
 * import { verifyWebhook, WebhookVerificationError } from 'paylater-contract/sdk/webhooks';
 * // rawBody: the exact bytes received (do not JSON.parse and re-serialize before verifying)
 * try {
 *   const event = verifyWebhook(rawBody, req.headers, process.env.PAYLATER_WEBHOOK_SECRET!);
 *   if (event.event === 'transaction.approved') fulfil(event.data.id, event.data.approvedAt);
 * } catch (err) {
 *   if (err instanceof WebhookVerificationError) return res.status(400).end(err.code);
 *   throw err;
 * }
 * ```
 *
 * Checks, in order: the three headers are present; `webhook-signature` carries a `v1,`
 * HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` keyed with the base64 part of
 * your `whsec_…` secret (any one of several space-separated signatures, compared in constant
 * time); `webhook-timestamp` is within `toleranceSeconds` (by default the contract's, in
 * `webhookDelivery.signature`) of your clock; the body is JSON and exactly one of the event
 * schemas of the contract.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadBundledDocument, webhookDelivery, type V1 } from '../../generated/index.ts';

export type TransactionApprovedEvent = V1.components['schemas']['TransactionApprovedEvent'];
export type TransactionCancelledEvent = V1.components['schemas']['TransactionCancelledEvent'];
export type TransactionExpiredEvent = V1.components['schemas']['TransactionExpiredEvent'];
export type TransactionEvent = TransactionApprovedEvent | TransactionCancelledEvent | TransactionExpiredEvent;
export type TransactionEventName = TransactionEvent['event'];

export type WebhookVerificationErrorCode =
  'missing_header' | 'invalid_header' | 'bad_signature' | 'timestamp_too_old' | 'timestamp_in_future' | 'malformed_payload';

export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;
  /** Schema errors for `malformed_payload`, the missing header names for `missing_header`. */
  readonly details: unknown;
  constructor(code: WebhookVerificationErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
    this.details = details;
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds (default: the contract's `toleranceSeconds`). */
  toleranceSeconds?: number;
  /** Your clock (default `() => new Date()`). */
  now?: () => Date;
}

export type WebhookHeadersInput = Record<string, string | string[] | undefined> | Headers;

export const DEFAULT_TOLERANCE_SECONDS: number = webhookDelivery.signature.toleranceSeconds;
const SECRET_PREFIX: string = webhookDelivery.signature.secretPrefix;

// ------------------------------------------------------------------ schemas (from the bundled contract)

const EVENT_SCHEMAS: Record<TransactionEventName, string> = {
  'transaction.approved': 'TransactionApprovedEvent',
  'transaction.cancelled': 'TransactionCancelledEvent',
  'transaction.expired': 'TransactionExpiredEvent',
};

let validators: Map<string, ValidateFunction> | undefined;

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] =
        k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
          ? `#/$defs/${v.slice('#/components/schemas/'.length)}`
          : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

function eventValidators(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const doc = loadBundledDocument(1) as { components: { schemas: Record<string, unknown> } };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addFormat('mad', { type: 'number', validate: (n: number) => Number.isFinite(n) && /^-?\d+(\.\d{1,2})?$/.test(String(n)) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addSchema({ $id: 'urn:paylater:webhooks', $defs: rewriteRefs(doc.components.schemas) });
  const map = new Map<string, ValidateFunction>();
  for (const [event, schema] of Object.entries(EVENT_SCHEMAS)) {
    if (!(schema in doc.components.schemas)) throw new Error(`the contract has no ${schema} schema`);
    map.set(event, ajv.compile({ $ref: `urn:paylater:webhooks#/$defs/${schema}` }));
  }
  validators = map;
  return map;
}

/** Compiles the event schemas now instead of at the first verification (call it at start-up). */
export function prepareWebhookVerification(): void {
  eventValidators();
}

/** The event names the contract defines. */
export const TRANSACTION_EVENT_NAMES = Object.keys(EVENT_SCHEMAS) as TransactionEventName[];

function formatAjvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
}

// ------------------------------------------------------------------ headers and signature

function header(headers: WebhookHeadersInput, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  let value = rec[name];
  if (value === undefined) {
    for (const k of Object.keys(rec)) {
      if (k.toLowerCase() === name) {
        value = rec[k];
        break;
      }
    }
  }
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.join(' ');
  return value;
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string') throw new TypeError('webhook secret must be a string');
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0)
    throw new TypeError(`webhook secret must be ${SECRET_PREFIX} followed by base64`);
  return Buffer.from(b64, 'base64');
}

function toBytes(rawBody: string | Uint8Array): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new TypeError('rawBody must be the raw request body (string or bytes), not a parsed object');
}

/** The expected `v1` signature bytes of a message. */
function expectedSignature(key: Buffer, id: string, timestamp: string, body: Buffer): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
}

// ------------------------------------------------------------------ the helper

/**
 * Verifies a webhook and returns the typed event, or throws a `WebhookVerificationError`.
 * `rawBody` must be the exact body received; `headers` as your framework gives them (a plain
 * object such as Node's `req.headers`, or a Fetch `Headers`).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeadersInput,
  secret: string,
  options: VerifyWebhookOptions = {},
): TransactionEvent {
  const key = secretKey(secret);
  const body = toBytes(rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? (() => new Date());

  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', timestamp],
    ['webhook-signature', signature],
  ]
    .filter(([, v]) => v === undefined || v.trim() === '')
    .map(([n]) => n as string);
  if (missing.length > 0) throw new WebhookVerificationError('missing_header', `missing header ${missing.join(', ')}`, missing);
  if (!/^\d{1,12}$/.test(timestamp!.trim())) throw new WebhookVerificationError('invalid_header', 'webhook-timestamp is not Unix seconds');

  const expected = expectedSignature(key, id!, timestamp!.trim(), body);
  let matched = false;
  for (const token of signature!.split(/[\s]+/)) {
    const t = token.replace(/,$/, '');
    const comma = t.indexOf(',');
    if (comma < 0 || t.slice(0, comma) !== 'v1') continue;
    const b64 = t.slice(comma + 1);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) continue;
    const given = Buffer.from(b64, 'base64');
    // lengths are public (an HMAC-SHA256 is 32 bytes); the comparison of equal lengths is constant-time
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched)
    throw new WebhookVerificationError(
      'bad_signature',
      'no v1 signature matches (wrong secret, or the body, webhook-id or webhook-timestamp was changed)',
    );

  const ts = Number(timestamp!.trim());
  const nowSeconds = Math.floor(now().getTime() / 1000);
  if (nowSeconds - ts > tolerance)
    throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is ${nowSeconds - ts} s old (tolerance ${tolerance} s)`);
  if (ts - nowSeconds > tolerance)
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `webhook-timestamp is ${ts - nowSeconds} s in the future (tolerance ${tolerance} s)`,
    );

  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('malformed_payload', 'body is not UTF-8 JSON');
  }
  const name = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { event?: unknown }).event : undefined;
  const validate = typeof name === 'string' ? eventValidators().get(name) : undefined;
  if (!validate) {
    throw new WebhookVerificationError(
      'malformed_payload',
      `unknown event ${JSON.stringify(name)} (expected one of ${TRANSACTION_EVENT_NAMES.join(', ')})`,
    );
  }
  if (!validate(parsed)) {
    throw new WebhookVerificationError(
      'malformed_payload',
      `payload does not match the ${String(name)} schema: ${formatAjvErrors(validate.errors)}`,
      validate.errors,
    );
  }
  return parsed as TransactionEvent;
}

/**
 * Signs a body as PayLater does, to test your handler without the service: returns the three
 * headers. `timestamp` is a Date (default now); `id` defaults to a random `msg_…`.
 */
export function signTestWebhook(
  rawBody: string | Uint8Array,
  secret: string,
  options: { id?: string; timestamp?: Date } = {},
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const id = options.id ?? `msg_test${Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString('hex')}`;
  const ts = String(Math.floor((options.timestamp ?? new Date()).getTime() / 1000));
  const sig = expectedSignature(secretKey(secret), id, ts, toBytes(rawBody)).toString('base64');
  return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` };
}
