/** Request bodies that JSON readers disagree on: integers beyond 2^53 − 1 and members named twice (ADR-023). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { item, partnerBody, server } from './test-support/helpers.ts';
import type { TestServer } from './testing.ts';
import { duplicateMemberPath } from '../server/body.ts';

type Api = Awaited<ReturnType<typeof server>>['api'];

let s: TestServer;
let api: Api;
let key: string;
beforeAll(async () => {
  ({ s, api } = await server());
  key = s.merchants[0]!.apiKey;
});
afterAll(() => s.close());

let seq = 0;
const ref = () => `IB-${Date.now().toString(36)}-${++seq}`;
interface Answered {
  error: { code: string; message: string; details?: unknown };
  items: Array<{ categoryId: unknown }>;
}
const create = async (raw: string) => {
  const r = await api('POST', '/api/v1/public/partner/transactions', {
    headers: { 'X-Service-Key': key, 'Content-Type': 'application/json' },
    raw,
  });
  return { status: r.status, text: r.text, body: r.body as Answered };
};
/** A partner create body with `categoryId` written exactly as `literal`. */
const withCategory = (literal: string) =>
  JSON.stringify(partnerBody({ vendorReference: ref(), items: [{ ...item(1299.5), categoryId: 0 }] })).replace(
    '"categoryId":0',
    `"categoryId":${literal}`,
  );

describe('categoryId is a safe integer', () => {
  it('answers 400 beyond 2^53 − 1, however the number is written, and stores nothing', async () => {
    const before = await s.handle.core.repo.count('transactions');
    for (const literal of ['1e300', '1e20', '9223372036854775808', '9223372036854775807', '9007199254740992']) {
      const r = await create(withCategory(literal));
      expect(r.status, literal).toBe(400);
      expect(r.body.error.code, literal).toMatch(/^(VALIDATION_ERROR|INVALID_ITEMS)$/);
      expect(JSON.stringify(r.body.error.details), literal).toContain('categoryId');
    }
    expect(await s.handle.core.repo.count('transactions')).toBe(before);
  });
  it('keeps 2^53 − 1 exact and never echoes an exponent', async () => {
    const r = await create(withCategory('9007199254740991'));
    expect(r.status, r.text).toBe(201);
    expect(r.text).toContain('"categoryId":9007199254740991');
    expect(r.body.items[0]?.categoryId).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('members named twice', () => {
  it('answers 400 VALIDATION_ERROR naming vendorReference or customerPhone, and stores nothing', async () => {
    const before = await s.handle.core.repo.count('transactions');
    const body = JSON.stringify(partnerBody({ vendorReference: ref() }));
    const twiceRef = body.replace('{', `{"vendorReference":"${ref()}",`);
    const twicePhone = body.replace('{', '{"customerPhone":"212600000000",');
    for (const [raw, name] of [
      [twiceRef, 'vendorReference'],
      [twicePhone, 'customerPhone'],
    ] as const) {
      const r = await create(raw);
      expect(r.status, raw).toBe(400);
      expect(r.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: `Request body names the member "${name}" twice`,
        details: [{ path: `/${name}`, message: 'is named twice' }],
      });
    }
    expect(await s.handle.core.repo.count('transactions')).toBe(before);
  });
  it('finds a duplicate at any depth, compares names decoded, and ignores braces in strings', () => {
    expect(duplicateMemberPath('{"a":1,"b":{"c":[1,{"d":1,"d":2}]}}')).toBe('/b/c/1/d');
    expect(duplicateMemberPath('{"a":1,"\\u0061":2}')).toBe('/a');
    expect(duplicateMemberPath('{"a":"{\\"a\\":1,","b":[{"a":1},{"a":2}]}')).toBeNull();
    expect(duplicateMemberPath('{"x/y":1,"x/y":2}')).toBe('/x~1y');
  });
});
