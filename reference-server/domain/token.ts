/** Session token validity: the model's token lifetime (model/token.ts) on one instant. */
import { TOKEN_LIFETIME_MS, at, tokenExpiry, tokenState } from '../../model/index.ts';
import type { SessionRecord } from './types.ts';

/** When a session token created at `nowMs` stops being accepted: `tokenLifetimeSeconds` later. */
export function tokenExpiresAt(nowMs: number): number {
  return tokenExpiry(at(nowMs)).from;
}

/**
 * A session token is accepted strictly before its `expiresAt`, in the merchant's time (the model's
 * `tokenState` of a token issued a lifetime before it).
 * @binds token-lifetime
 */
export function isTokenLive(session: Pick<SessionRecord, 'expiresAt'>, nowMs: number): boolean {
  return tokenState(at(Date.parse(session.expiresAt) - TOKEN_LIFETIME_MS), at(nowMs)) === 'valid';
}
