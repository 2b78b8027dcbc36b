import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../../generated/index.ts';
import {
  signTestWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type TransactionEvent,
  type WebhookVerificationErrorCode,
} from './verify.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const schemas = (loadBundledDocument(1) as { components: { schemas: Record<string, { examples?: unknown[] }> } }).components.schemas;
const example = (name: string) => structuredClone(schemas[name]!.examples![0]) as TransactionEvent;
const approved = example('TransactionApprovedEvent');
const cancelled = example('TransactionCancelledEvent');
const expired = example('TransactionExpiredEvent');

/** Signed by the independent standardwebhooks implementation. */
function signed(body: string, at = new Date(), key = secret, id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W') {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, body),
  };
}

function code(fn: () => unknown): WebhookVerificationErrorCode | 'no error' {
  try {
    fn();
    return 'no error';
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.code;
    throw e;
  }
}

describe('verifyWebhook', () => {
  it.each([approved, cancelled, expired])('returns the typed $event of a valid delivery', (event) => {
    const body = JSON.stringify(event);
    const got = verifyWebhook(body, signed(body), secret);
    expect(got).toEqual(event);
    if (got.event === 'transaction.expired') expect(got.data.expiredAt).toBe((event as typeof got).data.expiredAt);
  });

  it('accepts bytes, a Fetch Headers object, mixed-case and array headers, a secret without whsec_', () => {
    const body = JSON.stringify(approved);
    const h = signed(body);
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(h), secret).event).toBe('transaction.approved');
    expect(
      verifyWebhook(
        body,
        { 'Webhook-Id': h['webhook-id'], 'WEBHOOK-TIMESTAMP': h['webhook-timestamp'], 'webhook-signature': [h['webhook-signature']] },
        secret,
      ).event,
    ).toBe('transaction.approved');
    expect(verifyWebhook(body, h, secret.slice('whsec_'.length)).event).toBe('transaction.approved');
  });

  it('accepts any one of several space-separated signatures (secret rotation)', () => {
    const body = JSON.stringify(cancelled);
    const h = signed(body);
    const other = signed(body, new Date(), `whsec_${randomBytes(32).toString('base64')}`)['webhook-signature'];
    expect(verifyWebhook(body, { ...h, 'webhook-signature': `${other} ${h['webhook-signature']}` }, secret).event).toBe(
      'transaction.cancelled',
    );
    expect(verifyWebhook(body, { ...h, 'webhook-signature': `v2,abc ${h['webhook-signature']}` }, secret).event).toBe(
      'transaction.cancelled',
    );
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-signature': other }, secret))).toBe('bad_signature');
    // a v1 signature is only accepted under its own version tag
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-signature': h['webhook-signature'].replace('v1,', 'v2,') }, secret))).toBe(
      'bad_signature',
    );
  });

  it('missing_header for each absent header', () => {
    const body = JSON.stringify(cancelled);
    const h = signed(body);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _gone, ...rest } = h;
      expect(code(() => verifyWebhook(body, rest, secret))).toBe('missing_header');
      expect(code(() => verifyWebhook(body, { ...h, [name]: '' }, secret))).toBe('missing_header');
    }
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-timestamp': '17e8' }, secret))).toBe('invalid_header');
  });

  it('bad_signature when the body, id, timestamp or secret changes', () => {
    const body = JSON.stringify(cancelled);
    const h = signed(body);
    expect(code(() => verifyWebhook(body, h, secret))).toBe('no error');
    expect(code(() => verifyWebhook(body.replace('1299.5', '1299.51'), h, secret))).toBe('bad_signature');
    expect(code(() => verifyWebhook(`${body} `, h, secret))).toBe('bad_signature');
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-id': 'msg_other' }, secret))).toBe('bad_signature');
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) }, secret))).toBe(
      'bad_signature',
    );
    expect(code(() => verifyWebhook(body, h, `whsec_${randomBytes(32).toString('base64')}`))).toBe('bad_signature');
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-signature': 'v1,' }, secret))).toBe('bad_signature');
    expect(code(() => verifyWebhook(body, { ...h, 'webhook-signature': 'garbage' }, secret))).toBe('bad_signature');
  });

  it('timestamp_too_old / timestamp_in_future beyond the tolerance (300 s by default), accepted at the boundary', () => {
    const body = JSON.stringify(expired);
    const now = new Date('2026-11-20T14:35:09Z');
    const at = (s: number) => signed(body, new Date(now.getTime() + s * 1000));
    const opts = { now: () => now };
    expect(code(() => verifyWebhook(body, at(-300), secret, opts))).toBe('no error');
    expect(code(() => verifyWebhook(body, at(-301), secret, opts))).toBe('timestamp_too_old');
    expect(code(() => verifyWebhook(body, at(300), secret, opts))).toBe('no error');
    expect(code(() => verifyWebhook(body, at(301), secret, opts))).toBe('timestamp_in_future');
    expect(code(() => verifyWebhook(body, at(-60), secret, { ...opts, toleranceSeconds: 30 }))).toBe('timestamp_too_old');
  });

  it('malformed_payload for a signed body that is not one of the event schemas', () => {
    const bad: unknown[] = [
      'not json',
      [],
      { ...approved, event: 'transaction.refunded' },
      { ...approved, data: { ...approved.data, status: 'CANCELED' } },
      { ...approved, data: { ...approved.data, approvedAt: undefined } },
      { ...approved, data: { ...approved.data, expiredAt: '2026-11-20T14:35:09.000Z' } },
      { ...cancelled, data: { ...cancelled.data, approvedAt: '2026-11-20T14:35:09.000Z' } },
      { ...expired, data: { ...expired.data, expiredAt: undefined } },
      { ...cancelled, extra: 1 },
      { ...cancelled, data: { ...cancelled.data, id: 'not-a-uuid' } },
      { ...cancelled, data: { ...cancelled.data, currency: 'EUR' } },
      { ...cancelled, data: { ...cancelled.data, customerPhone: '+212612345678' } },
      { ...cancelled, data: { ...cancelled.data, orderReference: 'ord-1' } },
      { ...cancelled, timestamp: '2026-11-20T14:35:09Z' },
      { ...cancelled, data: { ...cancelled.data, amount: '1299.50' } },
    ];
    for (const b of bad) {
      const body = typeof b === 'string' ? b : JSON.stringify(b);
      expect({ body, code: code(() => verifyWebhook(body, signed(body), secret)) }).toEqual({ body, code: 'malformed_payload' });
    }
    const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    const h = signTestWebhook(invalidUtf8, secret);
    expect(code(() => verifyWebhook(invalidUtf8, h, secret))).toBe('malformed_payload');
  });

  it('refuses a parsed object instead of the raw body, and a secret that is not base64', () => {
    const h = signed(JSON.stringify(approved));
    expect(() => verifyWebhook(approved as unknown as string, h, secret)).toThrow(TypeError);
    expect(() => verifyWebhook(JSON.stringify(approved), h, 'whsec_***')).toThrow(TypeError);
  });

  it('signTestWebhook is verified by standardwebhooks', () => {
    const body = JSON.stringify(approved);
    const h = signTestWebhook(body, secret);
    expect(h['webhook-id']).toMatch(/^msg_[0-9A-Za-z]+$/);
    expect(new Webhook(secret).verify(body, h)).toEqual(approved);
  });
});
