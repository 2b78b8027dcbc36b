/** Type test of Variant 2 (see handlers.v1.ts): its own response shapes and operation set. */
import type { Handler, Handlers } from '../../generated/v2/server.ts';

export const createSession: Handler<'createSession'> = () => ({
  status: 200,
  body: { session_token: 'st_x', expires_in: 3600, session_id: 'ses_1' },
  headers: { 'RateLimit-Limit': 100, 'RateLimit-Remaining': 99, 'RateLimit-Reset': 900, 'RateLimit-Policy': '100;w=900' },
});

// @ts-expect-error Variant 2's session has no `token`/`expiresAt` (Variant 1's shape)
export const v1Shape: Handler<'createSession'> = () => ({ status: 200, body: { token: 'st_x', expiresAt: '2026-01-01T01:00:00.000Z' } });

const internal = { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'x' } } } as const;
// @ts-expect-error verifyTransaction is a Variant 1 operation only
export const noVerify: Partial<Handlers> = { verifyTransaction: () => internal };
