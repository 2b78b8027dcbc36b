/**
 * The parts of HTTP/1.1 (RFC 9112) the forwarder reads itself: a message's head (start line and
 * header fields, held to the grammar as Node's own parser holds them: a bad one is refused, never
 * guessed at), the framing of its body, and chunked bodies, whose chunks pass on as they came
 * while their data is copied. Nothing else of a message is parsed: the rest goes on as bytes.
 */
import { STATUS_CODES } from 'node:http';

/** How a message's body is delimited (RFC 9112 §6.3). */
export type BodyKind = 'none' | 'length' | 'chunked' | 'close';

/** A message head: a request's (method, target) or a response's (status, reason), its fields and framing. */
export interface Head {
  method: string;
  target: string;
  status: number;
  reason: string;
  /** HTTP/1.minor */
  minor: number;
  /** The header fields as received: name, value, name, value … (values without their surrounding whitespace). */
  fields: string[];
  body: BodyKind;
  /** The Content-Length (body 'length'), else 0. */
  length: number;
  /** The Connection field says close, or an HTTP/1.0 message does not say keep-alive. */
  close: boolean;
  /** The field names the Connection field lists besides close and keep-alive (hop-by-hop too), or null. */
  connectionNames: string[] | null;
  /** Host fields (a request needs exactly one in HTTP/1.1). */
  hosts: number;
  /** A response's `Keep-Alive: timeout=N`, in ms, or -1. */
  keepAliveMs: number;
}

/**
 * The hop-by-hop fields (RFC 9110 §7.6.1): each side's own, never forwarded. Transfer-Encoding is
 * not among them here: a chunked body is passed on as its chunks, so its framing goes with it.
 */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te']);

/** A character of a token (RFC 9110 §5.6.2): a method, a field name. */
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
/** The same, by character code (a field name is checked where it lies in the head). */
const TOKEN_CHARS = Uint8Array.from({ length: 128 }, (_, c) => (TOKEN_CHAR.test(String.fromCharCode(c)) ? 1 : 0));
const REQUEST_LINE = new RegExp(`^(${TOKEN_CHAR.source}+) ([!-~]+) HTTP\\/1\\.([01])$`);
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: (.*))?$/;

/** Whether `s` is `lower` (a name in lower case) in any case: no lower-cased copy made. */
function isNamed(s: string, lower: string): boolean {
  if (s.length !== lower.length) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** The number `s[start…end)` writes in 1 to 15 decimal digits, else -1. */
function digitsValue(s: string, start: number, end: number): number {
  if (end <= start || end - start > 15) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Whether `s[start…end)` is a token: not empty, token characters only. */
function isToken(s: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TOKEN_CHARS[c] === 0) return false;
  }
  return true;
}

