import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { decodeSecret, generateMessageId, generateWebhookSecret, sign, signHeaders } from './signing.ts';

describe('signing (Standard Webhooks v1)', () => {
  it('matches the published Standard Webhooks test vector', () => {
    // From the Standard Webhooks specification's reference libraries.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const body = '{"test": 2432232314}';
    expect(sign(secret, id, 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is verified by the independent standardwebhooks package, and any change fails', () => {
    const secret = generateWebhookSecret();
    const id = generateMessageId();
    const body = JSON.stringify({ event: 'transaction.cancelled', data: { id: 'x', amount: 1299.5 } });
    const headers = signHeaders(secret, id, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));

    const fails = (b: string, h: Record<string, string>, s = secret) => expect(() => new Webhook(s).verify(b, h)).toThrow();
    fails(body.replace('1299.5', '1299.6'), { ...headers });
    fails(body, { ...headers, 'webhook-id': generateMessageId() });
    fails(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) });
    fails(body, { ...headers }, generateWebhookSecret());
  });

  it('signs raw bytes identically to the string form', () => {
    const secret = generateWebhookSecret();
    const body = '{"name":"Café Atlas — الدار البيضاء"}';
    expect(sign(secret, 'msg_1', 1700000000, new TextEncoder().encode(body))).toBe(sign(secret, 'msg_1', 1700000000, body));
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeSecret(a)).toHaveLength(32);
    expect(decodeSecret(a.slice('whsec_'.length))).toEqual(decodeSecret(a));
    expect(generateWebhookSecret()).not.toBe(a);
    expect(() => decodeSecret('whsec_')).toThrow();
    expect(() => decodeSecret('whsec_not base64!')).toThrow();
  });

  it('generates msg_ ids of fixed width that sort by time and match the spec pattern', () => {
    const ids = Array.from({ length: 200 }, (_, i) => generateMessageId(new Date(1_700_000_000_000 + i * 1000)));
    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-Za-z]{22}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => generateMessageId())).size).toBe(1000);
  });
});
