/** The session token's lifetime (`x-token-lifetime-seconds`): accepted strictly before issue + lifetime. */
import { tokenLifetimeSeconds } from '../generated/contract.ts';
import { at, reached, shift, type Interval } from './time.ts';

/** The token lifetime in ms. */
export const TOKEN_LIFETIME_MS = tokenLifetimeSeconds * 1000;

/** When a token issued within `issued` stops being accepted. */
export function tokenExpiry(issued: Interval): Interval {
  return shift(issued, TOKEN_LIFETIME_MS);
}

/**
 * Whether a token issued within `issued` is accepted when used within `use`: 'valid', 'expired',
 * or 'either' when the intervals (widened by `slack`) straddle the end of its lifetime.
 * @rule token-lifetime
 */
export function tokenState(issued: Interval, use: Interval, slack = 0): 'valid' | 'expired' | 'either' {
  const v = reached(use, tokenExpiry(issued), slack);
  return v === 'yes' ? 'expired' : v === 'no' ? 'valid' : 'either';
}

/**
 * The answers the lifetime allows to a read with a token issued within `issued`, used within `use`
 * (the caller's clock widened by `slack`): accepted unless it had certainly expired, refused unless
 * it certainly had not. The suite expects these; the proxy reports an answer outside them.
 * @judges token-lifetime
 */
export function tokenAnswers(issued: Interval, use: Interval, slack = 0): { accepted: boolean; refused: boolean } {
  const state = tokenState(issued, use, slack);
  return { accepted: state !== 'expired', refused: state !== 'valid' };
}

/** The one-instant form: a token whose lifetime ends at `expiresAt` is live at `now`. */
export function tokenLive(expiresAt: number, now: number): boolean {
  return tokenState(at(expiresAt - TOKEN_LIFETIME_MS), at(now)) === 'valid';
}
