/**
 * Failures on demand (ADR-052), per merchant of a test key: a call carrying
 * `Paylater-Simulate: <status>` is answered that status (or 400 where the operation does not
 * declare it, 401 for an unknown key), never run; B1's simulated call stores nothing (a later B3 of
 * its vendorReference does not find it); a fault rule (`sandboxSetFaultRule`) answers the next
 * `times` calls of its operations with its failure. A call is judged against a rule only when it
 * began after the rule was answered and after the previous call the rule could have answered
 * ended (concurrent calls race for the rule's count). And the sandbox API log (ADR-056): an entry
 * records the `Origin` header as its call sent it (`judgeApiLog`).
 */
import { causesSeen, finding, isRecord, variantOf, type Json, type Judging, type Seen } from './context.ts';
import { VARIANTS } from '../generated/index.ts';
import { remember, type FaultRule, type MerchantMemory } from './memory.ts';
import { authHeaderOf, isSessionTokenHeader } from './route.ts';

export const SIMULATE_HEADER = 'paylater-simulate';
const B1 = 'createPartnerTransaction';
const B3 = 'getPartnerTransactionByVendorReference';

/**
 * Whether a failure (a `Paylater-Simulate` value, a fault rule's `failure`) is answered with that
 * status, as `500`, `503`, `429` are; `timeout` gets no answer, so nothing of its calls can be
 * counted or judged by their answers.
 */
const answeredWithStatus = (failure: string): boolean => /^\d{3}$/.test(failure);

/** A fault rule as answered (set, or read back): what it will answer next. */
export function judgeFaultRule(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || s.status !== 200) return;
  const r = isRecord(s.json) && isRecord(s.json.rule) ? s.json.rule : null;
  // its calls may be answered failures that ran nothing: their A1 answers count nothing (sessions.ts)
  m.faultRuleOn = r !== null && r.remaining !== 0;
  if (!s.testKey) return;
  if (s.opId === 'sandboxGetFaultRule') judgeRuleReadBack(s, j, m, r);
  // none, or one the judge can follow; a rule of another shape leaves it not known
  m.faultRuleKnown = r === null;
  if (!r || typeof r.remaining !== 'number' || typeof r.failure !== 'string' || !Array.isArray(r.operations)) {
    m.faultRule = null;
    return;
  }
  m.faultRuleKnown = true;
  m.faultRule = {
    id: typeof r.id === 'string' ? r.id : null,
    failure: r.failure,
    retryAfterSeconds: typeof r.retryAfterSeconds === 'number' ? r.retryAfterSeconds : null,
    operations: r.operations.filter((x): x is string => typeof x === 'string'),
    remaining: r.remaining,
    since: s.receivedAt,
    answeredBy: s.seq,
    lastCallEnd: s.receivedAt,
  };
}

/**
 * A fault rule read back by its sole client (ADR-087): the one the ear saw answered (set, read, or
 * none after a reset), its calls counted down as the ear saw them answered.
 */
function judgeRuleReadBack(s: Seen, j: Judging, m: MerchantMemory, r: Json | null): void {
  const known = m.faultRule;
  if (!m.faultRuleKnown || !causesSeen(s, j)) return;
  const id = r && typeof r.id === 'string' ? r.id : null;
  const problem =
    known === null
      ? r === null
        ? undefined
        : {
            path: '$.rule',
            expected: null,
            actual: r,
            what: `a rule (${String(id)}), where the ear saw none set since the last answer showed none`,
          }
      : r === null
        ? known.remaining > 0 && answeredWithStatus(known.failure)
          ? {
              path: '$.rule',
              expected: known.remaining,
              actual: null,
              what: `no rule, where the rule answered by exchange ${known.answeredBy} had ${known.remaining} call(s) left`,
            }
          : undefined
        : known.id !== null && id !== known.id
          ? {
              path: '$.rule.id',
              expected: known.id,
              actual: id,
              what: `rule ${String(id)}, not the rule ${known.id} answered by exchange ${known.answeredBy}`,
            }
          : // its calls are counted down only when they are answered its failure (not a timeout)
            typeof r.remaining === 'number' && r.remaining !== known.remaining && answeredWithStatus(known.failure)
            ? {
                path: '$.rule.remaining',
                expected: known.remaining,
                actual: r.remaining,
                what: `remaining ${r.remaining}, where the calls the ear saw answered ${known.failure} leave ${known.remaining} of the rule answered by exchange ${known.answeredBy}`,
              }
            : undefined;
  if (problem)
    j.out.push(
      finding({
        kind: 'no-cause',
        at: s,
        earlier: known ? [known.answeredBy] : [],
        jsonPath: problem.path,
        message: `sandboxGetFaultRule shows ${problem.what}; no other call of the merchant set a rule or used one (ADR-052, ADR-087)`,
        expected: problem.expected,
        actual: problem.actual,
      }),
    );
}

