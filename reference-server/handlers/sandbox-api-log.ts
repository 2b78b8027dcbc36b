/**
 * The recorded API calls of the caller (ADR-056): start recording (forgetting the previous
 * recording), stop, read. The calls are appended by http/api-log.ts.
 */
import type { Core } from '../core.ts';
import { iso } from '../domain/clock.ts';
import { API_LOG_LIMIT, startedLog } from '../http/api-log.ts';
import type { Handlers } from './context.ts';

function view(core: Core, merchantId: string) {
  const log = core.merchantState(merchantId).apiLog;
  return log ?? { recording: false, startedAt: null, limit: API_LOG_LIMIT, dropped: 0, entries: [] };
}

export const sandboxApiLogHandlers: Handlers<'sandboxGetApiLog' | 'sandboxSetApiLog'> = {
  sandboxGetApiLog: (core, ctx) => Promise.resolve({ status: 200, body: view(core, ctx.merchant.id) }),

  async sandboxSetApiLog(core, ctx) {
    const { recording } = ctx.body;
    const id = ctx.merchant.id;
    const now = iso(core.now(id));
    await core.updateMerchantState(id, (st) => {
      if (recording) return { ...st, apiLog: startedLog(now) };
      return st.apiLog ? { ...st, apiLog: { ...st.apiLog, recording: false } } : st;
    });
    return { status: 200, body: view(core, id) };
  },
};
