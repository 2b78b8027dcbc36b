import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { directionOf, isLocale, TEXTS } from './i18n.ts';

type Json = Record<string, unknown>;

describe('i18n', () => {
  const specLocales = (((loadBundledDocument(2).components as Json).schemas as Json).Locale as { enum: string[] }).enum;

  it('has texts for exactly the locales of the spec', () => {
    expect(Object.keys(TEXTS).sort()).toEqual([...specLocales].sort());
    for (const l of specLocales) expect(isLocale(l), l).toBe(true);
  });
  it('refuses anything else, including inherited property names', () => {
    for (const bad of ['EN', 'es', '', 'toString', '__proto__', 1, null, undefined]) expect(isLocale(bad), String(bad)).toBe(false);
  });
  it('lays Arabic out right to left', () => {
    expect(directionOf('ar')).toBe('rtl');
    expect(directionOf('en')).toBe('ltr');
    expect(directionOf('fr')).toBe('ltr');
  });
  it('fills every text in every locale', () => {
    for (const [locale, texts] of Object.entries(TEXTS)) {
      for (const [key, value] of Object.entries(texts)) {
        const text = typeof value === 'function' ? value(3) : value;
        expect(text.trim().length, `${locale}.${key}`).toBeGreaterThan(0);
      }
    }
  });
  it('translates every Arabic text: no Latin words but the brand name', () => {
    for (const [key, value] of Object.entries(TEXTS.ar)) {
      const text = typeof value === 'function' ? value(3) : value;
      expect(text.replace(/PayLater/g, ''), `ar.${key}`).not.toMatch(/[A-Za-z]/);
    }
  });
  it('translates the test-mode buttons in French (the seed names them in English)', () => {
    expect(TEXTS.fr.simulateSuccess).not.toBe(TEXTS.en.simulateSuccess);
    expect(TEXTS.fr.simulateFailed).not.toBe(TEXTS.en.simulateFailed);
  });
});
