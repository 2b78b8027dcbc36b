/**
 * A message head as the forwarder reads it (start line, fields, framing; a bad one refused), and the
 * header record the judge reads: names in lower case, repeated fields joined, own members only.
 */
import { describe, expect, it } from 'vitest';
import { headerRecord, parseHead, type Head } from './http1.ts';

const request = (fields: string): Head | string => parseHead(`POST /a?b=1 HTTP/1.1\r\nHost: x${fields}`, true);
const response = (fields: string, start = 'HTTP/1.1 200 OK'): Head | string => parseHead(`${start}${fields}`, false);
const framing = (h: Head | string) =>
  typeof h === 'string' ? h : { body: h.body, length: h.length, close: h.close, names: h.connectionNames, keepAliveMs: h.keepAliveMs };

describe('parseHead', () => {
  it('reads the start line and the fields as sent, values without the whitespace around them', () => {
    const h = request('\r\nX-Api-Key: \t key 1 \t\r\nContent-Type:application/json\r\nContent-Length: 2') as Head;
    expect([h.method, h.target, h.minor, h.hosts]).toEqual(['POST', '/a?b=1', 1, 1]);
    expect(h.fields).toEqual(['Host', 'x', 'X-Api-Key', 'key 1', 'Content-Type', 'application/json', 'Content-Length', '2']);
    const r = response('\r\nDate: Mon, 30 Nov 2026 02:34:33 GMT', 'HTTP/1.0 404 Not Found') as Head;
    expect([r.status, r.reason, r.minor, r.fields]).toEqual([404, 'Not Found', 0, ['Date', 'Mon, 30 Nov 2026 02:34:33 GMT']]);
  });

  it.each([
    ['a length', '\r\nContent-Length: 12', { body: 'length', length: 12 }],
    ['a length in any case', '\r\nCONTENT-length: 12', { body: 'length', length: 12 }],
    ['a list of one length', '\r\nContent-Length: 12, 12 ,12', { body: 'length', length: 12 }],
    ['the same length twice', '\r\nContent-Length: 12\r\ncontent-length: 12', { body: 'length', length: 12 }],
    ['a zero length on a request', '\r\nContent-Length: 0', { body: 'none', length: 0 }],
    ['chunked', '\r\nTransfer-Encoding: gzip, Chunked', { body: 'chunked', length: 0 }],
  ])('frames a request body: %s', (_, fields, expected) => {
    expect(framing(request(fields))).toMatchObject(expected);
  });

  it.each([
    ['two different lengths', '\r\nContent-Length: 12\r\nContent-Length: 13'],
    ['a list of different lengths', '\r\nContent-Length: 12, 13'],
    ['a length that is not digits', '\r\nContent-Length: 1e3'],
    ['a signed length', '\r\nContent-Length: +12'],
    ['a length of 16 digits', '\r\nContent-Length: 1234567890123456'],
    ['an empty length', '\r\nContent-Length: '],
  ])('refuses %s', (_, fields) => {
    expect(request(fields)).toBe('an invalid Content-Length');
  });

  it.each([
    ['keep-alive', 'keep-alive', { close: false, names: null }],
    ['Keep-Alive', 'Keep-Alive', { close: false, names: null }],
    ['close', 'Close', { close: true, names: null }],
    ['a list', 'keep-alive, X-Trace ,Upgrade', { close: false, names: ['x-trace', 'upgrade'] }],
    ['a list with close', 'X-Trace, close', { close: true, names: ['x-trace'] }],
  ])('reads the Connection field: %s', (_, value, expected) => {
    expect(framing(response(`\r\nConnection: ${value}\r\nContent-Length: 0`))).toMatchObject(expected);
  });

  it('an HTTP/1.0 message closes unless its Connection says keep-alive', () => {
    expect(framing(response('\r\nContent-Length: 0', 'HTTP/1.0 200 OK'))).toMatchObject({ close: true });
    expect(framing(response('\r\nConnection: KEEP-ALIVE\r\nContent-Length: 0', 'HTTP/1.0 200 OK'))).toMatchObject({ close: false });
  });

  it.each([
    ['timeout=5', 5000],
    ['Timeout=7', 7000],
    ['max=100, timeout=3', 3000],
    ['timeout=2; max=9', 2000],
    ['timeout=', -1],
    ['timeout=x', -1],
    ['max=100', -1],
  ])("reads a response's Keep-Alive: %s", (value, ms) => {
    expect(framing(response(`\r\nKeep-Alive: ${value}`))).toMatchObject({ keepAliveMs: ms });
  });

  it.each([
    ['a folded line', '\r\nX-A: 1\r\n 2', 'a folded header line'],
    ['a line without a colon', '\r\nX-A 1', 'a malformed header line'],
    ['an empty name', '\r\n: 1', 'a malformed header line'],
    ['a space in a name', '\r\nX A: 1', 'a malformed header name "X A"'],
    ['a name of a non-ASCII letter', '\r\nX-é: 1', 'a malformed header name "X-é"'],
    ['a whitespace before the colon', '\r\nX-A : 1', 'a malformed header name "X-A "'],
    ['a control character in a value', '\r\nX-A: 1\u00002', 'a control character in the value of X-A'],
    ['a bare LF in a value', '\r\nX-A: 1\n2', 'a control character in the value of X-A'],
    ['a second Host', '\r\nhost: y', 'more than one Host'],
  ])('refuses a request head with %s', (_, fields, why) => {
    expect(request(fields)).toBe(why);
  });
});

describe('headerRecord', () => {
  it('lower-cases names and joins a repeated field with ", " in the order sent', () => {
    expect(headerRecord(['Content-Type', 'application/json', 'Vary', 'Accept', 'vary', 'Origin'])).toEqual({
      'content-type': 'application/json',
      vary: 'Accept, Origin',
    });
  });

  it('a field named like an Object member (Constructor, toString, hasOwnProperty) is a field like any other', () => {
    const r = headerRecord(['Constructor', 'a', 'toString', 'b', 'hasOwnProperty', 'c', 'toString', 'd']);
    expect(Object.entries(r)).toEqual([
      ['constructor', 'a'],
      ['tostring', 'b, d'],
      ['hasownproperty', 'c'],
    ]);
  });

  it('the same name in another case, over many records, is still the same field', () => {
    for (let i = 0; i < 300; i++) expect(headerRecord([`X-Name-${i}`, '1', `x-name-${i}`, '2'])).toEqual({ [`x-name-${i}`]: '1, 2' });
  });
});
