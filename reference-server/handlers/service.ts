/**
 * The service probes (ADR-040), operations without a key: they read no caller, only the
 * server's own state, so their `ctx` carries the operation and nothing of a merchant.
 */
import { errorMessage } from '../../lib/error-messages.ts';
import { ApiError } from '../http/errors.ts';
import { operationNumber } from './common.ts';
import type { Handlers } from './context.ts';

/**
 * Liveness answers while the process answers HTTP; readiness answers 503 NOT_READY while the
 * store refuses writes after a failed one (ADR-026), or when its writes do not reach the disk
 * within `x-readiness-timeout-ms`.
 * @rule ADR-040
 */
export const serviceHandlers: Handlers<'getHealth' | 'getReadiness'> = {
  getHealth: () => Promise.resolve({ status: 200, body: { status: 'ok' } }),

  async getReadiness(core, ctx) {
    if (core.repo.unavailableFor() !== null) throw new ApiError('NOT_READY', errorMessage('NOT_READY'));
    const timeout = operationNumber(ctx, 'x-readiness-timeout-ms');
    let timer: NodeJS.Timeout | undefined;
    const ready = await Promise.race([
      core.repo.ping().catch(() => false),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeout))),
    ]);
    clearTimeout(timer);
    if (!ready) throw new ApiError('NOT_READY', errorMessage('NOT_READY'));
    return { status: 200, body: { status: 'ready' } };
  },
};
