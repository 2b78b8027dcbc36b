/** Session token validity. */
import { tokenLifetimeSeconds } from '../../generated/contract.ts';
import type { SessionRecord } from './types.ts';

/** When a session token created at `nowMs` stops being accepted: `tokenLifetimeSeconds` later. */
export function tokenExpiresAt(nowMs: number): number {
  return nowMs + tokenLifetimeSeconds * 1000;
}

/**
 * Seed rule (A2: INVALID_SESSION_TOKEN when the token is "expired (over 1 hour)"; token
 * lifetime 3600 s): a session token is accepted strictly before its `expiresAt`, in the
 * merchant's time.
 * @rule token-lifetime
 */
export function isTokenLive(session: Pick<SessionRecord, 'expiresAt'>, nowMs: number): boolean {
  return nowMs < Date.parse(session.expiresAt);
}
