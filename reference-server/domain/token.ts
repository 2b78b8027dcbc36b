/** Session token validity: the model's token lifetime (model/token.ts) on one instant. */
import { at, tokenExpiry, tokenLive } from '../../model/index.ts';
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
  return tokenLive(Date.parse(session.expiresAt), nowMs);
}
