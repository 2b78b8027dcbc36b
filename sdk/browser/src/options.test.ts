/** The browser SDK's locale (ADR-015): a locale of the spec's `Locale` enum is kept, anything else is `en`. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadBundledDocument } from '../../../generated/index.ts';
import { resolveLocale } from './options.ts';

type Json = Record<string, unknown>;
const specLocales = (((loadBundledDocument(2).components as Json).schemas as Json).Locale as { enum: string[]; default?: string }).enum;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('resolveLocale', () => {
  /** @checks ADR-015 */
  it('keeps each locale of the spec, defaults to en, and warns (naming the supported ones) for anything else', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(specLocales).toContain('en');
    for (const l of specLocales) expect(resolveLocale(l), l).toBe(l);
    for (const unset of [undefined, null, '']) expect(resolveLocale(unset), String(unset)).toBe('en');
    expect(warn).not.toHaveBeenCalled();
    for (const bad of ['EN', 'es', 'toString', 1]) expect(resolveLocale(bad), String(bad)).toBe('en');
    expect(warn).toHaveBeenCalledTimes(4);
    const message = String(warn.mock.calls[0]![0]);
    expect(message).toContain('"EN"');
    for (const l of specLocales) expect(message).toContain(l);
  });
});
