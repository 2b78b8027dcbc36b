/** `memoized`: a result computed once per key while remembered, undefined results too; past the bound, afresh. */
import { expect, it } from 'vitest';
import { memoized } from './memo.ts';

it('computes a key once while it is remembered, an undefined result included, and starts afresh past its bound', () => {
  const asked: string[] = [];
  const f = memoized(3, (k: string) => {
    asked.push(k);
    return k === 'none' ? undefined : k.length;
  });
  expect([f('a'), f('bb'), f('a'), f('none'), f('none'), f('bb')]).toEqual([1, 2, 1, undefined, undefined, 2]);
  expect(asked).toEqual(['a', 'bb', 'none']);
  // a fourth key: the three forgotten, each computed again when asked
  expect(f('cccc')).toBe(4);
  expect([f('a'), f('cccc')]).toEqual([1, 4]);
  expect(asked).toEqual(['a', 'bb', 'none', 'cccc', 'a']);
});

it('computes a string key longer than its longest each time, remembering nothing of it', () => {
  const asked: string[] = [];
  const f = memoized(
    2,
    (k: string) => {
      asked.push(k);
      return { length: k.length };
    },
    4,
  );
  expect(f('abcd')).toBe(f('abcd')); // at the bound: remembered
  expect(f('abcde')).toEqual({ length: 5 });
  expect(f('abcde')).not.toBe(f('abcde')); // past it: computed each time
  expect(f('abcd')).toBe(f('abcd')); // and the remembered key was not pushed out
  expect(asked).toEqual(['abcd', 'abcde', 'abcde', 'abcde']);
});
