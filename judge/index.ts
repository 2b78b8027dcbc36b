/**
 * The one judge: an exchange in, findings out, one bounded memory (memory.ts) of what it saw, for
 * every ear alike (the suite's client, `paylater proxy`, a HAR file). Built on the model (model/):
 * the judges below only feed it what the memory holds and word its verdicts.
 *
 * Judging is a table keyed by operationId (`OPERATION_JUDGES`: the functions that judge that
 * operation, each named for what it judges), after the judges every exchange gets (the answer's
 * shape in its caller's variant, the request, failures on demand); a request no operation describes
 * is judged by the route table (unrouted.ts). Time comes only from the traffic (clock.ts).
 */
import { createHash } from 'node:crypto';
import { stateMachine, VARIANTS, type Variant } from '../generated/index.ts';
import { jsonOf } from '../lib/json.ts';
import { answerJsonReader, noAnswersAccepted } from './answer.ts';
import { dateAnswered } from './clock.ts';
import { Contract } from './contract.ts';
import { errorCode, type Judging, type Seen, type Settings } from './context.ts';
import { coverageOf } from './coverage.ts';
import { judgeDeliveries, judgeEndpointAnswer, judgeEndpointKept, judgeRedelivery, learnSecrets } from './deliveries.ts';
import { judgeDelivery, sweepEvents } from './events.ts';
import type { Delivery, Exchange, Finding, JudgeCoverage, JudgeOptions } from './exchange.ts';
import { DEFAULT_MAX_TRANSACTIONS, epoch, merchantOf, newMemory, remember, type JudgeMemory } from './memory.ts';
import { judgeRefusal } from './moves.ts';
import { judgePage } from './pages.ts';
import { judgeNotFound, judgeVerification } from './reads.ts';
import { judgeCancel, judgeCreatedRecord, judgeRecordRead, judgeSandboxMove, judgeTransactionsList } from './records.ts';
import { judgeKeySent, judgeRequest } from './request.ts';
import { authHeaderOf, isSessionTokenHeader, paramsOf, routeOf } from './route.ts';
import { judgePaidSession, judgeSessionIssued, judgeTokenUse } from './sessions.ts';
import { judgeApiLog, judgeApiLogStart, judgeFaultRule, judgeSimulated, noteApiLogCall, SIMULATE_HEADER } from './simulate.ts';
import { judgeSmsOutbox, smsMade, smsWalk } from './sms.ts';
import { judgeUnrouted } from './unrouted.ts';
import { candidates, judgeAnswer, pinOf, pinToken } from './variant.ts';
import { judgeClock, judgeReset } from './sandbox.ts';

export type { Delivery, EarFinding, Exchange, Finding, FindingKind, JudgeCoverage, JudgeOptions, NamedExchange } from './exchange.ts';
export type { JudgeMemory } from './memory.ts';

/** The judge, as an ear uses it. */
export interface Judge {
  /**
   * One exchange judged (synchronous: the suite throws the first finding inside the command that
   * caused it). When the ear did not name the operation, `ex.opId` is set to the one it was judged
   * as (`METHOD /path` for a request no operation describes).
   */
  exchange(ex: Exchange): Finding[];
  /** One webhook delivery judged. */
  delivery(d: Delivery): Finding[];
  /**
   * A call that went through the ear unjudged (its answer cut off, its client gone, its judging
   * failed): what it did is not known, so its merchant's sandbox is no longer taken as changed only
   * by the calls judged (`JudgeOptions.soleClient`).
   */
  unjudged(call: { method: string; url: string; headers: Record<string, string> }): void;
  /** What only time shows, as of `now` on the ear's clock: a transition whose event never came. */
  sweep(now: number): Finding[];
  /** What the traffic exercised, in the suite's form. */
  coverage(): JudgeCoverage;
  /** The plain data the judge remembers (for tests and the memory measurement). */
  readonly memory: JudgeMemory;
  readonly settings: Readonly<Settings>;
}

/** A judge of one operation: it reads the exchange and the memory, writes the memory, and adds its findings. */
export type OperationJudge = (s: Seen, j: Judging) => void;

