import { describe, expect, it } from 'vitest';
import { arrayAt, isJson, objectAt, stableJson, textOf, valueAt } from './json.ts';

describe('json path helpers', () => {
  const doc = { paths: { '/a': { get: { tags: ['x', { name: 'y' }] } } }, n: null };
  it('reach objects, arrays and values by path', () => {
    expect(objectAt(doc, 'paths', '/a')).toEqual({ get: { tags: ['x', { name: 'y' }] } });
    expect(arrayAt(doc, 'paths', '/a', 'get', 'tags')).toHaveLength(2);
    expect(objectAt(doc, 'paths', '/a', 'get', 'tags', 1)).toEqual({ name: 'y' });
    expect(valueAt(doc, 'paths', '/a', 'get', 'tags', 0)).toBe('x');
    expect(valueAt(doc, 'paths', '/b')).toBeUndefined();
  });
  it('name the path where a step is not what it should be', () => {
    expect(() => objectAt(doc, 'paths', '/b')).toThrow('paths › /b is not an object');
    expect(() => valueAt(doc, 'n', 'x')).toThrow('n is not an object');
    expect(() => valueAt(doc, 'paths', 0)).toThrow('paths is not an array');
    expect(() => arrayAt(doc, 'paths')).toThrow('paths is not an array');
    expect(() => objectAt([], 'a')).toThrow('the root is not an object');
  });
  it('tells objects from arrays and null', () => {
    expect([{}, [], null, 'x'].map(isJson)).toEqual([true, false, false, false]);
  });
});

describe('textOf', () => {
  it('writes primitives as String does and objects as JSON', () => {
    expect([1800, '120;w=900', null, undefined, true].map(textOf)).toEqual(['1800', '120;w=900', 'null', 'undefined', 'true']);
    expect(textOf({ a: [1] })).toBe('{"a":[1]}');
  });
});

describe('stableJson', () => {
  it('writes objects in key order at every depth, arrays in their order', () => {
    expect(stableJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(stableJson({ x: 1, y: 2 })).toBe(stableJson({ y: 2, x: 1 }));
    expect(stableJson([1, 2])).not.toBe(stableJson([2, 1]));
  });
  it('writes an absent value as none: equal only to another absent value, never to null or a string "none"', () => {
    expect(stableJson(undefined)).toBe('none');
    expect(stableJson(undefined)).toBe(stableJson(undefined));
    expect(stableJson(undefined)).not.toBe(stableJson(null));
    expect(stableJson(undefined)).not.toBe(stableJson('none'));
    expect(typeof stableJson(() => 1)).toBe('string');
  });
});