/** @judges ADR-052 */
export function judgeSimulated(s: Seen, j: Judging): void {
  const m = s.merchant;
  if (m === null || !s.testKey || s.truncated) return;
  if (s.opId === 'sandboxSetFaultRule' || s.opId === 'sandboxGetFaultRule') return;
  const push = (jsonPath: string, message: string, expected: unknown, actual: unknown, earlier?: number) =>
    j.out.push(finding({ kind: 'simulate', at: s, earlier: earlier === undefined ? [] : [earlier], jsonPath, message, expected, actual }));
  const ref = isRecord(s.requestJson) && typeof s.requestJson.vendorReference === 'string' ? s.requestJson.vendorReference : undefined;
  const key = (r: string) => `${m.id}\n${r}`;
  const notStored = j.memory.simulatedReferences;
  if (s.opId === 'sandboxReset' && s.status === 200) {
    m.faultRule = null;
    m.faultRuleKnown = true;
  }
  const asked = s.ex.headers[SIMULATE_HEADER];
  if (asked !== undefined && answeredWithStatus(asked)) {
    if (s.status !== Number(asked) && s.status !== 400 && s.status !== 401)
      push(
        '$',
        `${s.opId} with ${SIMULATE_HEADER}: ${asked} answered ${s.status}; the call is answered that failure instead of running (ADR-052)`,
        Number(asked),
        s.status,
      );
    else if (s.status === Number(asked) && s.opId === B1 && ref !== undefined) remember(notStored, key(ref), s.seq, j.memory.max);
    if (s.status === 429 && asked === '429') judgeSimulatedWait(s, j, null);
    return;
  }
  const rule = m.faultRule;
  if (rule && rule.remaining > 0 && rule.operations.includes(s.opId) && answeredWithStatus(rule.failure)) {
    const sequential = s.sentAt >= rule.since && s.sentAt >= rule.lastCallEnd;
    rule.lastCallEnd = Math.max(rule.lastCallEnd, s.receivedAt);
    if (String(s.status) === rule.failure) {
      rule.remaining--;
      // the rule's wait is known only while the ear sees every call that could have replaced the rule
      if (s.status === 429 && causesSeen(s, j)) judgeSimulatedWait(s, j, rule);
      if (s.opId === B1 && ref !== undefined) remember(notStored, key(ref), s.seq, j.memory.max);
    } else if (sequential && s.status < 300)
      push(
        '$',
        `${s.opId} answered ${s.status} while the fault rule answered by exchange ${rule.answeredBy} had ${rule.remaining} call(s) of ${rule.operations.join(', ')} left to answer ${rule.failure} (ADR-052)`,
        Number(rule.failure),
        s.status,
        rule.answeredBy,
      );
  } else if (s.status >= 400 && m.faultRuleKnown && causesSeen(s, j)) judgeNoRuleLeft(s, j, m);
  if (s.opId === B1 && s.status < 300 && ref !== undefined) notStored.delete(key(ref));
  const named = s.params.vendorReference;
  const failed = named === undefined ? undefined : notStored.get(key(named));
  if (s.opId === B3 && s.status === 200 && failed !== undefined)
    push(
      '$',
      `B3 found vendorReference ${named}, which only a simulated B1 failure (exchange ${failed}) named: a simulated call stores nothing (ADR-052)`,
      404,
      200,
      failed,
    );
}

/**
 * A simulated 429's wait (`error.retry_after`): the one its fault rule named, else `retryAfterSeconds`
 * of the operation's `x-simulate` (ADR-052). A wait that differs from `Retry-After` is the suite's
 * and the answer schema's to report; this one reads the length.
 */
function judgeSimulatedWait(s: Seen, j: Judging, rule: FaultRule | null): void {
  const named = rule?.retryAfterSeconds ?? null;
  const expected = named ?? j.settings.contracts.get(variantOf(s))?.simulation(s.opId)?.retryAfterSeconds ?? null;
  const error = isRecord(s.json) && isRecord(s.json.error) ? s.json.error : null;
  if (expected === null || error === null || error.retry_after === expected) return;
  const ruleName = rule ? `the fault rule answered by exchange ${rule.answeredBy}` : 'the call';
  const whose = named !== null ? `${ruleName} names its wait` : `${ruleName} names no wait, so it is x-simulate's retryAfterSeconds`;
  j.out.push(
    finding({
      kind: 'simulate',
      at: s,
      earlier: rule ? [rule.answeredBy] : [],
      jsonPath: '$.error.retry_after',
      message: `a simulated 429 of ${s.opId} waits ${String(error.retry_after)} s; ${whose}, ${expected} s (ADR-052)`,
      expected,
      actual: error.retry_after,
    }),
  );
}

/**
 * A call answered as a fault rule answers, while its merchant has no rule left to answer it (the
 * ear its sole client, ADR-087): its own rule spent, or another merchant's rule's failure.
 */
