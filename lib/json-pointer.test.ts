/** valueAt: the value a JSON pointer names, escapes decoded, own members only. */
import { describe, expect, it } from 'vitest';
import { valueAt } from './json-pointer.ts';

const doc = { paths: { '/a/b': { get: { 'x~y': 1 } } }, list: [{ n: 'first' }, { n: 'second' }], empty: { '': 0 } };

describe('valueAt', () => {
  it('follows a pointer, in either form, its ~1 and ~0 escapes decoded, into arrays by index', () => {
    expect(valueAt(doc, '#/paths/~1a~1b/get/x~0y')).toBe(1);
    expect(valueAt(doc, '/paths/~1a~1b/get/x~0y')).toBe(1);
    expect(valueAt(doc, '/list/1/n')).toBe('second');
    expect(valueAt(doc, '/empty/')).toBe(0);
    expect(valueAt(doc, '#')).toBe(doc);
    expect(valueAt(doc, '')).toBe(doc);
  });
  it('names nothing past a missing member, at an inherited one, or for what is not a pointer', () => {
    expect(valueAt(doc, '/paths/~1a/get')).toBeUndefined();
    expect(valueAt(doc, '/list/5/n')).toBeUndefined();
    expect(valueAt(doc, '/toString')).toBeUndefined();
    expect(valueAt(doc, '/list/length')).toBe(2);
    expect(valueAt(doc, 'other.yaml#/paths')).toBeUndefined();
  });
});