/** A control character other than HTAB (CR, LF and NUL among them): never in a field value or reason phrase. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127) return true;
  }
  return false;
}

/** `s[start…end)` without its optional whitespace (SP, HTAB) at either end; String#trim would take more (NBSP). */
function trimOws(s: string, start = 0, end = s.length): string {
  let a = start;
  let b = end;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * A head (its text without the blank line that ends it, latin1) parsed, or what is wrong with it.
 * `request`: a request head, whose body is 'none' unless Content-Length or Transfer-Encoding says
 * otherwise; a response's framing also depends on its request (`bodyOfAnswer`).
 */
export function parseHead(text: string, request: boolean): Head | string {
  // the lines are read in place (no array of lines, no string per line): a head is parsed twice per exchange
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd === -1) lineEnd = text.length;
  const startLine = text.slice(0, lineEnd);
  const head: Head = {
    method: '',
    target: '',
    status: 0,
    reason: '',
    minor: 1,
    fields: [],
    body: 'none',
    length: 0,
    close: false,
    connectionNames: null,
    hosts: 0,
    keepAliveMs: -1,
  };
  if (request) {
    const m = REQUEST_LINE.exec(startLine);
    if (!m) return 'a malformed request line';
    head.method = m[1]!;
    head.target = m[2]!;
    head.minor = Number(m[3]);
  } else {
    const m = STATUS_LINE.exec(startLine);
    if (!m || hasControl(m[3] ?? '')) return `a malformed status line ${JSON.stringify(startLine.slice(0, 64))}`;
    head.minor = Number(m[1]);
    head.status = Number(m[2]);
    head.reason = m[3] ?? '';
  }
  let length = -1;
  let chunked = false;
  let transferCoded = false;
  let keepAlive = false;
  const fields = head.fields;
  while (lineEnd < text.length) {
    // the next line: [from, lineEnd)
    const from = lineEnd + 2;
    lineEnd = text.indexOf('\r\n', from);
    if (lineEnd === -1) lineEnd = text.length;
    const c = text.indexOf(':', from);
    if (c <= from || c >= lineEnd) {
      const first = text.charCodeAt(from);
      return lineEnd > from && (first === 32 || first === 9) ? 'a folded header line' : 'a malformed header line';
    }
    const name = text.slice(from, c);
    if (!isToken(text, from, c)) return `a malformed header name ${JSON.stringify(name.slice(0, 64))}`;
    const value = trimOws(text, c + 1, lineEnd);
    if (hasControl(value)) return `a control character in the value of ${name}`;
    fields.push(name, value);
    // the fields that frame a message, found by length, then compared without a lower-cased copy
    const n = name.length;
    if (n === 4) {
      if (isNamed(name, 'host')) head.hosts++;
    } else if (n === 14) {
      if (!isNamed(name, 'content-length')) continue;
      let v = digitsValue(value, 0, value.length);
      if (v === -1)
        // a list of equal lengths is one length (RFC 9112 §6.3 item 5); different ones are an error
        for (const part of value.split(',')) {
          const t = trimOws(part);
          const w = digitsValue(t, 0, t.length);
          if (w === -1 || (v !== -1 && w !== v)) return 'an invalid Content-Length';
          v = w;
        }
      if (length !== -1 && v !== length) return 'an invalid Content-Length';
      length = v;
    } else if (n === 17) {
      if (!isNamed(name, 'transfer-encoding')) continue;
      transferCoded = true;
      const codings = value.toLowerCase().split(',');
      chunked = trimOws(codings[codings.length - 1]!) === 'chunked';
    } else if (n === 10) {
      if (isNamed(name, 'connection')) {
        if (isNamed(value, 'keep-alive')) keepAlive = true;
        else if (isNamed(value, 'close')) head.close = true;
        else
          for (const part of value.split(',')) {
            const t = trimOws(part).toLowerCase();
            if (t === 'close') head.close = true;
            else if (t === 'keep-alive') keepAlive = true;
            else if (t) (head.connectionNames ??= []).push(t);
          }
      } else if (!request && isNamed(name, 'keep-alive')) {
        const plain = value.length > 8 && isNamed(value.slice(0, 8), 'timeout=') ? digitsValue(value, 8, value.length) : -1;
        if (plain !== -1) head.keepAliveMs = plain * 1000;
        else {
          const m = /(?:^|[\s,;])timeout=(\d+)/i.exec(value);
          if (m) head.keepAliveMs = Number(m[1]) * 1000;
        }
      }
    }
  }
  if (head.minor === 0 && !keepAlive) head.close = true;
  if (transferCoded) {
    // a request's body must end chunked, and only HTTP/1.1 knows transfer codings (RFC 9112 §6.1, §6.3)
    if (request && (!chunked || head.minor === 0 || length !== -1)) return 'a Transfer-Encoding the proxy cannot frame';
    head.body = chunked ? 'chunked' : 'close';
  } else if (length !== -1) {
    head.body = length > 0 || !request ? 'length' : 'none';
    head.length = length;
  } else head.body = request ? 'none' : 'close';
  if (request && head.minor === 1 && head.hosts !== 1) return head.hosts ? 'more than one Host' : 'no Host';
  return head;
}

