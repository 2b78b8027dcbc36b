/**
 * An answer judged against its operation's declared response (`judgeResponse`: status, content
 * type, body and header schemas, the error code allowed for the status), and the accepted answers
 * remembered exactly (`answerViolation`): polling traffic reads the same record again and again,
 * and an answer identical in everything the judge reads gets the same verdict without running the
 * compiled schema (its formats, date-times above all, are most of it).
 *
 * The memo keeps reads' answers (a write's never repeats: a new id, a new instant). Its key holds
 * every input of the verdict: the contract (one memo per contract), the operation, the status, the Content-Type header as sent, the value of each header the contract
 * declares for that status (absent told apart from empty), and the answer's text (the JSON judged
 * is parsed from that text). Only acceptances are kept (a violation is judged again, so its
 * message names its own exchange); an answer longer than MEMO_MAX_TEXT characters is not kept; at
 * most MEMO_MAX_KEYS per contract, then started afresh.
 */
import { jsonOf } from '../lib/json.ts';
import { memoized } from '../lib/memo.ts';
import type { Contract } from './contract.ts';
import type { Exchange } from './exchange.ts';

/** What the answer judge reads of an exchange: the request line, the operation, the answer. */
export type AnsweredExchange = Pick<Exchange, 'method' | 'url' | 'status' | 'responseHeaders' | 'responseText'> & {
  opId: string;
  json: unknown;
};

/** A contract violation: the operation, the JSON path, what was expected and what came. */
export class ConformanceError extends Error {
  constructor(
    readonly operation: string,
    readonly jsonPath: string,
    message: string,
    readonly expected?: unknown,
    readonly actual?: unknown,
  ) {
    super(`${operation} ${jsonPath}: ${message}`);
    this.name = 'ConformanceError';
  }
}

/** What a check reports to: its count of checks, and `check`, which throws a ConformanceError on a failed one (the suite's Client is one). */
export interface Checker {
  checks: number;
  check(ok: boolean, operation: string, jsonPath: string, message: string, expected?: unknown, actual?: unknown): void;
}

/**
 * Judges one answer against its operation's declared response: status declared, content type, body
 * schema (an error's: `{error: {code, message}}`), header schemas, error code allowed for the status.
 * The suite's client and the judge (`answerViolation`, on every answer an ear hands it) both judge with it.
 * @judges error-shape
 */
export function judgeResponse(contract: Contract, ex: AnsweredExchange, judge: Checker): void {
  const { opId, status } = ex;
  const spec = contract.response(opId, status);
  // messages are written only for a check that fails (the proxy judges every exchange it forwards);
  // no closure made per call either (under tsx each one costs a __name call too)
  judge.check(
    spec !== null,
    opId,
    '$',
    spec !== null
      ? ''
      : `${requestLine(ex)} answered ${status}, a status not declared for ${opId} (body: ${ex.responseText.slice(0, 200)})`,
    'a declared status',
    status,
  );
  if (!spec) return;
  if (spec.contentTypes.length) {
    const ct = (ex.responseHeaders['content-type'] ?? '').split(';')[0]!.trim();
    const declared = spec.contentTypes.includes(ct);
    judge.check(
      declared,
      opId,
      '$',
      declared ? '' : `${requestLine(ex)}: content type ${JSON.stringify(ct)} of ${status} is not declared`,
      spec.contentTypes,
      ct,
    );
    const isJson = ex.json !== undefined;
    judge.check(isJson, opId, '$', isJson ? '' : `${requestLine(ex)}: ${status} body is not JSON: ${ex.responseText.slice(0, 200)}`);
    const validate = spec.validate.get(ct);
    if (validate && !validate(ex.json)) {
      const e = validate.errors![0]!;
      judge.check(
        false,
        opId,
        `$${e.instancePath.replace(/\//g, '.')}`,
        `${requestLine(ex)}: ${status} body: ${e.message} (${JSON.stringify(e.params)})`,
        e.schemaPath,
        valueAt(ex.json, e.instancePath),
      );
    }
    judge.checks++;
  }
  for (const h of spec.headers) {
    const raw = ex.responseHeaders[h.name.toLowerCase()];
    if (raw === undefined) {
      judge.check(
        !h.required,
        opId,
        `header ${h.name}`,
        h.required ? `${requestLine(ex)}: required header ${h.name} missing on ${status}` : '',
      );
      continue;
    }
    const value = h.type === 'integer' || h.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw) : raw;
    const valid = h.validate(value) === true;
    judge.check(
      valid,
      opId,
      `header ${h.name}`,
      valid ? '' : `${requestLine(ex)}: header ${h.name}=${JSON.stringify(raw)}: ${h.validate.errors?.[0]?.message ?? ''}`,
    );
  }
  if (status >= 400) {
    const code = (ex.json as { error?: { code?: string } } | undefined)?.error?.code;
    const allowed = contract.op(opId).errors[String(status)] ?? [];
    const ok = code !== undefined && allowed.includes(code);
    judge.check(
      ok,
      opId,
      '$.error.code',
      ok ? '' : `${requestLine(ex)} answered ${status} with code ${code}, not one allowed with ${status}`,
      allowed,
      code,
    );
  }
}

