/**
 * The payment button with its 2x/3x/4x preview, in a shadow root so the merchant page's CSS
 * does not reach it; styles through the CSSOM only (strict CSP).
 */
import { directionOf, TEXTS, type Locale } from '../../../lib/i18n.ts';
import { formatMad, plansFor, toCentimes } from '../../../lib/money.ts';
import type { SessionSummary } from './api.ts';
import { el } from './dom.ts';

/**
 * Replaces `container`'s content with the button (disabled, "Loading…"), then loads the session
 * and fills the preview and the total; on failure shows the session error. Returns the button.
 */
export function renderPayButton(
  container: Element,
  locale: Locale,
  loadSession: () => Promise<SessionSummary>,
  onClick: () => void,
): HTMLButtonElement {
  const doc = container.ownerDocument;
  const host = el(doc, 'div', { attrs: { 'data-paylater': 'root' } });
  const root = host.attachShadow({ mode: 'open' });
  const t = TEXTS[locale];
  const wrap = el(doc, 'div', {
    attrs: { dir: directionOf(locale), lang: locale, 'data-paylater': 'widget' },
    styles: {
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      display: 'inline-flex',
      'flex-direction': 'column',
      gap: '8px',
      'max-width': '420px',
    },
  });
  const button = el(doc, 'button', {
    text: t.loading,
    attrs: { type: 'button', 'data-paylater': 'pay-button', disabled: '' },
    styles: {
      'background-color': '#1d3557',
      color: '#ffffff',
      border: '0',
      'border-radius': '8px',
      padding: '12px 20px',
      'font-size': '16px',
      'font-weight': '600',
      cursor: 'pointer',
    },
  });
  const preview = el(doc, 'div', {
    attrs: { 'data-paylater': 'preview' },
    styles: { 'font-size': '13px', color: '#333333', 'line-height': '1.5' },
  });
  wrap.append(button, preview);
  root.append(wrap);
  container.replaceChildren(host);
  button.addEventListener('click', onClick);

  loadSession().then(
    (session) => {
      const total = toCentimes(session.total);
      preview.append(el(doc, 'div', { text: t.orPayIn }));
      for (const plan of plansFor(total)) {
        const [first, ...rest] = plan.instalments as [number, ...number[]];
        const allEqual = rest.every((c) => c === first);
        const line = allEqual
          ? `${plan.count} × ${formatMad(first, locale)}`
          : `${formatMad(first, locale)} ${t.today}, ${t.then} ${rest.length} × ${formatMad(rest[0]!, locale)}`;
        preview.append(
          el(doc, 'div', {
            text: `${t.planTitle(plan.count)}: ${line}`,
            attrs: {
              'data-paylater': 'plan',
              'data-plan': String(plan.count),
              'data-instalments': plan.instalments.join(','),
            },
          }),
        );
      }
      button.textContent = `${t.pay} · ${formatMad(total, locale)}`;
      button.removeAttribute('disabled');
    },
    (error: unknown) => {
      button.textContent = t.pay;
      preview.append(el(doc, 'div', { text: t.sessionError, attrs: { 'data-paylater': 'session-error', role: 'alert' } }));
      console.error(error);
    },
  );
  return button;
}
