/**
 * HAR 1.2 (the HTTP Archive format) written from the exchanges an ear saw (`paylater proxy --har`,
 * `paylater judge --replay --har`), masked as reports are; recorded/har.ts reads HAR back, as
 * browsers, Playwright, mitmproxy, k6 and this file write it.
 */
import { wasCut, type MaskedExchange } from '../judge/ear-report.ts';
import type { Json } from '../lib/json.ts';

/** HAR 1.2 of exchanges as a report shows them (masked), each entry's comment naming its operation. */
export function harOf(list: MaskedExchange[], creator: string): Json {
  // a body the ear did not copy (over its capture limit) or the exchange ring cut is left out, a comment saying why:
  // a reader judges that exchange on its status
  const kept = (text: string, mimeType: string, notCopied?: boolean) =>
    notCopied || wasCut(text)
      ? { size: -1, mimeType, comment: notCopied ? 'not copied (over the capture limit)' : text.slice(text.lastIndexOf('… (') + 2) }
      : { size: Buffer.byteLength(text), mimeType, text };
  const size = (text: string) => (wasCut(text) ? Number(/… \((\d+) characters/.exec(text)![1]) : Buffer.byteLength(text));
  const entries = list.map((m) => ({
    startedDateTime: m.startedAt,
    time: m.ms,
    request: {
      method: m.method,
      url: m.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(m.headers).map(([name, value]) => ({ name, value })),
      queryString: URL.canParse(m.url) ? [...new URL(m.url).searchParams].map(([name, value]) => ({ name, value })) : [],
      ...(m.body !== undefined || m.requestTruncated
        ? { postData: (({ size: _size, ...p }) => p)(kept(m.body ?? '', m.headers['content-type'] ?? '', m.requestTruncated)) }
        : {}),
      headersSize: -1,
      bodySize: m.requestTruncated ? -1 : m.body === undefined ? 0 : size(m.body),
    },
    response: {
      status: m.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(m.responseHeaders).map(([name, value]) => ({ name, value })),
      content: kept(m.responseText, m.responseHeaders['content-type'] ?? '', m.responseTruncated),
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: m.ms, receive: 0 },
    comment: m.operation,
  }));
  return { log: { version: '1.2', creator: { name: creator, version: '1' }, entries } };
}
