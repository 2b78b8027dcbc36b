/**
 * Standard Webhooks v1 signing (ADR-005), as the reference server sends it.
 *
 * - `webhook-id`: `msg_` + 22 base62 characters (48-bit millisecond time + 80 random bits,
 *   fixed width, so ids sort by creation time like a ULID).
 * - `webhook-timestamp`: Unix seconds of the attempt (wall-clock time, also in the sandbox:
 *   the receiver checks it against its own clock).
 * - `webhook-signature`: `v1,<base64 HMAC-SHA256("{id}.{timestamp}.{body}")>`, keyed with the
 *   base64-decoded part of the merchant's `whsec_…` secret.
 *
 * The signed-content rule and the secret prefix are read from `webhookDelivery` of the
 * generated contract, not typed again here.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { webhookDelivery } from '../../generated/contract.ts';

export const SECRET_PREFIX: string = webhookDelivery.signature.secretPrefix;
const SIGNED_CONTENT: string = webhookDelivery.signature.signedContent;

if (webhookDelivery.signature.scheme !== 'standard-webhooks-v1' || webhookDelivery.signature.algorithm !== 'HMAC-SHA256') {
  throw new Error(
    `signing.ts implements standard-webhooks-v1 / HMAC-SHA256, the contract says ${webhookDelivery.signature.scheme} / ${webhookDelivery.signature.algorithm}`,
  );
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_BYTES = 16;
/** ceil(128 / log2(62)) = 22 characters hold any 16-byte value. */
const ID_CHARS = 22;

function base62Fixed(bytes: Uint8Array, width: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

/** A new `webhook-id`: `msg_` + 22 base62 characters, sortable by creation time. */
export function generateMessageId(now: Date = new Date()): string {
  const bytes = new Uint8Array(ID_BYTES);
  let ms = BigInt(Math.max(0, Math.floor(now.getTime())));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes.set(randomBytes(ID_BYTES - 6), 6);
  return `msg_${base62Fixed(bytes, ID_CHARS)}`;
}

/** A new merchant secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a secret: the base64-decoded part after `whsec_` (the prefix is optional). */
export function decodeSecret(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new TypeError('webhook secret must be whsec_ followed by standard base64');
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) throw new TypeError('webhook secret is empty');
  return key;
}

/** The exact bytes that are signed: `{webhook-id}.{webhook-timestamp}.{body}`. */
export function signedContent(id: string, timestamp: number | string, body: string | Uint8Array): Buffer {
  const [before, after] = SIGNED_CONTENT.split('{body}') as [string, string | undefined];
  if (after === undefined || after !== '') throw new Error(`unexpected signedContent ${SIGNED_CONTENT}`);
  const head = before.replace('{webhook-id}', id).replace('{webhook-timestamp}', String(timestamp));
  return Buffer.concat([Buffer.from(head, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body)]);
}

/** `v1,<base64 signature>` of one message. `timestamp` is Unix seconds. */
export function sign(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('timestamp must be whole Unix seconds');
  const mac = createHmac('sha256', decodeSecret(secret))
    .update(signedContent(id, timestamp, body))
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The three headers of one attempt, signed afresh at `nowMs` (wall-clock milliseconds). With
 * several secrets (a rotation window, ADR-042) `webhook-signature` holds one space-separated
 * `v1,` entry per secret, in order, as Standard Webhooks specifies.
 * @rule webhook-signing
 */
export function signHeaders(
  secret: string | readonly string[],
  id: string,
  body: string | Uint8Array,
  nowMs: number = Date.now(),
): SignedHeaders {
  const timestamp = Math.floor(nowMs / 1000);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('signHeaders needs a secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}
