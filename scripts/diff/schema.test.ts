/** The schema comparator of `paylater diff` on counts of members (ADR-085's clock advance: `seconds` or `milliseconds`). */
import { describe, expect, it } from 'vitest';
import { compareSchemas } from './schema.ts';

const closed = (props: string[], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(props.map((p) => [p, { type: 'integer' }])),
  ...extra,
});
const limits = (side: 'request' | 'response', base: unknown, revision: unknown) =>
  compareSchemas(side, base, revision).filter((f) => /Properties/.test(f.keys.join('/')));

describe('counts of members, compared as they act', () => {
  it('`{ seconds }` required and closed, then `{ seconds }` or `{ milliseconds }` (one member): the count is unchanged', () => {
    const before = closed(['seconds'], { required: ['seconds'] });
    const after = closed(['seconds', 'milliseconds'], { minProperties: 1, maxProperties: 1 });
    expect(limits('request', before, after)).toEqual([]);
  });
  it('a count that accepts fewer or more members than before is still narrowed or widened', () => {
    const one = closed(['seconds', 'milliseconds'], { minProperties: 1, maxProperties: 1 });
    expect(
      limits('request', one, closed(['seconds', 'milliseconds'], { minProperties: 2, maxProperties: 2 })).map((f) => f.impact),
    ).toEqual(['minor', 'major']);
    // without a count: at most its two members, at least none
    expect(limits('request', one, closed(['seconds', 'milliseconds'])).map((f) => f.message)).toEqual([
      '`maxProperties` of the value 1 → 2 (widened)',
      '`minProperties` of the value 1 → none (widened)',
    ]);
  });
  it('an object that states no count gains none from its required and closed members', () => {
    expect(limits('response', closed(['now', 'offsetSeconds']), closed(['now', 'offsetSeconds', 'offsetMilliseconds']))).toEqual([]);
  });
});