/** `METHOD /path` of an exchange, for messages: the request whose answer broke a rule. */
export function requestLine(ex: Pick<Exchange, 'method' | 'url'>): string {
  return `${ex.method} ${new URL(ex.url, 'http://origin.invalid').pathname}`;
}

function valueAt(json: unknown, pointer: string): unknown {
  let cur = json;
  for (const p of pointer.split('/').slice(1)) cur = (cur as Record<string, unknown> | undefined)?.[p];
  return cur;
}

export const MEMO_MAX_TEXT = 4096;
export const MEMO_MAX_KEYS = 1000;

/** The values `answerJsonReader` hands out: each read-only throughout and the value of one text (an object or an array). */
const SHARED_ANSWERS = new WeakSet<object>();

/** A parsed JSON value made read-only throughout (`Object.freeze` of every object and array in it). */
function frozen<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * Reads answers' JSON, each text parsed once while remembered: polling reads the same record's text
 * again and again, and its parse was the largest single cost of judging such a read. A remembered
 * value is frozen (nothing may change what several exchanges share: a change throws) and shared by
 * every exchange that answered the same text. Texts longer than MEMO_MAX_TEXT are parsed each time;
 * at most MEMO_MAX_KEYS are held, then started afresh.
 */
export function answerJsonReader(): (text: string | undefined) => unknown {
  const parsed = memoized(MEMO_MAX_KEYS, (text: string): unknown => {
    const v = frozen(jsonOf(text));
    if (v !== null && typeof v === 'object') SHARED_ANSWERS.add(v);
    return v;
  });
  return (text) => (!text || text.length > MEMO_MAX_TEXT ? jsonOf(text) : parsed(text));
}

/** Whether a value is one `answerJsonReader` shares: read-only at every depth, and one text's. */
export const isSharedAnswer = (v: unknown): v is object => v !== null && typeof v === 'object' && SHARED_ANSWERS.has(v);

/** Collects what the judge finds instead of counting checks (the first violation of an answer is thrown). */
const COLLECT: Checker = {
  checks: 0,
  check(ok, operation, jsonPath, message, expected, actual) {
    if (!ok) throw new ConformanceError(operation, jsonPath, message, expected, actual);
  },
};

/**
 * Per contract, the answers it accepted, and how many verdicts the memo gave. An answer whose value
 * `answerJsonReader` shares is remembered by that value and the rest of its key (no string of its
 * whole text to build and hash: the value is one text's, and cannot change); any other by its key
 * and its text.
 */
export interface AcceptedAnswers {
  byContract: WeakMap<Contract, Set<string>>;
  byValue: WeakMap<Contract, WeakMap<object, Set<string>>>;
  hits: number;
}

export const noAnswersAccepted = (): AcceptedAnswers => ({ byContract: new WeakMap(), byValue: new WeakMap(), hits: 0 });

/** Where an answer's acceptance is remembered, and its key there; null: not remembered. */
function acceptedPlace(contract: Contract, ex: AnsweredExchange, accepted: AcceptedAnswers): { set: Set<string>; key: string } | null {
  const head = keyOf(contract, ex);
  if (head === null) return null;
  const value = ex.json;
  if (isSharedAnswer(value)) {
    let byValue = accepted.byValue.get(contract);
    if (!byValue) accepted.byValue.set(contract, (byValue = new WeakMap()));
    let set = byValue.get(value);
    if (!set) byValue.set(value, (set = new Set()));
    return { set, key: head };
  }
  let set = accepted.byContract.get(contract);
  if (!set) accepted.byContract.set(contract, (set = new Set()));
  return { set, key: `${head}\n${ex.responseText}` };
}

/** The first violation of a whole answer in one contract, or null when it accepts the answer (remembered in `accepted`). */
export function answerViolation(contract: Contract, ex: AnsweredExchange, accepted: AcceptedAnswers): ConformanceError | null {
  const place = acceptedPlace(contract, ex, accepted);
  if (place?.set.has(place.key)) {
    accepted.hits++;
    return null;
  }
  try {
    judgeResponse(contract, ex, COLLECT);
  } catch (err) {
    if (!(err instanceof ConformanceError)) throw err;
    return err;
  }
  if (place !== null) {
    if (place.set.size >= MEMO_MAX_KEYS) place.set.clear();
    place.set.add(place.key);
  }
  return null;
}

/** Everything `judgeResponse` reads for its verdict but the answer's text, as one string; null: not remembered (a write's answer never repeats: only reads are). */
function keyOf(contract: Contract, ex: AnsweredExchange): string | null {
  if (ex.method !== 'GET' || ex.responseText.length > MEMO_MAX_TEXT) return null;
  const spec = contract.response(ex.opId, ex.status);
  if (spec === null) return null;
  // header values hold no newline or NUL (RFC 9110 §5.5): NUL marks an absent header
  let key = `${ex.opId}\n${ex.status}\n${ex.responseHeaders['content-type'] ?? '\0'}`;
  for (const h of spec.headers) key += `\n${ex.responseHeaders[h.name.toLowerCase()] ?? '\0'}`;
  return key;
}
