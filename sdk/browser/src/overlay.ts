/** The page overlay of the popup flow: a dialog over the merchant page while the popup is open. */
import { directionOf, TEXTS, type Locale } from '../../../lib/i18n.ts';
import { applyStyles, el } from './dom.ts';

/** Appends the overlay to `doc.body`, with buttons that focus the popup and cancel the payment. */
export function showOverlay(doc: Document, locale: Locale, actions: { focus(): void; close(): void }): HTMLElement {
  const t = TEXTS[locale];
  const overlay = el(doc, 'div', {
    attrs: { 'data-paylater': 'overlay', role: 'dialog', 'aria-modal': 'true', dir: directionOf(locale) },
    styles: {
      position: 'fixed',
      inset: '0',
      'background-color': 'rgba(0, 0, 0, 0.6)',
      display: 'flex',
      'align-items': 'center',
      'justify-content': 'center',
      'z-index': '2147483647',
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
    },
  });
  const box = el(doc, 'div', {
    styles: {
      'background-color': '#ffffff',
      'border-radius': '12px',
      padding: '24px',
      'max-width': '320px',
      'text-align': 'center',
      display: 'flex',
      'flex-direction': 'column',
      gap: '12px',
    },
  });
  const focus = el(doc, 'button', { text: t.overlayFocus, attrs: { type: 'button', 'data-paylater': 'overlay-focus' } });
  const close = el(doc, 'button', { text: t.overlayClose, attrs: { type: 'button', 'data-paylater': 'overlay-close' } });
  for (const b of [focus, close]) applyStyles(b, { padding: '8px 12px', cursor: 'pointer' });
  focus.addEventListener('click', () => actions.focus());
  close.addEventListener('click', () => actions.close());
  box.append(el(doc, 'p', { text: t.overlayText, styles: { margin: '0' } }), focus, close);
  overlay.append(box);
  doc.body.append(overlay);
  return overlay;
}
