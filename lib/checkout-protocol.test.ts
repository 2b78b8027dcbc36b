import { describe, expect, it } from 'vitest';
import { maxPaymentIntentUrlLength } from '../generated/contract.ts';
import { decodeFragment, encodeFragment, isCheckoutMessage, MESSAGE_SOURCE, safeHttpUrl } from './checkout-protocol.ts';

describe('checkout fragment', () => {
  it('round-trips, including characters that need encoding', () => {
    const f = {
      st: 'st_test_a+b/c=&#',
      flow: 'redirect' as const,
      locale: 'ar',
      redirect_url: 'https://shop.example/return?order=1&x=%20',
    };
    expect(decodeFragment('#' + encodeFragment(f))).toEqual(f);
    const p = { st: 't', flow: 'popup' as const, locale: 'en', origin: 'https://shop.example' };
    expect(decodeFragment(encodeFragment(p))).toEqual(p);
  });
  it('is null without a token or with an unknown flow', () => {
    expect(decodeFragment('#flow=redirect')).toBeNull();
    expect(decodeFragment('#st=x&flow=iframe')).toBeNull();
    expect(decodeFragment('#st=x&flow=toString')).toBeNull();
    expect(decodeFragment('#st=x&flow=button')).toEqual({ st: 'x', flow: 'button', locale: 'en' });
    expect(decodeFragment('')).toBeNull();
  });
});

describe('safeHttpUrl (client-side second line behind ADR-017)', () => {
  it('accepts absolute http(s) URLs', () => {
    expect(safeHttpUrl('https://merchant.example/return?x=1')?.origin).toBe('https://merchant.example');
    expect(safeHttpUrl('http://127.0.0.1:4010/demo/v2/return')?.origin).toBe('http://127.0.0.1:4010');
  });
  it('refuses the open-redirect forms', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '//evil.example',
      '/\\evil.example',
      'http://127.0.0.1:4010@evil.example',
      'https://user:pass@merchant.example/',
      'ftp://merchant.example/',
      '',
      undefined,
      42,
    ]) {
      expect(safeHttpUrl(bad), String(bad)).toBeNull();
    }
  });
  it('takes a URL as long as a payment intent takes one (maxLength of its redirect_url and origin), not longer', () => {
    const url = (length: number) => `https://m.example/${'a'.repeat(length - 'https://m.example/'.length)}`;
    expect(safeHttpUrl(url(maxPaymentIntentUrlLength))?.href).toHaveLength(maxPaymentIntentUrlLength);
    expect(safeHttpUrl(url(maxPaymentIntentUrlLength + 1))).toBeNull();
  });
});

describe('checkout messages', () => {
  it('accepts only well-formed messages from the checkout page', () => {
    expect(isCheckoutMessage({ source: MESSAGE_SOURCE, type: 'completed', status: 'SUCCESS', transaction_id: 't' })).toBe(true);
    expect(isCheckoutMessage({ source: MESSAGE_SOURCE, type: 'cancelled', reason: 'user_cancelled' })).toBe(true);
    expect(isCheckoutMessage({ source: 'other', type: 'completed', status: 'SUCCESS' })).toBe(false);
    expect(isCheckoutMessage({ source: MESSAGE_SOURCE, type: 'completed', status: 'APPROVED' })).toBe(false);
    expect(isCheckoutMessage({ source: MESSAGE_SOURCE, type: 'cancelled', reason: 'popup_closed' })).toBe(false);
    expect(isCheckoutMessage({ source: MESSAGE_SOURCE, type: 'completed', status: 'SUCCESS', transaction_id: 5 })).toBe(false);
    expect(isCheckoutMessage('{"source":"paylater-checkout"}')).toBe(false);
    expect(isCheckoutMessage(null)).toBe(false);
  });
});