/** A response's framing, which its request's method and its status decide first (RFC 9112 §6.3 items 1–2). */
export function bodyOfAnswer(head: Head, method: string): BodyKind {
  return method === 'HEAD' || head.status === 204 || head.status === 304 || head.status < 200 ? 'none' : head.body;
}

/**
 * The header fields of a head as forwarded, `name: value\r\n` each, in their order: without the
 * hop-by-hop ones and those its Connection field names; `host` replaces the Host field's value;
 * `dechunked`: the body goes on without its chunks (Transfer-Encoding and Trailer dropped). A
 * response with Transfer-Encoding loses its Content-Length (RFC 9112 §6.3 item 3).
 */
export function forwardedFields(head: Head, host: string | undefined, dechunked: boolean): string {
  const f = head.fields;
  const named = head.connectionNames;
  const dropLength = head.body === 'chunked' || head.body === 'close' ? head.status > 0 : false;
  let out = '';
  for (let i = 0; i < f.length; i += 2) {
    const name = f[i]!;
    const n = name.length;
    if (n === 2 || n === 4 || n === 7 || n === 10 || n === 14 || n === 16 || n === 17 || named !== null) {
      const k = name.toLowerCase();
      if (HOP_BY_HOP.has(k) || (named !== null && named.includes(k))) continue;
      if (k === 'host' && host !== undefined) {
        out += `${name}: ${host}\r\n`;
        continue;
      }
      if (dechunked && (k === 'transfer-encoding' || k === 'trailer')) continue;
      if (dropLength && k === 'content-length') continue;
    }
    out += `${name}: ${f[i + 1]!}\r\n`;
  }
  return out;
}

/**
 * For the webhook port, which forwards through `node:http`: a raw-header list without the hop-by-hop
 * fields, those Connection names, and Transfer-Encoding and Trailer (Node frames the body); a
 * request's (`replaceHost` given) without Expect too (Node's server has answered it).
 */
export function forwardable(raw: string[], replaceHost?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(k) || k === 'transfer-encoding' || k === 'trailer' || named.has(k) || (k === 'expect' && replaceHost !== undefined))
      continue;
    if (k === 'host' && replaceHost !== undefined) out.push(raw[i]!, replaceHost);
    else out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/**
 * Header names as sent, each with its lower case: the same few names come on every exchange, and a
 * name looked up here is one string already used as a property key (a fresh `toLowerCase()` is a
 * new string to allocate, then to find in V8's table of property names). At most 256 held.
 */
const lowerNames = new Map<string, string>();
function lowerName(name: string): string {
  let k = lowerNames.get(name);
  if (k === undefined) {
    k = name.toLowerCase();
    if (lowerNames.size < 256 && name.length <= 64) lowerNames.set(name, k);
  }
  return k;
}

/**
 * A flat raw-header list as one record, names in lower case, repeated fields joined with ", " (own
 * members only: a field named like an Object method is a field).
 */
export function headerRecord(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = lowerName(raw[i]!);
    out[k] = Object.hasOwn(out, k) ? `${out[k]}, ${raw[i + 1]!}` : raw[i + 1]!;
  }
  return out;
}

/**
 * An answer of the proxy's own, head and body in one buffer: `fields` and a Content-Length, and a
 * Connection field when given; `bodyless` (a HEAD) sends the head alone.
 */
export function ownAnswer(
  status: number,
  fields: Record<string, string>,
  body: string,
  o: { bodyless: boolean; connection: 'close' | 'keep-alive' | null },
): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
  for (const k in fields) head += `${k}: ${fields[k]}\r\n`;
  head += `content-length: ${bytes.length}\r\n${o.connection ? `connection: ${o.connection}\r\n` : ''}\r\n`;
  return o.bodyless ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}

/** Where a chunked body's reader is (RFC 9112 §7.1). */
type ChunkState = 'size' | 'extension' | 'size-lf' | 'data' | 'data-cr' | 'data-lf' | 'trailer-start' | 'trailer' | 'trailer-lf' | 'end-lf';

