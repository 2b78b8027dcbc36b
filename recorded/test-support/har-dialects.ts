/**
 * One story of exchanges written as each HAR writer writes it, for har.test.ts. Each shape copies
 * its writer's real output (field names, header case, time format, where bodies go):
 *  - Chromium devtools "Save all as HAR with content" (devtools-frontend models/har/Log.ts): creator
 *    WebInspector, HTTP/2 pseudo-headers and lower-case names, `_resourceType`, `_initiator`,
 *    `_priority`, `_transferSize`, `_error`, a body in base64 with `encoding`, pages and scripts and
 *    another host's calls around the API's, a cancelled request (status 0);
 *  - Playwright 1.65's `recordHar` (a Chromium recording made for this test's fixtures): Title-Case
 *    headers with Host and Connection, `_frameref`, `_monotonicTime`, `_serverPort`,
 *    `_securityDetails`, `postData.params: []`; `content: 'attach'` into a `.zip`: `har.har` and
 *    bodies named by their SHA-1 (`_file`), an empty `postData.text` beside its `_file`;
 *  - mitmproxy's `save.har` (mitmproxy/addons/savehar.py): creator "mitmproxy exporthar", Python's
 *    isoformat (microseconds, `+00:00`), `time` the sum of the timings, `connect`/`ssl` null;
 *  - k6 Studio's recording (src/utils/proxyDataToHar.ts): every answer in base64 with
 *    `encoding: 'base64'`, entries grouped by page (not in time order), `log._browserEvents`;
 *  - `paylater proxy --har` (proxy/har.ts `harOf`): credentials masked, the operation in `comment`.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { isoMicro } from '../../judge/clock.ts';
import { harOf } from '../../proxy/har.ts';
import type { Exchange } from '../../judge/index.ts';
import { maskedExchange } from '../../judge/ear-report.ts';

type Json = Record<string, unknown>;
const pairs = (h: Record<string, string>, name: (k: string) => string = (k) => k) =>
  Object.entries(h).map(([k, v]) => ({ name: name(k), value: v }));
const titleCase = (k: string) => k.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase());
const iso = (ms: number) => new Date(ms).toISOString();
const query = (url: string) => [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** Pages, scripts and another host's calls around the API's, as a browser's recording holds them. */
function noise(
  origin: string,
  at: number,
): { url: string; method: string; status: number; type: string; text: string; mime: string; at: number }[] {
  return [
    {
      url: `${origin}/demo/v2`,
      method: 'GET',
      status: 200,
      type: 'document',
      text: '<!doctype html><title>Shop</title>',
      mime: 'text/html',
      at: at - 400,
    },
    {
      url: `${origin}/demo/assets/demo.js`,
      method: 'GET',
      status: 200,
      type: 'script',
      text: 'console.log(1)',
      mime: 'application/javascript',
      at: at - 300,
    },
    // another API on another host: never judged (its paths are not this contract's)
    {
      url: 'https://www.google-analytics.com/g/collect?v=2&tid=G-1',
      method: 'POST',
      status: 204,
      type: 'ping',
      text: '',
      mime: 'text/plain',
      at: at - 200,
    },
    {
      url: 'https://tracks.example.net/api/v1/track',
      method: 'POST',
      status: 200,
      type: 'fetch',
      text: '{"ok":true}',
      mime: 'application/json',
      at: at - 100,
    },
  ];
}

