/**
 * Keys, tokens and secrets never leave the proxy in clear: a credential header's value becomes
 * `MASKED_<8 hex digits of its SHA-256>` (the same credential, the same mask, so a report still
 * shows which requests shared a key), and any key, webhook secret or session token in a body or a
 * URL is masked the same way.
 */
import { createHash } from 'node:crypto';
import { credentialHeaders } from '../judge/route.ts';

const CREDENTIAL_HEADERS = new Set(credentialHeaders());

/** A credential as reports show it: 8 hex digits of its SHA-256 (the same credential, the same mask), never the key itself. */
export function mask(value: string): string {
  return `MASKED_${createHash('sha256').update(value).digest('hex').slice(0, 8)}`;
}

/** A value a recording masked (what `mask` writes): what it hid is not judged. */
export const isMasked = (v: unknown): boolean => typeof v === 'string' && /^MASKED_[0-9a-f]{8}$/.test(v);

/** Keys (`sk_test_…`, `sk_live_…`), webhook secrets (`whsec_…`) and JSON members holding a token or secret. */
const SECRET_TEXT = /\b(?:sk_(?:test|live)_|whsec_)[A-Za-z0-9+/=_.-]+/g;
const SECRET_MEMBER = /("(?:token|session_token|secret|webhookSecret|apiKey|api_key)"\s*:\s*")([^"\\]*(?:\\.[^"\\]*)*)(")/g;

export function maskText(s: string, extra: readonly string[] = []): string {
  let out = s;
  for (const x of extra) if (x.length >= 4) out = out.split(x).join(mask(x));
  return out
    .replace(SECRET_MEMBER, (_m, a: string, v: string, b: string) => `${a}${v ? mask(v) : ''}${b}`)
    .replace(SECRET_TEXT, (m) => mask(m));
}

/** Headers with every credential masked (and every other value's secrets). */
export function maskHeaders(h: Record<string, string>, extra: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k] = CREDENTIAL_HEADERS.has(k.toLowerCase()) ? mask(v) : maskText(v, extra);
  return out;
}

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}