/** The sandbox lists, judged page by page by `judgePage` with what the memory knows of each list's items. */
const transactionsPage: OperationJudge = (s, j) =>
  judgePage(s, j, s.pin?.variant ?? s.variants[0]!, {
    made: () => undefined,
    expected: (query, sentAt) => {
      // read unfiltered: every transaction B1 made through the ear before the read began
      if ([...query.keys()].some((k) => k !== 'limit')) return undefined;
      const ids: string[] = [];
      for (const [id, tx] of j.memory.transactions)
        if (
          tx.merchant === s.merchant?.id &&
          tx.kind === 'partner' &&
          tx.madeAt !== null &&
          epoch(j.memory, tx.madeAt + tx.madeWithinMs) <= sentAt
        )
          ids.push(id);
      return { member: 'id', ids };
    },
  });
const smsPage: OperationJudge = (s, j) =>
  s.merchant &&
  judgePage(s, j, s.pin?.variant ?? s.variants[0]!, {
    made: smsMade(j, s.merchant),
    complete: (walk, at) => smsWalk(j, s.merchant!, walk, at),
  });
const deliveriesPage: OperationJudge = (s, j) =>
  judgePage(s, j, s.pin?.variant ?? s.variants[0]!, {
    made: (item) => {
      const tx = typeof item.transactionId === 'string' ? j.memory.transactions.get(item.transactionId) : undefined;
      const made = tx?.merchant === s.merchant?.id ? tx?.eventMadeDuring : undefined;
      return made && made.event === item.event ? made : undefined;
    },
  });

const refusedById: OperationJudge = (s, j) => judgeRefusal(s, j, false, 'partner');
const refusedByReference: OperationJudge = (s, j) => judgeRefusal(s, j, true, 'partner');
// the sandbox's moves serve either kind of transaction (ADR-019)
const refusedBySandboxMove: OperationJudge = (s, j) => judgeRefusal(s, j, false, null);

/** Per operation, the functions that judge it, in order. */
export const OPERATION_JUDGES: Readonly<Record<string, readonly OperationJudge[]>> = {
  createSession: [judgeSessionIssued],
  getTransactionStatusBySessionToken: [judgeTokenUse],
  createPartnerTransaction: [judgeCreatedRecord],
  getPartnerTransaction: [judgeRecordRead, refusedById],
  getPartnerTransactionByVendorReference: [judgeRecordRead, refusedByReference],
  cancelPartnerTransactionByVendorReference: [judgeCancel, refusedByReference],
  sandboxConfirmTransaction: [judgeSandboxMove, refusedBySandboxMove],
  sandboxCancelTransaction: [judgeSandboxMove, refusedBySandboxMove],
  sandboxCompleteTransaction: [judgeSandboxMove, refusedBySandboxMove],
  verifyTransaction: [judgeVerification],
  sandboxPaySession: [judgePaidSession],
  sandboxListTransactions: [transactionsPage, judgeTransactionsList],
  sandboxListSms: [smsPage, judgeSmsOutbox],
  sandboxListWebhookDeliveries: [deliveriesPage, judgeDeliveries],
  sandboxGetWebhookEndpoint: [judgeEndpointAnswer, judgeEndpointKept],
  sandboxSetWebhookEndpoint: [judgeEndpointAnswer, judgeEndpointKept],
  sandboxRotateWebhookSecret: [learnSecrets, judgeEndpointKept],
  sandboxRedeliverWebhook: [judgeRedelivery],
  sandboxGetClock: [judgeClock],
  sandboxAdvanceClock: [judgeClock],
  sandboxReset: [judgeClock, judgeReset],
  sandboxSetFaultRule: [judgeFaultRule],
  sandboxGetFaultRule: [judgeFaultRule],
  sandboxSetApiLog: [judgeApiLogStart],
  sandboxGetApiLog: [judgeApiLog],
};

/** Operations whose exchanges the reads' 404 comparison does not see (A1 and A2 answer about sessions). */
const SESSION_OPERATIONS = new Set(['createSession', 'getTransactionStatusBySessionToken']);

/** How a test key starts (ADR-020: `sk_test_…` with the sandbox, `sk_live_…` in production); a masked key may be either. */
const TEST_KEY_PREFIX = 'sk_test_';
const MASK_PREFIX = 'MASKED_';