export function chromeDevtools(story: Exchange[]): Json {
  const origin = new URL(story[0]!.url).origin;
  const entry = (x: Exchange, type: string, base64: boolean): Json => {
    const u = new URL(x.url);
    const pseudo = { ':authority': u.host, ':method': x.method, ':path': u.pathname + u.search, ':scheme': u.protocol.slice(0, -1) };
    return {
      _initiator: { type: 'script', url: `${origin}/sdk/latest/paylater.js`, lineNumber: 0 },
      _priority: 'High',
      _resourceType: type,
      cache: {},
      connection: '9090',
      pageref: 'page_1',
      request: {
        method: x.method,
        url: x.url,
        httpVersion: 'http/2.0',
        headers: [...pairs(pseudo), ...pairs(x.headers), { name: 'sec-fetch-mode', value: 'cors' }],
        queryString: query(x.url),
        cookies: [],
        headersSize: -1,
        bodySize: x.body === undefined ? 0 : Buffer.byteLength(x.body),
        ...(x.body !== undefined ? { postData: { mimeType: 'application/json', text: x.body } } : {}),
      },
      response: {
        status: x.status,
        statusText: '',
        httpVersion: 'http/2.0',
        headers: pairs(x.responseHeaders),
        cookies: [],
        content: {
          size: Buffer.byteLength(x.responseText),
          mimeType: x.responseHeaders['content-type'] ?? 'x-unknown',
          ...(base64 ? { text: Buffer.from(x.responseText).toString('base64'), encoding: 'base64' } : { text: x.responseText }),
        },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
        _transferSize: 711,
        _error: null,
      },
      serverIPAddress: '127.0.0.1',
      startedDateTime: iso(x.sentAt),
      time: x.receivedAt - x.sentAt,
      timings: {
        blocked: 0.5,
        dns: -1,
        ssl: -1,
        connect: -1,
        send: 0.1,
        wait: x.receivedAt - x.sentAt - 0.7,
        receive: 0.1,
        _blocked_queueing: 0.4,
      },
    };
  };
  const others = noise(origin, story[0]!.sentAt).map((n) => ({
    _resourceType: n.type,
    cache: {},
    pageref: 'page_1',
    request: {
      method: n.method,
      url: n.url,
      httpVersion: 'http/2.0',
      headers: [],
      queryString: query(n.url),
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: n.status,
      statusText: '',
      httpVersion: 'http/2.0',
      headers: [{ name: 'content-type', value: n.mime }],
      cookies: [],
      content: { size: n.text.length, mimeType: n.mime, text: n.text },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _transferSize: 0,
      _error: null,
    },
    startedDateTime: iso(n.at),
    time: 5,
    timings: { blocked: 1, dns: -1, ssl: -1, connect: -1, send: 0, wait: 3, receive: 1 },
  }));
  const cancelled = {
    ...others[1],
    request: { ...(others[1]!.request as Json), url: `${origin}/demo/assets/late.js` },
    response: { ...(others[1]!.response as Json), status: 0, content: { size: 0, mimeType: 'x-unknown' }, _error: 'net::ERR_ABORTED' },
  };
  return {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '537.36' },
      pages: [
        {
          startedDateTime: iso(story[0]!.sentAt - 500),
          id: 'page_1',
          title: `${origin}/demo/v2`,
          pageTimings: { onContentLoad: 80, onLoad: 120 },
        },
      ],
      entries: [...others, ...story.map((x, i) => entry(x, 'fetch', i === story.length - 1)), cancelled],
    },
  };
}

/** Playwright's entry; with `attach`, bodies go to files named by their SHA-1 (returned in `files`). */
function playwrightEntry(x: Exchange, attach: Map<string, string> | undefined): Json {
  const u = new URL(x.url);
  const file = (text: string) => {
    const name = `${sha1(text)}.json`;
    attach!.set(name, text);
    return name;
  };
  return {
    pageref: 'page@157a74846c9dbe96d0c3a807043248da',
    startedDateTime: iso(x.sentAt),
    time: x.receivedAt - x.sentAt,
    request: {
      method: x.method,
      url: x.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [...pairs(x.headers, titleCase), { name: 'Host', value: u.host }, { name: 'Connection', value: 'keep-alive' }],
      queryString: query(x.url),
      headersSize: 548,
      bodySize: x.body === undefined ? 0 : Buffer.byteLength(x.body),
      ...(x.body !== undefined
        ? {
            postData: attach
              ? { mimeType: 'application/json', text: '', params: [], _file: file(x.body) }
              : { mimeType: 'application/json', text: x.body, params: [] },
          }
        : {}),
    },
    response: {
      status: x.status,
      statusText: 'OK',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(x.responseHeaders, titleCase),
      content: {
        size: Buffer.byteLength(x.responseText),
        mimeType: x.responseHeaders['content-type'] ?? '',
        compression: 0,
        ...(attach ? { _file: file(x.responseText) } : { text: x.responseText }),
      },
      headersSize: 361,
      bodySize: Buffer.byteLength(x.responseText),
      redirectURL: '',
      _transferSize: 711,
    },
    cache: {},
    timings: { dns: 0.09, connect: 0.2, ssl: -1, send: 0, wait: x.receivedAt - x.sentAt - 1, receive: 0.7 },
    _frameref: 'frame@c39d0c02a25e7ba8e22496fb09f978b6',
    _monotonicTime: 17313.324,
    _resourceType: 'fetch',
    serverIPAddress: '127.0.0.1',
    _serverPort: Number(u.port),
    _securityDetails: {},
  };
}

function playwrightLog(entries: Json[]): Json {
  return {
    log: {
      version: '1.2',
      creator: { name: 'Playwright', version: '1.65.1' },
      browser: { name: 'chromium', version: '150.0.7339.16' },
      pages: [
        {
          startedDateTime: iso(Date.now()),
          id: 'page@157a74846c9dbe96d0c3a807043248da',
          title: 'Shop',
          pageTimings: { onContentLoad: -1, onLoad: -1 },
        },
      ],
      entries,
    },
  };
}

