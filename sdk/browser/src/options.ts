/**
 * What both variants' entry points share: the thrown error messages (part of the public
 * behaviour, see the README) and the resolution of the container, the locale and the API base.
 */
import { isLocale, type Locale } from '../../../lib/i18n.ts';

export const ERRORS = {
  notInitialised: 'Call init() first',
  containerNotFound: 'Container not found',
  sessionTokenRequired: 'session_token is required',
  sessionTokenRequiredV1: 'sessionToken is required',
  popupBlocked: 'Popup blocked. Please allow popups for this site.',
} as const;

/**
 * The API base: data-api-base on the script tag, else the origin the script was served from.
 * Read while the script first runs: `document.currentScript` is null afterwards.
 */
function detectApiBase(): string | undefined {
  const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null) : null;
  if (!script) return undefined;
  const explicit = script.getAttribute('data-api-base');
  if (explicit) return explicit.replace(/\/+$/, '');
  if (script.src) return new URL(script.src).origin;
  return undefined;
}
const SCRIPT_API_BASE = detectApiBase();

/** An explicit API base, else the script's, else this page's origin. */
export function resolveApiBase(explicit: unknown): string {
  if (typeof explicit === 'string' && explicit.length > 0) return explicit.replace(/\/+$/, '');
  if (SCRIPT_API_BASE) return SCRIPT_API_BASE;
  return window.location.origin;
}

/**
 * The checkout made by init; throws `Call init() first` before it.
 * @rule sdk-init-first
 */
export function initialised<T>(checkout: T | null): T {
  if (checkout === null) throw new Error(ERRORS.notInitialised);
  return checkout;
}

/**
 * The session token given to init (non-blank); throws `message` (the variant's wording of
 * `session_token is required`) otherwise.
 * @rule sdk-session-token-required
 */
export function requireSessionToken(token: unknown, message: string): string {
  if (typeof token !== 'string' || token.trim() === '') throw new Error(message);
  return token;
}

/**
 * An element, or the first match of a selector; throws `Container not found` otherwise.
 * @rule sdk-container-not-found
 */
export function resolveContainer(container: unknown): Element {
  if (typeof Element !== 'undefined' && container instanceof Element) return container;
  if (typeof container !== 'string' || container.length === 0) throw new Error(ERRORS.containerNotFound);
  let found: Element | null;
  try {
    found = document.querySelector(container);
  } catch {
    found = null;
  }
  if (!found) throw new Error(ERRORS.containerNotFound);
  return found;
}

/**
 * A supported locale; `en` (with a console warning for an unsupported value) otherwise.
 * @rule ADR-015
 */
export function resolveLocale(locale: unknown): Locale {
  if (locale === undefined || locale === null || locale === '') return 'en';
  if (isLocale(locale)) return locale;
  console.warn(`PayLater: unsupported locale ${JSON.stringify(locale)}; using en (supported: en, fr, ar).`);
  return 'en';
}