/** The origin-relative path and query of an absolute or origin-relative URL, as sent. */
function pathAndQuery(url: string): { pathname: string; search: string } {
  // an origin-relative URL without a fragment (what the proxy forwards) is read as it is
  const rest =
    url.charCodeAt(0) === 47 && !url.includes('#') ? url : url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/#.*$/, '') || '/';
  const q = rest.indexOf('?');
  return q === -1 ? { pathname: rest, search: '' } : { pathname: rest.slice(0, q), search: rest.slice(q + 1) };
}

export function createJudge(o: JudgeOptions = {}): Judge {
  const fixedVariant = o.variant;
  const contracts = new Map<Variant, Contract>(
    VARIANTS.map((v) => {
      const doc = o.documents?.[v];
      const c = o.contract?.variant === v ? o.contract : doc ? new Contract(v, doc) : Contract.for(v);
      return [v, fixedVariant === undefined || fixedVariant === v ? c.warm() : c];
    }),
  );
  const settings: Settings = {
    fixedVariant,
    soleClient: o.soleClient === true,
    contracts,
    timeOrigin: o.timeOrigin ?? 0,
    tolerance: o.clockToleranceMs ?? DEFAULT_CLOCK_TOLERANCE_MS,
    paymentWindowMs: (o.paymentWindowSeconds ?? stateMachine.paymentWindow.defaultSeconds) * 1000,
    webhookWindowMs: o.webhooks?.windowMs,
    webhookPort: o.webhooks?.port,
    webhookSecret: o.webhooks?.secret,
    payloadValidators: o.webhooks?.validators,
  };
  const memory = newMemory(o.maxTransactions ?? DEFAULT_MAX_TRANSACTIONS);
  const accepted = noAnswersAccepted();
  const answerJson = answerJsonReader();
  /** A merchant id per credential (one SHA-256 per key, not per request); a masked key is its own id; at most 1,000 held. */
  const ids = new Map<string, string>();
  const merchantIdOf = (cred: string): string => {
    if (cred.startsWith(MASK_PREFIX)) return cred;
    let id = ids.get(cred);
    if (id === undefined) remember(ids, cred, (id = createHash('sha256').update(cred).digest('hex').slice(0, 16)), 1000);
    return id;
  };

  /** The operation a request is, by the route table of the variant every key is held to, else of either. */
  const routeFor = (method: string, pathname: string) =>
    routeOf(fixedVariant ?? 1, method, pathname) ?? (fixedVariant ? undefined : routeOf(2, method, pathname));

  /** The credential an operation's call sent, and the merchant (a key) or session token it names. */
  function callerOf(opId: string | undefined, headers: Record<string, string>) {
    const authVariant = fixedVariant ?? (opId !== undefined && contracts.get(1)!.has(opId) ? 1 : 2);
    const auth = opId === undefined ? null : authHeaderOf(authVariant, opId);
    const cred = auth === null ? undefined : headers[auth];
    const session = auth !== null && isSessionTokenHeader(auth);
    const merchant = auth !== null && !session && cred ? merchantOf(memory, merchantIdOf(cred)) : null;
    return { cred, merchant, token: session ? cred : undefined };
  }

  function exchange(ex: Exchange): Finding[] {
    const out: Finding[] = [];
    const j: Judging = { memory, settings, out };
    const sentAt = settings.timeOrigin + ex.sentAt;
    const receivedAt = settings.timeOrigin + ex.receivedAt;
    const { pathname, search } = pathAndQuery(ex.url);
    dateAnswered(memory, ex.responseHeaders.date, sentAt, receivedAt, settings.tolerance);
    // the operation: as the ear named it, else the route table's in the variants the caller may speak
    const named = ex.opId;
    const route = named === undefined ? routeFor(ex.method, pathname) : { opId: named, params: {} };
    const { cred, merchant, token } = callerOf(route?.opId, ex.headers);
    const testKey = cred !== undefined && (cred.startsWith(TEST_KEY_PREFIX) || cred.startsWith(MASK_PREFIX));
    if (merchant && testKey) merchant.testKey = true;
    const pin = pinOf(memory, fixedVariant, merchant, token);
    const variants = route ? candidates(pin, contracts, route.opId) : [];
    if (!route || !variants.length) {
      ex.opId ??= `${ex.method} ${pathname}`;
      memory.seen.unrouted++;
      if (!ex.responseTruncated) out.push(...judgeUnrouted(ex, pathname, j, merchantIdOf));
      return out;
    }
    ex.opId ??= route.opId;
    // an operation the ear named: its path parameters read by that operation's template
    const params = named === undefined ? route.params : (paramsOf(variants[0]!, route.opId, pathname) ?? {});
    const json = ex.responseTruncated ? undefined : (ex.json ?? answerJson(ex.responseText));
    const requestJson = ex.requestTruncated ? undefined : jsonOf(ex.body);
    const s: Seen = {
      ex,
      seq: ex.seq,
      opId: route.opId,
      method: ex.method,
      pathname,
      search,
      status: ex.status,
      params,
      merchant,
      token,
      testKey,
      pin,
      variants,
      simulated: ex.headers[SIMULATE_HEADER] !== undefined,
      truncated: ex.responseTruncated === true,
      requestJson,
      requestUnreadable: ex.requestTruncated === true || (ex.body !== undefined && ex.body !== '' && requestJson === undefined),
      json,
      sentAt,
      receivedAt,
    };
    seen(s);
    judgeAnswer(s, j, accepted);
    if (!s.truncated && !s.simulated)
      out.push(
        ...judgeRequest({
          seq: s.seq,
          opId: s.opId,
          contracts: (s.pin ? [s.pin.variant] : s.variants).map((v) => contracts.get(v)!),
          params: s.params,
          search,
          headers: ex.headers,
          body: requestJson,
          raw: ex.body,
          unreadable: s.requestUnreadable,
          cut: ex.requestTruncated,
          status: s.status,
          json,
        }),
      );
    judgeKeySent(s, j);
    rememberGet(s);
    noteApiLogCall(s, j);
    judgeSimulated(s, j);
    pinToken(s, j);
    if (s.truncated) return out;
    if (s.status === 404 && !SESSION_OPERATIONS.has(s.opId)) judgeNotFound(s, j);
    for (const judge of OPERATION_JUDGES[s.opId] ?? []) judge(s, j);
    return out;
  }

  /** What the exchange exercised: its operation, its status, its error code. */
  function seen(s: Seen): void {
    const c = memory.seen;
    c.operations.set(s.opId, (c.operations.get(s.opId) ?? 0) + 1);
    c.statuses.add(`${s.opId} ${s.status}`);
    const code = s.status >= 400 ? errorCode(s.json) : undefined;
    if (code !== undefined) c.codes.add(`${s.opId} ${s.status} ${code}`);
  }

  /**
   * Per credential, its latest routed exchange when it was a GET (its URL and status): a HEAD of the
   * same URL right after answers as it did (ADR-024). Any other exchange of the credential clears it.
   */
  function rememberGet(s: Seen): void {
    const key = s.merchant?.id ?? s.token ?? '';
    memory.lastGet.delete(key);
    if (s.method === 'GET') remember(memory.lastGet, key, { url: s.ex.url, status: s.status, seq: s.seq }, 1000);
  }

  return {
    memory,
    settings,
    exchange,
    delivery(d) {
      const out: Finding[] = [];
      judgeDelivery(d, settings.timeOrigin + d.receivedAt, { memory, settings, out });
      return out;
    },
    unjudged(call) {
      const { pathname } = pathAndQuery(call.url);
      const { merchant, token } = callerOf(routeFor(call.method, pathname)?.opId, call.headers);
      const m = merchant ?? (token === undefined ? undefined : memory.merchants.get(memory.tokens.get(token)?.merchant ?? ''));
      if (m) m.unjudgedCall = true;
      // a session token the judge never saw issued may be any merchant's; a call with no credential changes nothing
      else if (token !== undefined) memory.unjudgedUnknownCall = true;
    },
    sweep(now) {
      const out: Finding[] = [];
      sweepEvents({ memory, settings, out }, settings.timeOrigin + now);
      return out;
    },
    coverage: () => coverageOf(memory, fixedVariant, contracts),
  };
}

export const DEFAULT_CLOCK_TOLERANCE_MS = 100;
export { DEFAULT_MAX_TRANSACTIONS };
