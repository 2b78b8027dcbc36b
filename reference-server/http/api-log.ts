/**
 * The sandbox's record of a merchant's API calls for the go-live check (ADR-056): while the
 * merchant records (`PUT /api/v1/sandbox/api-log`), each call made with its test key (in any
 * key header, whatever the route) or one of its session tokens is appended to its sandbox state
 * once answered: when (merchant time), the operation of its variant, the status, the
 * transaction the path names, the browser headers, and the failure simulated instead
 * (http/simulate.ts sets `res.locals.simulated`). Nothing is looked at while nobody records.
 */
import type express from 'express';
import { variants } from '../../generated/index.ts';
import { matchRequest } from '../../server/routes.ts';
import type { MerchantConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { iso } from '../domain/clock.ts';
import type { ApiLogEntry, ApiLogRecord, MerchantStateRecord } from '../domain/types.ts';
import type { Authenticator } from './auth.ts';

/** The most entries a log keeps (later calls are counted in `dropped`). */
export const API_LOG_LIMIT = 200;

type AuthArg = Parameters<Authenticator['key']>[1];

interface Caller {
  merchant: MerchantConfig;
  credential: ApiLogEntry['credential'];
}

/** The header names credentials come in: every operation's key header, and the session token's. */
function credentialHeaders(): { keys: string[]; token: string | null } {
  const keys = new Set<string>();
  let token: string | null = null;
  for (const v of ['v1', 'v2'] as const) {
    for (const o of Object.values(variants[v].operations as Record<string, { authHeader: string | null; security: readonly string[] }>)) {
      if (!o.authHeader) continue;
      if (o.security.includes('SessionToken')) token = o.authHeader.toLowerCase();
      else keys.add(o.authHeader.toLowerCase());
    }
  }
  return { keys: [...keys], token };
}

function header(req: express.Request, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? v.join(', ') : null;
}

/** A fresh recording (`recording` true) or `log` stopped. */
export function startedLog(nowIso: string): ApiLogRecord {
  return { recording: true, startedAt: nowIso, limit: API_LOG_LIMIT, dropped: 0, entries: [] };
}

/** `st` with `entry` appended to its log, if it records. */
function appended(st: MerchantStateRecord, entry: ApiLogEntry): MerchantStateRecord {
  const log = st.apiLog;
  if (!log?.recording) return st;
  if (log.entries.length >= log.limit) return { ...st, apiLog: { ...log, dropped: log.dropped + 1 } };
  // Oldest first by the time each call came: a call's entry is written once it is answered, so
  // a quick call may be written before a slower one that came earlier.
  let i = log.entries.length;
  while (i > 0 && log.entries[i - 1]!.at > entry.at) i--;
  const next: ApiLogRecord = { ...log, entries: [...log.entries.slice(0, i), entry, ...log.entries.slice(i)] };
  return { ...st, apiLog: next };
}

const CALL = Symbol('api-log call');

/** A response with its call's state (set by the middleware below). */
type Carrier = express.Response & { [CALL]?: ApiCall };

/** One call's state, kept on its response until answered. */
class ApiCall {
  /** As the call came, at the root (a page router mounted under a path sees less of it when it answers). */
  readonly path: string;
  readonly end: express.Response['end'];
  recorded = false;
  constructor(
    readonly req: express.Request,
    readonly res: express.Response,
  ) {
    this.path = req.path;
    this.end = res.end.bind(res);
  }
}

/**
 * The middleware, mounted before the simulator and the API router.
 *
 * The entry is appended when the answer is about to end (`res.end` waits for the append), so a
 * merchant that reads its log after an answer finds the call in it, whichever instance of a
 * shared sandbox answered which. Whether the merchant records is read from its state as stored
 * then: the router has just read it for a caller it identified (one primary-key read per
 * request already); a call refused before that (a wrong key, a simulated failure) reads it
 * once more. A cache of another instance's writes would miss a recording started there.
 * @rule ADR-056
 */
export function createApiLogRecorder({ core, auth }: { core: Core; auth: Authenticator }): express.RequestHandler {
  const { keys, token } = credentialHeaders();
  const keyAuths = keys.map((h) => ({ kind: 'apiKey', header: h, title: h }) as AuthArg);
  /** The merchant whose key the request carries, if any (no read: the keys are configured). */
  const keyCallerOf = (req: express.Request): Caller | null => {
    for (const a of keyAuths) {
      if (req.headers[a.header] === undefined) continue;
      try {
        return { merchant: auth.key(req, a), credential: 'apiKey' };
      } catch {
        // not a key of this sandbox: the router answers it
      }
    }
    return null;
  };
  /** The merchant of the session token the router accepted for this request, if it did. */
  const sessionCallerOf = (res: express.Response): Caller | null => {
    const who = res.locals.who as { merchant: MerchantConfig; session: unknown } | undefined;
    return who?.session ? { merchant: who.merchant, credential: 'sessionToken' } : null;
  };
  /** The merchant whose key or session token the request carries, if any. */
  const callerOf = async (req: express.Request): Promise<Caller | null> => {
    const byKey = keyCallerOf(req);
    if (byKey) return byKey;
    if (token && req.headers[token] !== undefined) {
      try {
        const { merchant } = await auth.token(req, { kind: 'sessionToken', header: token, title: token } as AuthArg);
        return { merchant, credential: 'sessionToken' };
      } catch {
        return null;
      }
    }
    return null;
  };
  const hasCredential = (req: express.Request): boolean =>
    keys.some((h) => req.headers[h] !== undefined) || (token !== null && req.headers[token] !== undefined);

  /** Appends the call to its merchant's log if that merchant records now; `answered`: the status was sent or is about to be. */
  const record = async (call: ApiCall, answered: boolean): Promise<void> => {
    if (call.recorded) return;
    call.recorded = true;
    const { req, res } = call;
    const caller = keyCallerOf(req) ?? sessionCallerOf(res) ?? (await callerOf(req));
    if (!caller) return;
    const { merchant, credential } = caller;
    if (!res.locals.who) await core.refreshMerchant(merchant.id);
    if (!core.merchantState(merchant.id).apiLog?.recording) return;
    const { path } = call;
    const match = matchRequest(req, path, merchant.variant);
    const params = match?.params ?? {};
    const entry: ApiLogEntry = {
      at: iso(core.now(merchant.id)),
      operationId: match?.entry.operationId ?? null,
      method: req.method,
      path,
      status: answered ? res.statusCode : null,
      credential,
      transactionId: params.transactionId ?? params.transaction_id ?? null,
      vendorReference: params.vendorReference ?? null,
      // the browser headers the call came with
      origin: header(req, 'origin'),
      referer: header(req, 'referer'),
      secFetchSite: header(req, 'sec-fetch-site'),
      simulated: typeof res.locals.simulated === 'string' ? res.locals.simulated : null,
    };
    await core.updateMerchantState(merchant.id, (st) => appended(st, entry));
  };
  const logFailure = (e: unknown) => core.log(`api log: ${e instanceof Error ? e.message : String(e)}`);

  // Shared by every request (no closure made per call): the call's state is on the response.
  function end(this: Carrier, ...args: unknown[]): express.Response {
    const call = this[CALL]!;
    if (call.recorded) return call.end(...(args as []));
    // What `record` would decide without waiting for anything: a caller the router identified
    // (no read needed) whose merchant does not record. Nothing to append: answered at once.
    const known = this.locals.who ? (keyCallerOf(call.req) ?? sessionCallerOf(this)) : null;
    if (known && !core.merchantState(known.merchant.id).apiLog?.recording) {
      call.recorded = true;
      return call.end(...(args as []));
    }
    record(call, true)
      .catch(logFailure)
      .finally(() => call.end(...(args as [])));
    return this;
  }
  // A connection closed with no answer (a simulated timeout, a client gone): logged without a status.
  function closed(this: Carrier): void {
    if (!this.writableFinished) record(this[CALL]!, false).catch(logFailure);
  }

  return (req, res, next) => {
    if (core.config.mode !== 'sandbox' || !hasCredential(req)) {
      next();
      return;
    }
    (res as Carrier)[CALL] = new ApiCall(req, res);
    res.end = end as typeof res.end;
    res.on('close', closed);
    next();
  };
}
