/** ADR-058: the ids the server makes are UUID version 7, in the order they were made. */
import { describe, expect, it } from 'vitest';
import { uuid } from './ids.ts';

// @checks ADR-058

describe('server-made ids (ADR-058)', () => {
  it('are UUIDs of version 7 (RFC 9562 variant) whose first 48 bits are the millisecond they were made', () => {
    const ids = Array.from({ length: 2_000 }, () => uuid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Their first 48 bits are the time in milliseconds: never earlier than the previous id's.
    const ms = ids.map((id) => parseInt(id.replace(/-/g, '').slice(0, 12), 16));
    for (let i = 1; i < ms.length; i++) expect(ms[i]).toBeGreaterThanOrEqual(ms[i - 1]!);
    expect(Math.abs(ms.at(-1)! - Date.now())).toBeLessThan(5_000);
  });
});
