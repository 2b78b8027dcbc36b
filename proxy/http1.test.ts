/** The header record the judge reads: names in lower case, repeated fields joined, own members only. */
import { describe, expect, it } from 'vitest';
import { headerRecord } from './http1.ts';

describe('headerRecord', () => {
  it('lower-cases names and joins a repeated field with ", " in the order sent', () => {
    expect(headerRecord(['Content-Type', 'application/json', 'Vary', 'Accept', 'vary', 'Origin'])).toEqual({
      'content-type': 'application/json',
      vary: 'Accept, Origin',
    });
  });

  it('a field named like an Object member (Constructor, toString, hasOwnProperty) is a field like any other', () => {
    const r = headerRecord(['Constructor', 'a', 'toString', 'b', 'hasOwnProperty', 'c', 'toString', 'd']);
    expect(Object.entries(r)).toEqual([
      ['constructor', 'a'],
      ['tostring', 'b, d'],
      ['hasownproperty', 'c'],
    ]);
  });

  it('the same name in another case, over many records, is still the same field', () => {
    for (let i = 0; i < 300; i++) expect(headerRecord([`X-Name-${i}`, '1', `x-name-${i}`, '2'])).toEqual({ [`x-name-${i}`]: '1, 2' });
  });
});