function judgeNoRuleLeft(s: Seen, j: Judging, m: MerchantMemory): void {
  const answers = (r: FaultRule | null): r is FaultRule => r !== null && r.operations.includes(s.opId) && r.failure === String(s.status);
  const push = (rule: FaultRule, why: string): void => {
    j.out.push(
      finding({
        kind: 'no-cause',
        at: s,
        earlier: [rule.answeredBy],
        jsonPath: '$',
        message: `${s.opId} answered ${s.status} as the fault rule answered by exchange ${rule.answeredBy} does, ${why} (ADR-052, ADR-087)`,
        expected: 'the call run',
        actual: s.status,
      }),
    );
  };
  const own = m.faultRule;
  if (answers(own)) {
    if (s.sentAt >= own.lastCallEnd) push(own, 'after it had answered all its calls; later calls run as usual');
    return;
  }
  if (own !== null) return;
  for (const other of j.memory.merchants.values())
    if (other !== m && answers(other.faultRule))
      return push(
        other.faultRule,
        "another merchant's, to a merchant the ear knows has none; a fault rule answers its own merchant's calls only",
      );
}

/** Most (operation, path, status) the API log judge keeps per merchant, oldest first out; Origin values kept per one. */
const API_LOG_KEYS = 1000;
const ORIGINS_PER_KEY = 8;

/** A call of a test key (or of its sessions) forwarded: the Origin it carried, for the API log's judge. */
export function noteApiLogCall(s: Seen, j: Judging): void {
  const merchant = s.merchant ?? (s.token === undefined ? null : j.memory.merchants.get(j.memory.tokens.get(s.token)?.merchant ?? ''));
  if (!merchant || (!s.testKey && s.token === undefined)) return;
  const k = `${s.opId} ${s.method} ${s.pathname} ${s.status}`;
  let set = merchant.apiLogOrigins.get(k);
  if (!set) {
    if (merchant.apiLogOrigins.size >= API_LOG_KEYS) merchant.apiLogComplete = false;
    remember(merchant.apiLogOrigins, k, (set = new Set()), API_LOG_KEYS);
  }
  if (set.size < ORIGINS_PER_KEY) set.add(s.ex.headers.origin ?? null);
}

/** An operation called with an API key (a session token's calls are the merchant's too, but a token issued before the ear started names no merchant to it). */
const keyAuthenticated = (opId: string): boolean =>
  VARIANTS.some((v) => {
    const h = authHeaderOf(v, opId);
    return h !== null && !isSessionTokenHeader(h);
  });

/** A recording started (sandboxSetApiLog answered): the log holds the calls from now on. */
export function judgeApiLogStart(s: Seen, j: Judging): void {
  if (s.status !== 200 || !s.merchant) return;
  s.merchant.apiLogOrigins.clear();
  s.merchant.apiLogComplete = causesSeen(s, j);
  // the call that started the recording may be its first entry
  noteApiLogCall(s, j);
}

/**
 * A `sandboxGetApiLog` answer: each entry's origin one its call carried (the calls forwarded since
 * the recording started; none counts as null).
 * @judges ADR-056
 */
export function judgeApiLog(s: Seen, j: Judging): void {
  if (s.status !== 200 || s.merchant === null) return;
  const entries = isRecord(s.json) && Array.isArray(s.json.entries) ? s.json.entries : [];
  for (const [i, e] of entries.entries()) {
    if (!isRecord(e) || typeof e.operationId !== 'string' || typeof e.path !== 'string') continue;
    const call = `${e.operationId} ${String(e.method)} ${e.path} ${String(e.status)}`;
    const seen = s.merchant.apiLogOrigins.get(call);
    if (!seen && s.merchant.apiLogComplete && causesSeen(s, j) && keyAuthenticated(e.operationId)) {
      j.out.push(
        finding({
          kind: 'no-cause',
          at: s,
          jsonPath: `$.entries[${i}]`,
          message: `the API log records ${call}, which no call made with this merchant's key since the recording started was (ADR-056: it records the caller's calls only; ADR-087)`,
          expected: 'the calls made with its key',
          actual: call,
        }),
      );
      return;
    }
    const origin = typeof e.origin === 'string' ? e.origin : null;
    if (!seen || seen.has(origin)) continue;
    j.out.push(
      finding({
        kind: 'api-log',
        at: s,
        jsonPath: `$.entries[${i}].origin`,
        message: `the API log records ${e.operationId} ${String(e.method)} ${e.path} (${String(e.status)}) with origin ${JSON.stringify(e.origin)}; the calls forwarded there carried ${[...seen].map((x) => JSON.stringify(x)).join(' or ')} (ADR-056: the Origin as sent)`,
        expected: [...seen],
        actual: e.origin,
      }),
    );
    return;
  }
}
