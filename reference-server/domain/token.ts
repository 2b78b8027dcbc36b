/** Session token validity. */
import type { SessionRecord } from './types.ts';

/**
 * Seed rule (A2: INVALID_SESSION_TOKEN when the token is "expired (over 1 hour)"; token
 * lifetime 3600 s): a session token is accepted strictly before its `expiresAt`, in the
 * merchant's time.
 */
export function isTokenLive(session: Pick<SessionRecord, 'expiresAt'>, nowMs: number): boolean {
  return nowMs < Date.parse(session.expiresAt);
}