export const playwrightEmbed = (story: Exchange[]): Json => playwrightLog(story.map((x) => playwrightEntry(x, undefined)));

/** Playwright's `.zip` (content: 'attach'): har.har and the bodies, deflated, each with a data descriptor (as yazl writes them). */
export function playwrightZip(story: Exchange[]): Buffer {
  const files = new Map<string, string>();
  const har = JSON.stringify(playwrightLog(story.map((x) => playwrightEntry(x, files))));
  const all: [string, Buffer][] = [['har.har', Buffer.from(har)], ...[...files].map(([n, t]): [string, Buffer] => [n, Buffer.from(t)])];
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of all) {
    const packed = deflateRawSync(data);
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6); // sizes in the data descriptor after the data; UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(n.length, 26);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(packed.length, 8);
    descriptor.writeUInt32LE(data.length, 12);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0808, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(packed.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(n.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, n, packed, descriptor);
    central.push(entry, n);
    offset += 30 + n.length + packed.length + 16;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(all.length, 8);
  end.writeUInt16LE(all.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** Python's datetime.isoformat() of a UTC time: microseconds and `+00:00`. */
const pythonIso = (ms: number) => isoMicro(ms).replace('Z', '+00:00');

export function mitmproxy(story: Exchange[]): Json {
  return {
    log: {
      version: '1.2',
      creator: { name: 'mitmproxy exporthar', version: '0.1', comment: 'mitmproxy version 10.1.1' },
      pages: [],
      entries: story.map((x) => {
        const total = x.receivedAt - x.sentAt;
        const timings = { connect: null, ssl: null, send: 0.2, receive: 0.3, wait: total - 0.5 };
        return {
          startedDateTime: pythonIso(x.sentAt),
          time: 0.2 + 0.3 + (total - 0.5),
          request: {
            method: x.method,
            url: x.url,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: pairs(x.headers),
            queryString: query(x.url),
            headersSize: 210,
            bodySize: x.body === undefined ? 0 : Buffer.byteLength(x.body),
            ...(x.method !== 'GET' ? { postData: { mimeType: 'application/json', text: x.body ?? '', params: [] } } : {}),
          },
          response: {
            status: x.status,
            statusText: x.status === 201 ? 'Created' : 'OK',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: pairs(x.responseHeaders, titleCase),
            content: {
              size: Buffer.byteLength(x.responseText),
              compression: 0,
              mimeType: x.responseHeaders['content-type'] ?? '',
              text: x.responseText,
            },
            redirectURL: '',
            headersSize: 180,
            bodySize: Buffer.byteLength(x.responseText),
          },
          cache: {},
          timings,
          serverIPAddress: '127.0.0.1',
        };
      }),
    },
  };
}

export function k6Studio(story: Exchange[]): Json {
  const entries = story.map((x, i) => ({
    startedDateTime: iso(x.sentAt),
    request: {
      method: x.method,
      url: x.url,
      httpVersion: 'HTTP/1.1',
      headers: pairs(x.headers),
      queryString: query(x.url),
      ...(x.body !== undefined ? { postData: { mimeType: 'application/json', text: x.body } } : {}),
      cookies: [],
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: x.status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: pairs(x.responseHeaders),
      content: {
        size: Buffer.byteLength(x.responseText),
        mimeType: x.responseHeaders['content-type'] ?? '',
        text: Buffer.from(x.responseText).toString('base64'),
        encoding: 'base64',
      },
      cookies: [],
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    // grouped by page: the later exchange's group first
    pageref: i === 0 ? 'Checkout' : 'Order status',
    cache: {},
    timings: { send: 0, wait: x.receivedAt - x.sentAt, receive: 0 },
    time: x.receivedAt - x.sentAt,
  }));
  return {
    log: {
      version: '1.2',
      creator: { name: 'k6-studio', version: '1.3.0' },
      pages: [
        { id: 'Order status', title: 'Order status', startedDateTime: iso(story[1]!.sentAt), pageTimings: {} },
        { id: 'Checkout', title: 'Checkout', startedDateTime: iso(story[0]!.sentAt), pageTimings: {} },
      ],
      entries: [...entries.slice(1), entries[0]],
      _browserEvents: { version: '2', events: [] },
    },
  };
}

export const proxyHar = (story: Exchange[]): Json =>
  harOf(
    story.map((x) => maskedExchange(x.seq, { ...x, opId: x.opId ?? '', json: undefined }, [], 0)),
    'paylater proxy',
  );