/** The states that expect one byte: that byte, the state after it ('end': the body's last byte), and the error otherwise. */
const EXPECTED: Record<'data-cr' | 'data-lf' | 'trailer-lf' | 'end-lf', { byte: number; next: ChunkState | 'end'; error: string }> = {
  'data-cr': { byte: 13, next: 'data-lf', error: 'chunk data longer than its size' },
  'data-lf': { byte: 10, next: 'size', error: 'chunk data not ended by CRLF' },
  'trailer-lf': { byte: 10, next: 'trailer-start', error: 'a trailer line not ended by CRLF' },
  'end-lf': { byte: 10, next: 'end', error: 'a chunked body not ended by CRLF' },
};

/** Receives a chunked body's data, range by range. */
export interface ChunkSink {
  chunkData(buf: Buffer, start: number, end: number): void;
}

/** The most hex digits of a chunk size (13: under 2^53) and the most bytes of the trailer section. */
const MAX_SIZE_DIGITS = 13;
const MAX_TRAILER_BYTES = 16 * 1024;

/**
 * A chunked body read as it comes: `feed` finds where the body ends and hands each range of
 * chunk data to the sink; the bytes themselves are the caller's to pass on. Chunk extensions and
 * trailer fields are passed over (they go on with the raw bytes).
 */
export class ChunkedReader {
  state: ChunkState = 'size';
  size = 0;
  digits = 0;
  trailerBytes = 0;
  /** What is wrong with the body, once something is. */
  error: string | null = null;

  /** Reads bytes [start, end) of `buf`: the index just past the body's last byte, -1 if it has not ended, -2 on an error. */
  feed(buf: Buffer, start: number, end: number, sink: ChunkSink): number {
    let i = start;
    while (i < end) {
      const b = buf[i]!;
      switch (this.state) {
        case 'size': {
          const d = b >= 48 && b <= 57 ? b - 48 : b >= 97 && b <= 102 ? b - 87 : b >= 65 && b <= 70 ? b - 55 : -1;
          if (d >= 0) {
            if (++this.digits > MAX_SIZE_DIGITS) return this.fail('a chunk size too large');
            this.size = this.size * 16 + d;
          } else if (this.digits === 0) return this.fail('a chunk without a size');
          else if (b === 13) this.state = 'size-lf';
          else if (b === 59 || b === 32 || b === 9) this.state = 'extension';
          else return this.fail('a malformed chunk size');
          i++;
          break;
        }
        case 'extension':
          if (b === 13) this.state = 'size-lf';
          else if (b === 10 || b === 0) return this.fail('a malformed chunk extension');
          i++;
          break;
        case 'size-lf':
          if (b !== 10) return this.fail('a chunk size line not ended by CRLF');
          this.state = this.size === 0 ? 'trailer-start' : 'data';
          i++;
          break;
        case 'data': {
          const n = Math.min(this.size, end - i);
          sink.chunkData(buf, i, i + n);
          this.size -= n;
          i += n;
          if (this.size === 0) this.state = 'data-cr';
          break;
        }
        case 'trailer-start':
          this.state = b === 13 ? 'end-lf' : 'trailer';
          if (b !== 13 && ++this.trailerBytes > MAX_TRAILER_BYTES) return this.fail('a trailer section too large');
          i++;
          break;
        case 'trailer':
          if (b === 13) this.state = 'trailer-lf';
          else if (++this.trailerBytes > MAX_TRAILER_BYTES) return this.fail('a trailer section too large');
          i++;
          break;
        default: {
          // a state that expects one byte, CR or LF
          const e = EXPECTED[this.state];
          if (b !== e.byte) return this.fail(e.error);
          if (e.next === 'end') return i + 1;
          this.state = e.next;
          this.digits = 0;
          i++;
        }
      }
    }
    return -1;
  }

  private fail(why: string): number {
    this.error = why;
    return -2;
  }
}
