/** ADR-058: the ids the server makes are UUID version 7, in the order they were made. */
import { describe, expect, it } from 'vitest';
import { uuid, uuidV7FromRandomBytes } from './ids.ts';

// @checks ADR-058

describe('server-made ids (ADR-058)', () => {
  it.each([
    ['crypto.randomUUIDv7 (Node 24)', uuid],
    ['made from random bytes (Node 22)', () => uuidV7FromRandomBytes()],
  ])('%s: UUIDs of version 7 (RFC 9562 variant) whose first 48 bits are the millisecond they were made', (_name, make) => {
    const ids = Array.from({ length: 2_000 }, () => make());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const ms = ids.map((id) => parseInt(id.replace(/-/g, '').slice(0, 12), 16));
    for (let i = 1; i < ms.length; i++) expect(ms[i]).toBeGreaterThanOrEqual(ms[i - 1]!);
    expect(Math.abs(ms.at(-1)! - Date.now())).toBeLessThan(5_000);
  });

  it('the Node 22 form writes the time it is given into the first 48 bits', () => {
    expect(uuidV7FromRandomBytes(0x0123456789ab).slice(0, 15)).toBe('01234567-89ab-7');
  });
});
