/**
 * The answer judge's memo (answer.ts `answerViolation`) is exact: an answer identical in every input of the verdict is served
 * from it, and an answer that differs in any one input (the status, the Content-Type, a declared
 * header, the text, the variant) gets the verdict a judge without a memo gives.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { NamedExchange as Exchange } from './exchange.ts';
import { fabricate } from '../conformance/mutants/match.ts';
import { Contract } from './contract.ts';
import { answerJsonReader, answerViolation, MEMO_MAX_KEYS, MEMO_MAX_TEXT, noAnswersAccepted, type AcceptedAnswers } from './answer.ts';
import { answerPrint } from './prints.ts';

const V1 = Contract.for(1);
const V2 = Contract.for(2);
const record = fabricate({
  customerPhone: '212612345678',
  total: 1299.5,
  currency: 'MAD',
  items: [{ name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPrice: 1299.5, categoryId: 42 }],
});

/** An answer's JSON as an ear parses it for itself (a value of its own each time). */
function parsedEachTime(text: string): unknown {
  try {
    return text.length ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
/** How the answers below are read: each time, or by a reader that shares one value per text (the proxy's and the HAR's). */
let read: (text: string) => unknown = parsedEachTime;

function answer(status: number, text: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Exchange {
  const json = read(text);
  return {
    opId: 'getPartnerTransaction',
    method: 'GET',
    url: `http://upstream.test/api/v1/public/partner/transactions/${String(record.id)}`,
    headers: {},
    status,
    responseHeaders: headers,
    responseText: text,
    json,
    sentAt: 1,
    receivedAt: 2,
  };
}

const throttled = JSON.stringify({ error: { code: 'AUTH_THROTTLED', message: 'Too many attempts', retry_after: 5 } });
const valid = () => answer(200, JSON.stringify(record));
const valid429 = () => answer(429, throttled, { 'content-type': 'application/json', 'retry-after': '5' });
const readers: [string, () => (text: string) => unknown][] = [
  ['parsed each time', () => parsedEachTime],
  ['one shared value per text', () => answerJsonReader()],
];

/** The verdict as compared: null, or the violation's place and message. */
const verdict = (j: AcceptedAnswers, c: Contract, ex: Exchange): string | null => {
  const e = answerViolation(c, ex, j);
  return e === null ? null : `${e.jsonPath}: ${e.message}`;
};

describe.each(readers)('answers %s', (_, reader) => {
  beforeEach(() => {
    read = reader();
  });
  afterAll(() => {
    read = parsedEachTime;
  });

  it('an answer identical in every input of the verdict is served from the memo', () => {
    const j = noAnswersAccepted();
    expect(verdict(j, V1, valid())).toBeNull();
    expect(verdict(j, V1, valid429())).toBeNull();
    expect(j.hits).toBe(0);
    expect(verdict(j, V1, answer(200, JSON.stringify(record)))).toBeNull();
    expect(verdict(j, V1, answer(429, throttled, { 'content-type': 'application/json', 'retry-after': '5' }))).toBeNull();
    expect(j.hits).toBe(2);
  });

  it('an answer differing in any one input gets the verdict of a judge without a memo', () => {
    const warmed = noAnswersAccepted();
    for (const c of [V1, V2]) {
      answerViolation(c, valid(), warmed);
      answerViolation(c, valid429(), warmed);
    }
    const text = valid().responseText;
    const others: [string, Exchange][] = [
      ['another status', answer(201, text)],
      ['another Content-Type', answer(200, text, { 'content-type': 'text/plain' })],
      ['no Content-Type', answer(200, text, {})],
      ['a member changed', answer(200, JSON.stringify({ ...record, createdAt: 'yesterday' }))],
      ['a member missing', answer(200, JSON.stringify({ ...record, status: undefined }))],
      ['members in another order', answer(200, JSON.stringify(Object.fromEntries(Object.entries(record).reverse())))],
      ['not JSON', answer(200, text.slice(0, -1))],
      ['a declared header invalid', answer(429, throttled, { 'content-type': 'application/json', 'retry-after': 'soon' })],
      ['a declared header absent', answer(429, throttled, { 'content-type': 'application/json' })],
      ['a declared header empty', answer(429, throttled, { 'content-type': 'application/json', 'retry-after': '' })],
    ];
    for (const [why, ex] of others)
      for (const c of [V1, V2])
        expect(verdict(warmed, c, ex), `${why}, Variant ${c === V1 ? 1 : 2}`).toBe(verdict(noAnswersAccepted(), c, ex));
    // the memo is per variant: Variant 2's judge of Variant 1's record is its own
    expect(verdict(warmed, V2, valid())).toBe(verdict(noAnswersAccepted(), V2, valid()));
    // the cases above are not all accepted: the comparison covers violations
    expect(others.filter(([, ex]) => verdict(noAnswersAccepted(), V1, ex) !== null).length).toBeGreaterThanOrEqual(7);
  });
});

it("answers' JSON is parsed once per text, read-only, and shared; a record's print is kept only for such a value", () => {
  const read = answerJsonReader();
  const text = JSON.stringify(record);
  const a = read(text) as Record<string, unknown>;
  expect(a).toEqual(record);
  // the same text: the same value, not parsed again
  expect(read(text)).toBe(a);
  // another text with the same members: its own value
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(record).reverse()));
  expect(read(reordered)).not.toBe(a);
  expect(read(reordered)).toEqual(a);
  // what several exchanges share cannot be changed, at any depth
  expect(() => {
    a.status = 'APPROVED';
  }).toThrow(TypeError);
  expect(() => {
    (a.items as Array<Record<string, unknown>>)[0]!.quantity = 2;
  }).toThrow(TypeError);
  // a text longer than the memo's bound is parsed each time, and left writable
  const long = JSON.stringify({ ...record, note: 'x'.repeat(MEMO_MAX_TEXT) });
  expect(read(long)).not.toBe(read(long));
  expect(Object.isFrozen(read(long))).toBe(false);
  expect(read('not json')).toBeUndefined();
  expect(read('')).toBeUndefined();
  // the print: a shared record's is kept; a writable one's is made again, so a change shows
  expect(answerPrint(a)).toBe(answerPrint(structuredClone(a)));
  const writable = structuredClone(a);
  const before = answerPrint(writable);
  writable.customerPhone = '212700000000';
  expect(answerPrint(writable)).not.toBe(before);
  // so is a record frozen on top only (not the reader's): a change inside its items shows
  const items = structuredClone(a.items) as Array<Record<string, unknown>>;
  const topFrozen = Object.freeze({ ...a, items });
  const printed = answerPrint(topFrozen);
  items[0]!.quantity = 7;
  expect(answerPrint(topFrozen)).not.toBe(printed);
});

it('the JSON memo holds at most MEMO_MAX_KEYS texts, then starts afresh', () => {
  const read = answerJsonReader();
  const first = read('{"n":0}');
  for (let n = 1; n < MEMO_MAX_KEYS; n++) read(`{"n":${n}}`);
  expect(read('{"n":0}')).toBe(first);
  read('{"n":"one more"}');
  expect(read('{"n":0}')).not.toBe(first);
});
